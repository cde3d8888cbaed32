// 1 GiB in 1 MiB blocks, one alive at a time.
let alive = null, sum = 0;
for (let i = 0; i < 1024; i++) {
  alive = new Array(1 << 17).fill(i + 0.5);
  sum += alive[0];
}
console.log("done " + alive.length * 8);
