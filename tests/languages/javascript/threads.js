// Four worker threads, each sums its quarter.
const { Worker, isMainThread, parentPort, workerData } = require("worker_threads");
if (isMainThread) {
  let total = 0n, done = 0;
  for (let id = 0; id < 4; id++) {
    const w = new Worker(__filename, { workerData: id });
    w.on("message", (s) => {
      total += BigInt(s);
      if (++done === 4) console.log(total.toString());
    });
  }
} else {
  let s = 0;
  for (let i = workerData; i < 400000; i += 4) s += i;
  parentPort.postMessage(s);
}
