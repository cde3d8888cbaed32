-module(main).
-export([main/0]).

%% Four processes, each sums its quarter.
main() ->
    Self = self(),
    [spawn(fun() -> Self ! {part, lists:sum(lists:seq(Id, 399999, 4))} end) || Id <- lists:seq(0, 3)],
    Total = lists:sum([receive {part, S} -> S end || _ <- lists:seq(1, 4)]),
    io:format("~w~n", [Total]).
