// Keeps every 1 MiB block: past any limit.
const kept = [];
for (;;) kept.push(new Array(1 << 17).fill(1.5));
