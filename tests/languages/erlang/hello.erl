-module(main).
-export([main/0]).

main() -> io:format("hello, world~n").
