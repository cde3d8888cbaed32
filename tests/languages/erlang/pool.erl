-module(main).
-export([main/0]).

%% The schedulers the VM started (a thread each).
main() ->
    S = {erlang:system_info(schedulers), erlang:system_info(dirty_cpu_schedulers),
         erlang:system_info(dirty_io_schedulers)},
    case S of
        {1, 1, 1} -> io:format("bounded~n");
        _ -> io:format("unbounded: ~w~n", [S])
    end.
