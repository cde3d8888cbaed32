:- initialization(main, main).

main :- writeln('missing paren'.
