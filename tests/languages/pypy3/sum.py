a, b = map(int, open(0).read().split())
print(a + b)
