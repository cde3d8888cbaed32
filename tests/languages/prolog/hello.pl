:- initialization(main, main).

main :- writeln('hello, world').
