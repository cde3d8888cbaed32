#!/usr/bin/python3
"""slowness.py -- the CPU time of a fixed reference workload, in ms.

tests/vm.sh runs it on this machine and again in the emulated guest: the
ratio is how much slower the guest computes, the slow-machine factor that
tests/integration/languages.sh scales its time limits by (GRADEQ_SLOW).
The workload is what the presets' limits are spent on: a compiler (cc -O2
of a C file, gcc's cc1 in a child process) and an interpreter's loop
(Python's own, in this process). Prints "CC_MS PY_MS": CPU time, user and
system, so a busy machine's waiting does not count; the least of three
tries, so another program's cache traffic counts as little as it can.
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "emulator_probe.c")


def cc_ms():
    """CPU time of children: 5 compiles of the probe with -O2."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as d:
        for _ in range(5):
            subprocess.run(["cc", "-O2", "-c", "-o", os.path.join(d, "p.o"), SOURCE], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def py_ms():
    """CPU time of this process for a loop of dict and string work."""
    t0 = time.process_time()
    d = {}
    for i in range(400000):
        d[str(i)] = i * i
    s = sum(d[k] for k in d if k.endswith("7"))
    if s < 0:
        sys.exit("impossible")
    return (time.process_time() - t0) * 1000


if __name__ == "__main__":
    print("%d %d" % (round(min(cc_ms() for _ in range(3))), round(min(py_ms() for _ in range(3)))))
