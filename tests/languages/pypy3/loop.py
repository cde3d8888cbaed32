x = 0
while True:
    x = (x * 31 + 7) % 1000003
