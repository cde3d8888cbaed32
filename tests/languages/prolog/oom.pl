:- initialization(main, main).

% Keeps every list it builds: past any limit.
main :- grow([]).
grow(Kept) :- numlist(1, 100000, L), grow([L|Kept]).
