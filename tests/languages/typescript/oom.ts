// Keeps every 1 MiB block: past any limit.
const kept: number[][] = [];
for (;;) kept.push(new Array<number>(1 << 17).fill(1.5));
