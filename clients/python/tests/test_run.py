"""gradeq.run and gradeq.run_program against libgradeq.so, for real."""
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading

import pytest

import gradeq

HERE = os.path.dirname(os.path.abspath(__file__))
GUESS = os.path.join(HERE, "guess.py")


def test_exit_code_and_both_streams():
    r = gradeq.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (r.status, r.exit_code, r.signal) == ("RUNTIME_ERROR", 3, None)
    assert (r.stdout, r.stderr) == (b"out\n", b"err\n")
    assert not r.ok and r.wall_us > 0


def test_ok_and_string_stdin():
    r = gradeq.run(["cat"], stdin="héllo\0bin")
    assert r.ok and r.exit_code == 0
    assert r.stdout == "héllo\0bin".encode()


def test_full_isolation_as_root():
    if os.geteuid() != 0:
        pytest.skip("full isolation needs root")
    r = gradeq.run(["true"], require_isolation=True)
    assert r.ok and "seccomp" in r.isolation and "pid_ns" in r.isolation


def test_files_env_and_sizes():
    r = gradeq.run(["sh", "-c", 'cat data/in.txt; echo "$GREETING"'], files={"data/in.txt": b"file\n"},
                   env={"PATH": "/bin:/usr/bin", "GREETING": "hi there"}, memory=64 << 20, stdout_max="4K")
    assert r.ok and r.stdout == b"file\nhi there\n"


def test_output_cap_kills_the_program():
    r = gradeq.run(["sh", "-c", "while :; do echo yyyyyyyyyyyyyyyy; done"], stdout_max="1K")
    assert r.status == "OUTPUT_LIMIT" and r.stdout_truncated and len(r.stdout) == 1024


def test_cpu_and_wall_limits():
    r = gradeq.run(["sh", "-c", "while :; do :; done"], cpu_ms=200, wall_ms=20000)  # a loaded machine still ends on CPU
    assert r.status == "TIME_LIMIT" and r.cpu_us >= 200_000
    r = gradeq.run(["sleep", "5"], cpu_ms=100, wall_ms=200)
    assert r.status == "WALL_TIME_LIMIT" and r.wall_us < 2_000_000


def test_memory_limit():
    r = gradeq.run(["python3", "-c", "b = bytearray(400 << 20)"], memory="64M", cpu_ms=10000)
    assert r.status == "MEMORY_LIMIT"


def test_program_not_found():
    r = gradeq.run(["no-such-program-here"])
    assert r.status == "EXEC_ERROR" and r.error


def test_bad_arguments():
    with pytest.raises(TypeError):
        gradeq.run("echo hi")
    with pytest.raises(ValueError):
        gradeq.run(["true"], memory="lots")
    with pytest.raises(TypeError):
        gradeq.run(["true"], stdin=42)
    with pytest.raises(ValueError):
        gradeq.run(["echo", "a\0b"])
    with pytest.raises(ValueError):
        gradeq.run(["true"], env={"A=B": "c"})


