// The threads the runtime started (V8's platform workers, libuv's pool),
// after collections and a read on the pool: at most 8 whatever the CPU
// count (a pool sized by the CPUs would be 64 threads on a 64-CPU host).
let a = [];
for (let i = 0; i < 200; i++) a = new Array(100000).fill(i);
require("fs").readFile("/proc/self/status", "utf8", (e, s) => {
  if (e) throw e;
  const n = Number(/Threads:\s+(\d+)/.exec(s)[1]);
  console.log(n <= 8 ? "bounded" : "unbounded: " + n + " threads");
});
