:- initialization(main, main).

main :- loop(0).
loop(X) :- Y is (X * 31 + 7) mod 1000003, loop(Y).
