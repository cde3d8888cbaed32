var x = 0
while true:
  x = (x * 31 + 7) mod 1000003
