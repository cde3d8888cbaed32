-module(main).
-export([main/0]).

main() -> loop(0).

loop(X) -> loop((X * 31 + 7) rem 1000003).
