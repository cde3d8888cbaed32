:- initialization(main, main).

main :-
    read_string(user_input, _, Text),
    split_string(Text, " \n\t", " \n\t", Words),
    exclude(==(""), Words, [A, B]),
    number_string(X, A), number_string(Y, B),
    S is X + Y, writeln(S).
