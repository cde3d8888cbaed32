:- initialization(main, main).

% 1 GiB in 1 MiB lists, one alive at a time.
main :- forall(between(1, 1024, _), length(_, 43690)), writeln('done 1048576').
