let x: number = 0;
for (;;) x = (x * 31 + 7) % 1000003;
