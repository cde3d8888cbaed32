:- initialization(main, main).

% Four threads, each sums its quarter and sends it back.
work(Id, Parent) :-
    aggregate_all(sum(I), (between(0, 99999, K), I is K * 4 + Id), S),
    thread_send_message(Parent, part(S)).

main :-
    thread_self(Me),
    findall(T, (between(0, 3, Id), thread_create(work(Id, Me), T, [])), Ts),
    findall(S, (between(1, 4, _), thread_get_message(part(S))), Ss),
    maplist(thread_join, Ts),
    sum_list(Ss, Total), writeln(Total).
