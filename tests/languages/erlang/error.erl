-module(main).
-export([main/0]).

main() -> 1 = length(init:get_plain_arguments()) + 2.
