-module(main).
-export([main/0]).

main() -> io:format("missing paren~n".
