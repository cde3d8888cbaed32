#!/usr/bin/python3
# The student's program of the guessing game: guesses 1..100 by halving,
# reading "higher", "lower" or "correct" after each guess.
lo, hi = 1, 100
while lo <= hi:
    guess = (lo + hi) // 2
    print(guess, flush=True)
    answer = input()
    if answer == "higher":
        lo = guess + 1
    elif answer == "lower":
        hi = guess - 1
    else:
        break
print("found", guess)
