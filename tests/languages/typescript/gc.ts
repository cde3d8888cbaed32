// 1 GiB in 1 MiB blocks, one alive at a time.
let alive: number[] = [];
for (let i = 0; i < 1024; i++) alive = new Array<number>(1 << 17).fill(i + 0.5);
console.log("done " + alive.length * 8);
