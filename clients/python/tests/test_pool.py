"""The boxes of local runs: bounded, shrinking, and let go by a forked child.
Each box is a zygote process, a child of this one: the tests count them."""
import json
import math
import os
import select
import signal
import subprocess
import sys
import threading

import pytest

import gradeq

HERE = os.path.dirname(os.path.abspath(__file__))


def zygotes(pid=None):
    """Live (not zombie) children of pid: the zygotes of its boxes."""
    pid = pid or os.getpid()
    out = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                state, ppid = f.read().rsplit(")", 1)[1].split()[:2]
        except OSError:
            continue
        if int(ppid) == pid and state != "Z":
            out.add(int(d))
    return out


def pidfds(pids):
    """pidfds of pids, opened while they run: wait_exited waits on them."""
    return [os.pidfd_open(p) for p in pids]


def wait_exited(fds, seconds=30):
    """Whether every process of fds exits within seconds; closes fds."""
    try:
        p = select.poll()
        for fd in fds:
            p.register(fd, select.POLLIN)
        left = set(fds)
        while left:
            ready = p.poll(seconds * 1000)
            if not ready:
                return False
            for fd, _ in ready:
                left.discard(fd)
                p.unregister(fd)
        return True
    finally:
        for fd in fds:
            os.close(fd)


@pytest.fixture
def pool():
    before = gradeq.configure_pool()
    yield gradeq.configure_pool
    gradeq.configure_pool(**before)


def test_settings_are_checked(pool):
    s = pool()
    assert set(s) == {"max_boxes", "max_idle", "idle_seconds"} and s["max_boxes"] >= 1
    for bad in ({"max_boxes": 0}, {"max_idle": -1}, {"idle_seconds": -1}, {"idle_seconds": math.nan},
                {"max_boxes": True}):
        with pytest.raises(ValueError):
            pool(**bad)


def test_idle_boxes_beyond_max_idle_are_closed(pool):
    pool(max_idle=1)
    assert len(zygotes()) <= 1
    barrier = threading.Barrier(3, timeout=30)
    during = []

    def answer(stream, data):
        if barrier.wait() == 0:
            during.append(len(zygotes()))
        barrier.wait()  # every run alive until counted
        return gradeq.CLOSE
    out = []
    threads = [threading.Thread(target=lambda: out.append(gradeq.run(["sh", "-c", "echo x; cat"], stdin=answer,
                                                                     wall_ms=30000)))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [r.status for r in out] == ["OK"] * 3
    assert during == [3]
    assert len(zygotes()) == 1


def test_a_box_idle_for_idle_seconds_is_closed(pool):
    pool(max_idle=4, idle_seconds=math.inf)  # for ever, until told otherwise
    assert gradeq.run(["true"]).ok
    kept = zygotes()
    assert kept
    fds = pidfds(kept)
    pool(idle_seconds=0.2)
    assert wait_exited(fds), f"zygotes {kept} still running"
    assert not zygotes()
    pool(idle_seconds=30)
    assert gradeq.run(["true"]).ok  # the pool opens a box again


def test_runs_beyond_max_boxes_wait_for_a_box(pool):
    """With one box, a second run waits for the first to end, then reuses
    its box: one zygote all along."""
    pool(max_boxes=1, max_idle=1)
    seen = {}
    second = []

    def b_answer(stream, data):
        seen["b"] = zygotes()
        return gradeq.CLOSE

    def run_b():
        second.append(gradeq.run(["sh", "-c", "echo b; cat"], stdin=b_answer, wall_ms=30000))

    t = threading.Thread(target=run_b)

    def a_answer(stream, data):
        seen["a"] = zygotes()
        t.start()  # its run waits: the one box is this run's
        return gradeq.CLOSE
    first = gradeq.run(["sh", "-c", "echo a; cat"], stdin=a_answer, wall_ms=30000)
    t.join(60)
    assert first.ok and second and second[0].ok, (first, second)
    assert len(seen["a"]) == 1 and seen["b"] == seen["a"]


# A parent that runs once (one box, one zygote), forks a child that reports
# the descriptors it holds and then waits for end-of-file on stdin, and
# waits itself until it is killed.
FORKING_PARENT = r"""
import json, os, sys
import gradeq
assert gradeq.run(["true"]).ok
sys.path.insert(0, sys.argv[1])
from test_pool import zygotes
z = zygotes()
pid = os.fork()
if pid == 0:
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    os.write(1, ("child " + json.dumps(links) + "\n").encode())  # one write: the parent writes too
    sys.stdin.read()
    os._exit(0)
os.write(1, ("zygotes " + json.dumps(sorted(z)) + "\n").encode())
sys.stdin.read()
"""


def test_a_forked_child_lets_go_of_the_parents_boxes():
    """The child holds none of the parent's slot locks, and a parent killed
    with SIGKILL takes its zygote with it while the child lives on."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE), GRADEQ_LIB=os.path.realpath(gradeq._lib.lib()._name))
    p = subprocess.Popen([sys.executable, "-c", FORKING_PARENT, HERE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=env, text=True)
    try:
        lines = [p.stdout.readline() for _ in range(2)]
        said = dict(line.split(" ", 1) for line in lines)
        assert set(said) == {"child", "zygotes"}, lines
        child_fds = json.loads(said["child"])
        parent_zygotes = json.loads(said["zygotes"])
        assert parent_zygotes
        assert not [f for f in child_fds if "/slot-" in f and f.endswith(".lock")], child_fds
        fds = pidfds(parent_zygotes)
        p.send_signal(signal.SIGKILL)
        p.wait(30)
        assert wait_exited(fds), "the parent's zygote outlived it: the child kept its socket"
    finally:
        p.kill()
        p.stdin.close()  # the child's end-of-file: it exits
        p.stdout.close()
        p.wait(30)


def test_a_child_forked_while_the_library_loads_can_use_it():
    """The loader's lock, held by another thread at the fork, is not the
    child's: its runs do not hang on it."""
    assert gradeq.run(["true"]).ok
    with gradeq._lib._lock:  # as a thread loading the library would hold it
        pid = os.fork()
        if pid == 0:
            try:
                signal.alarm(30)  # the outer bound of a hang
                os._exit(0 if gradeq.run(["echo", "child"]).stdout == b"child\n" else 1)
            finally:
                os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
