# Four threads, each sums its quarter.
import threading

parts = [0] * 4


def work(k):
    parts[k] = sum(range(k, 400000, 4))


threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sum(parts))