def test_limits_the_library_cannot_take_are_refused_here():
    """Never wrapped into 64 bits (2**64 + 5 ms was 5 ms), nor a
    SANDBOX_ERROR for the caller's zero."""
    for bad in ({"cpu_ms": 2 ** 64 + 5}, {"memory": "99999999T"}, {"file_max": 2 ** 64}, {"cpu_ms": 0},
                {"memory": 0}, {"processes": 0}, {"open_files": 0}, {"wall_ms": 2 ** 70}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            gradeq.run(["true"], **bad)
    for bad in (math.inf, math.nan, -1, 0, 2.0 ** 70):
        with pytest.raises(ValueError, match="timeout"):
            gradeq.run_program("true", timeout=bad)
    assert gradeq.run(["true"], stdout_max=0, stderr_max=0, wall_ms=0).ok


def test_local_program_travels_into_the_box(tmp_path):
    prog = tmp_path / "hello.sh"
    prog.write_text("#!/bin/sh\necho \"from $0 in $(pwd)\"\n")
    prog.chmod(0o755)
    r = gradeq.run([str(prog)])
    assert r.ok, r
    assert r.stdout == b"from ./hello.sh in /box\n"


def guessing_game(secret):
    """The teacher's answer function: a closure over secret and a log."""
    guesses = []
    pending = b""

    def answer(stream, data):
        nonlocal pending
        if stream != 1:
            return None
        pending += data
        out = b""
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if line.startswith(b"found"):
                return None
            guesses.append(int(line))
            g = guesses[-1]
            out += b"higher\n" if g < secret else b"lower\n" if g > secret else b"correct\n"
        return out or None
    return answer, guesses


def test_guessing_game_with_a_closure():
    answer, guesses = guessing_game(37)
    r = gradeq.run([GUESS], stdin=answer, cpu_ms=10000)
    assert r.ok, r
    assert r.stdout.endswith(b"found 37\n")
    assert guesses[-1] == 37 and len(guesses) <= 7
    assert r.stdout.count(b"\n") == len(guesses) + 1


def readme_guessing_game(secret):
    """The package README's answer function, as it is there."""
    pending = b""
    def answer(stream, data):            # the program guesses, we answer
        nonlocal pending
        pending += data
        reply = b""
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if line.isdigit():
                g = int(line)
                reply += b"higher\n" if g < secret else b"lower\n" if g > secret else b"correct\n"
        return reply or None
    return answer


# Closes its stdin after the first answer and keeps guessing. Each guess
# waits a moment, so that the answer to the one before has found the pipe
# closed (what made the old code raise; the code now passes either way).
CLOSES_STDIN = b"""import os, time
print(50, flush=True)
input()
os.close(0)
for g in range(51, 71):
    print(g, flush=True)
    time.sleep(0.01)
print("done")
"""


def test_a_program_that_closes_its_stdin_has_its_answers_dropped():
    r = gradeq.run(["python3", "closes.py"], files={"closes.py": CLOSES_STDIN}, stdin=readme_guessing_game(37),
                   cpu_ms=10000)
    assert r.ok, r
    assert r.stdout.endswith(b"70\ndone\n")
    ret, out, _ = gradeq.run_program(["python3", "closes.py"], lambda s, text: "lower\n", files={"closes.py": CLOSES_STDIN},
                                     timeout=10)
    assert (ret, out.splitlines()[-1]) == (0, "done")


def test_answers_the_program_never_reads_end_the_run_past_64_mib():
    with pytest.raises(BufferError) as e:
        gradeq.run(["sh", "-c", "echo go; exec sleep 30"], stdin=lambda s, d: bytes(65 << 20), wall_ms=20000)
    assert e.value.gradeq_result.status == gradeq.CALLBACK_ERROR
    assert e.value.gradeq_result.wall_us < 10_000_000


def test_stop_ends_the_run():
    r = gradeq.run(["sh", "-c", "echo ready; sleep 10"], stdin=lambda s, d: gradeq.STOP, wall_ms=5000)
    assert r.ended_by_callback and r.wall_us < 4_000_000


def test_close_gives_the_program_eof():
    seen = []

    def answer(stream, data):
        seen.append(data)
        text = b"".join(seen)
        if text == b"ready\n":
            return b"abc\n"
        return gradeq.CLOSE if text.endswith(b"abc\n") else None
    r = gradeq.run(["sh", "-c", "echo ready; cat; echo done"], stdin=answer)
    assert r.ok and r.stdout == b"ready\nabc\ndone\n"


def test_exception_in_the_function_ends_the_run_and_reraises():
    class Boom(Exception):
        pass

    def answer(stream, data):
        raise Boom("teacher's bug")
    with pytest.raises(Boom) as e:
        gradeq.run(["sh", "-c", "echo ready; sleep 10"], stdin=answer, wall_ms=5000)
    assert e.value.gradeq_result.status == gradeq.CALLBACK_ERROR
    assert e.value.gradeq_result.wall_us < 4_000_000
    assert any("stdin function" in n for n in e.value.__notes__)
    assert gradeq.run(["true"]).ok  # the box is ready again


def test_runs_from_threads_at_once():
    """Three runs live at once (each in its own box): every callback waits
    for the other two before answering."""
    barrier = threading.Barrier(3, timeout=30)
    out = {}

    def answer(stream, data):
        barrier.wait()
        return gradeq.CLOSE

    def one(i):
        out[i] = gradeq.run(["sh", "-c", f"echo {i}; cat"], stdin=answer, wall_ms=20000)
    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert {i: (r.status, r.stdout) for i, r in out.items()} == {i: ("OK", f"{i}\n".encode()) for i in range(3)}


PLANT = """
import fcntl, os, struct
def attempt(f, *a):
    try:
        f(*a)
    except OSError:
        pass  # user.* on tmpfs needs Linux 6.6
acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in
                                      ((1, 7, 2**32 - 1), (2, 7, 4242), (4, 5, 2**32 - 1), (16, 7, 2**32 - 1), (32, 5, 2**32 - 1)))
attempt(os.setxattr, ".", "user.gradeq", b"carried over")
os.setxattr(".", "system.posix_acl_access", acl)
os.setxattr(".", "system.posix_acl_default", acl)
fd = os.open(".", os.O_RDONLY)
fcntl.ioctl(fd, 0x40086602, struct.pack("i", 0x80 | 0x40))  # FS_IOC_SETFLAGS: noatime, nodump
os.utime(".", (981158400, 981158400))
os.chmod(".", 0)
print(os.getuid())
"""
LOOK = """
import fcntl, os, struct, time
fd = os.open(".", os.O_RDONLY)
flags = struct.unpack("i", fcntl.ioctl(fd, 0x80086601, b"\\0" * 4))[0]  # FS_IOC_GETFLAGS
st = os.stat(".")
recent = all(abs(t - time.time()) < 600 for t in (st.st_atime, st.st_mtime, st.st_ctime))
print(os.getuid(), oct(st.st_mode & 0o7777), st.st_uid == os.getuid(), os.listxattr("."), flags, recent)
"""


def test_pooled_box_is_new_after_the_run_changed_it():
    """The pool hands the next run the box the last one used: what that run
    did to /box itself (mode, ACLs, attributes, flags, times) is gone."""
    if os.geteuid() != 0:
        pytest.skip("a box of its own needs root")
    planted = gradeq.run(["python3", "-c", PLANT])
    assert planted.ok, planted.stderr
    looked = gradeq.run(["python3", "-c", LOOK])
    assert looked.ok, looked.stderr
    uid = planted.stdout.decode().strip()
    assert looked.stdout.decode() == f"{uid} 0o755 True [] 0 True\n"  # the same box (its slot's uid), new


def test_after_fork_the_child_opens_its_own_box():
    assert gradeq.run(["true"]).ok
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(0 if gradeq.run(["echo", "child"]).stdout == b"child\n" else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert gradeq.run(["true"]).ok


def test_run_program_codes():
    assert gradeq.run_program("sh -c 'echo out; echo err >&2; exit 5'") == (5, "out\n", "err\n")
    assert gradeq.run_program("cat", "typed") == (0, "typed", "")
    assert gradeq.run_program("no-such-program-here")[0] == gradeq.NOT_FOUND == -1
    assert gradeq.run_program("sleep 5", timeout=0.2)[0] == gradeq.TIMEOUT == -2
    assert gradeq.run_program(["python3", "-c", "b = bytearray(400 << 20)"], memory="64M", timeout=10)[0] == gradeq.MEMORY == -3
    assert gradeq.run_program("yes", stdout_max="1K")[0] == gradeq.OUTPUT_CAP == -4
    assert gradeq.run_program("sh -c 'kill -9 $$'")[0] == 128 + 9


def test_run_program_with_a_text_function():
    secret, pending = 64, ""

    def answer(stream, text):
        nonlocal pending
        pending += text
        if "\n" not in pending:
            return None
        line, pending = pending.split("\n", 1)
        if line.startswith("found"):
            return None
        g = int(line)
        return "higher\n" if g < secret else "lower\n" if g > secret else "correct\n"
    ret, out, err = gradeq.run_program([GUESS], answer, timeout=10)
    assert (ret, out.splitlines()[-1], err) == (0, "found 64", "")


# Writes "é" in two chunks: its second byte only once the sandbox's reader
# has taken the first (the pipe is empty again).
SPLIT_CHAR = b"""import fcntl, os, struct, termios
os.write(1, b"\\xc3")
while struct.unpack("i", fcntl.ioctl(1, termios.FIONREAD, bytes(4)))[0]:
    os.sched_yield()
os.write(1, b"\\xa9\\n")
"""


def test_a_text_function_never_sees_half_a_character():
    seen = []

    def answer(stream, text):
        seen.append(text)
    ret, out, _ = gradeq.run_program(["python3", "split.py"], answer, files={"split.py": SPLIT_CHAR}, timeout=10)
    assert (ret, out) == (0, "é\n")
    assert seen == ["é\n"]


DEGRADED = """
import warnings, gradeq
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r = gradeq.run(["echo", "degraded"])
assert r.ok and r.stdout == b"degraded\\n", r
assert any(issubclass(x.category, gradeq.IsolationWarning) and "did not hold" in str(x.message) for x in w), w
try:
    gradeq.run(["true"], require_isolation=True)
    raise SystemExit("require_isolation ran degraded")
except gradeq.IsolationError as e:
    print("refused:", e)
"""


def test_without_root_runs_degraded_and_says_so():
    if os.geteuid() != 0:
        pytest.skip("needs root to drop to another user")
    # A copy of the package and the library that the other user can read
    # wherever this checkout lives.
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)
        shutil.copytree(os.path.dirname(gradeq.__file__), os.path.join(d, "gradeq"))
        lib = shutil.copy(os.path.realpath(gradeq._lib.lib()._name), os.path.join(d, "libgradeq.so.1"))
        env = dict(os.environ, PYTHONPATH=d, HOME=d, GRADEQ_LIB=lib)
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
                            DEGRADED], env=env, capture_output=True, text=True, timeout=120, cwd=d)
    assert p.returncode == 0, p.stderr
    assert "refused: gradeq: isolation required but" in p.stdout


def test_sizes():
    assert gradeq.parse_size("64M") == 64 << 20
    assert gradeq.parse_size("1k") == 1024
    assert gradeq.parse_size(7) == 7
    with pytest.raises(ValueError):
        gradeq.parse_size("-1M")
