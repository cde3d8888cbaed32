# guess-the-number against tests/progs/guess_interactor: halving, 20 rounds.
import sys
for r in range(20):
    lo, hi = 1, 10**6
    while True:
        mid = (lo + hi) // 2
        print("?", mid, flush=True)
        a = sys.stdin.readline().strip()
        if a == "=": break
        if a == "<": hi = mid - 1
        else: lo = mid + 1
