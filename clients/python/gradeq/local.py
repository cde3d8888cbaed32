"""local.py -- gradeq.run and gradeq.run_program: one program in the
sandbox, here, through libgradeq.so.

The sandbox keeps a long-lived zygote per box, so boxes are opened once and
reused: pool.py keeps them (bounded, shrinking, forgotten by a forked
child). The stdin function runs in the caller's process: the library calls
it from its reader threads, one call at a time, and ctypes takes the GIL
for it.
"""
import atexit
import codecs
import ctypes
import math
import os
import shlex
import warnings

from . import _lib
from .errors import IsolationError, IsolationWarning, SandboxError
from .pool import Pool
from .result import Result
from .sizes import parse_size


class _Signal:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "gradeq." + self._name


CLOSE = _Signal("CLOSE")  # returned by a stdin function: close the program's stdin
STOP = _Signal("STOP")    # returned by a stdin function: end the run now

# Status of a run that the stdin function ended by raising (re-raised).
CALLBACK_ERROR = "CALLBACK_ERROR"

_SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/")


_pool = Pool()
atexit.register(_pool.close)


def configure_pool(*, max_boxes=None, max_idle=None, idle_seconds=None):
    """Sets the bounds of this process's boxes (those given as None stay)
    and returns them all: at most max_boxes open at once (a run beyond waits
    for one), at most max_idle kept idle for the next runs, each closed once
    idle for idle_seconds (math.inf: never). Defaults: 64, the number of
    CPUs, 30."""
    return _pool.configure(max_boxes, max_idle, idle_seconds)


def _bytes(v, what):
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError(f"{what}: expected bytes or str, got {type(v).__name__}")


def _cstrings(strings, what):
    """NULL-terminated char *[] of strings that C would otherwise cut at a NUL."""
    out = []
    for v in strings:
        b = v.encode()
        if b"\0" in b:
            raise ValueError(f"{what}: {v!r} contains a NUL byte")
        out.append(b)
    return (ctypes.c_char_p * (len(out) + 1))(*out, None)


def _ship_local_program(argv, files):
    """A program named by a path outside the system dirs travels into the
    box and runs as ./NAME (as `gradeq run` does)."""
    prog = argv[0]
    if "/" not in prog or not os.path.isfile(prog) or os.path.realpath(prog).startswith(_SYSTEM_DIRS):
        return argv
    name = os.path.basename(prog)
    if name in files:
        raise ValueError(f"files: {name!r} is also the program {prog!r}, which travels into the box")
    with open(prog, "rb") as f:
        files[name] = f.read()
    return ["./" + name] + list(argv[1:])


class _Interaction:
    """The ctypes callback around the caller's stdin function."""

    def __init__(self, answer):
        self.answer = answer
        self.exc = None
        self.fn = _lib.INTERACT_FN(self._call)

    def _call(self, _ctx, stream, buf, n, reply):
        try:
            out = self.answer(stream, ctypes.string_at(buf, n))
            if out is STOP:
                return 1
            if out is CLOSE:
                _lib.lib().sbx_reply_close(reply)
            elif out is not None:
                data = _bytes(out, "the stdin function's answer")
                # 1: the program closed its stdin (or ended): the answer is dropped.
                if _lib.lib().sbx_reply_write(reply, data, len(data)) < 0:
                    raise BufferError("gradeq: the stdin function's answers the program has not read "
                                      "would pass 64 MiB")
            return 0
        except BaseException as e:  # re-raised in the caller once the run has ended
            self.exc = e
            return 1


def _limits(cpu_ms, wall_ms, memory, stdout_max, stderr_max, processes, file_max, open_files):
    # ctypes would wrap a value past 64 bits without a word, and the library
    # answers a zero where it needs a positive limit with SANDBOX_ERROR: both
    # are the caller's mistakes, said here.
    def fits(v, what, low=0):
        if not low <= v < 1 << 64:
            raise ValueError(f"{what}: {v!r} is out of range ({low} to 2**64 - 1)")
        return v

    def count(v, what, low=0):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{what}: expected an int, got {v!r}")
        return fits(v, what, low)
    return _lib.Limits(
        cpu_ms=count(cpu_ms, "cpu_ms", 1), wall_ms=0 if wall_ms is None else count(wall_ms, "wall_ms"),
        memory_bytes=fits(parse_size(memory, "memory"), "memory", 1),
        stdout_bytes=fits(parse_size(stdout_max, "stdout_max"), "stdout_max"),
        stderr_bytes=fits(parse_size(stderr_max, "stderr_max"), "stderr_max"),
        processes=count(processes, "processes", 1), file_bytes=fits(parse_size(file_max, "file_max"), "file_max"),
        open_files=count(open_files, "open_files", 1))


def _result(raw):
    return Result(
        status=_lib.STATUS_NAMES[raw.status],
        exit_code=None if raw.exit_code < 0 else raw.exit_code,
        signal=raw.signal or None,
        stdout=ctypes.string_at(raw.stdout_buf, raw.stdout_len) if raw.stdout_len else b"",
        stderr=ctypes.string_at(raw.stderr_buf, raw.stderr_len) if raw.stderr_len else b"",
        stdout_truncated=raw.stdout_truncated, stderr_truncated=raw.stderr_truncated,
        cpu_us=raw.cpu_us, wall_us=raw.wall_us, memory_bytes=raw.memory_bytes,
        isolation=_lib.isolation_names(raw.isolation),
        error=raw.error.decode(errors="replace") or None,
        waiting_for_input=raw.waiting_for_input, ended_by_callback=raw.ended_by_callback)


def _missing(bits):
    return _lib.isolation_names(_lib.ISO_ALL & ~bits)


def run(argv, *, stdin=b"", files=None, env=None, cpu_ms=1000, wall_ms=None, memory="256M",
        stdout_max="1M", stderr_max="64K", processes=64, file_max="64M", open_files=64,
        require_isolation=False):
    """Runs argv in the sandbox and returns its Result (see the package README).

    stdin is bytes or str, or a function answer(stream, data) called with each
    chunk the program writes (stream 1 or 2) that returns bytes (or str) for
    its stdin, None, gradeq.CLOSE or gradeq.STOP. An exception inside it ends
    the run and is re-raised here."""
    if isinstance(argv, (str, bytes)) or not argv:
        raise TypeError("argv: expected a non-empty list of strings, e.g. ['python3', 'main.py']")
    files = {str(k): _bytes(v, f"files[{k!r}]") for k, v in (files or {}).items()}
    argv = _ship_local_program([str(a) for a in argv], files)
    limits = _limits(cpu_ms, wall_ms, memory, stdout_max, stderr_max, processes, file_max, open_files)

    if require_isolation:
        bits, describe = _pool.host_isolation()
        if _missing(bits):
            raise IsolationError(f"gradeq: isolation required but {', '.join(_missing(bits))} "
                                 f"does not hold here: {describe}")

    spec = _lib.Spec(argv=_cstrings(argv, "argv"), limits=limits)
    if env is not None:
        if any(not k or "=" in k for k in env):
            raise ValueError(f"env: a name is empty or contains '=': {list(env)!r}")
        spec.env = _cstrings([f"{k}={v}" for k, v in env.items()], "env")
    if files:
        names = _cstrings(files, "files")
        c_files = (_lib.File * len(files))(*[_lib.File(names[i], v, len(v), True)
                                             for i, v in enumerate(files.values())])
        spec.files, spec.nfiles = c_files, len(files)
    interaction = None
    if callable(stdin):
        interaction = _Interaction(stdin)
        spec.interact = interaction.fn
    else:
        data = _bytes(stdin, "stdin")
        spec.stdin_data, spec.stdin_len = data, len(data)

    lib, raw = _lib.lib(), _lib.RawResult()
    box = _pool.take()
    try:
        lib.sbx_run(box, ctypes.byref(spec), ctypes.byref(raw))
        result = _result(raw)
    finally:
        lib.sbx_result_free(ctypes.byref(raw))
        _pool.give(box)

    if interaction is not None and interaction.exc is not None:
        result.status = CALLBACK_ERROR
        interaction.exc.add_note(f"gradeq: raised by the stdin function; the run was ended ({result.status})")
        interaction.exc.gradeq_result = result
        raise interaction.exc
    missing = _missing(raw.isolation)
    if missing and result.status != "SANDBOX_ERROR":
        if require_isolation:
            raise IsolationError(f"gradeq: isolation required but {', '.join(missing)} did not hold")
        warnings.warn(f"gradeq: ran degraded: {', '.join(missing)} did not hold", IsolationWarning, stacklevel=2)
    return result


# run_program's codes for what is not an exit code.
NOT_FOUND, TIMEOUT, MEMORY, OUTPUT_CAP = -1, -2, -3, -4
_CODES = {"EXEC_ERROR": NOT_FOUND, "TIME_LIMIT": TIMEOUT, "WALL_TIME_LIMIT": TIMEOUT,
          "MEMORY_LIMIT": MEMORY, "OUTPUT_LIMIT": OUTPUT_CAP}


def _text_answer(answer):
    # A character split across two chunks is held until its last byte: a
    # chunk that completes no character calls nothing.
    decoders = {1: codecs.getincrementaldecoder("utf-8")("replace"),
                2: codecs.getincrementaldecoder("utf-8")("replace")}

    def call(stream, data):
        text = decoders[stream].decode(data)
        return answer(stream, text) if text else None
    return call


def run_program(cmd, sinput="", timeout=1.0, memory="256M", **options):
    """Runs cmd (a command line or a list) and returns (ret, stdout, stderr)
    as text. ret is the exit code, 128+N when killed by signal N, or -1 not
    found, -2 timeout (CPU or wall), -3 memory, -4 output cap. sinput is a
    string, or a function answer(stream, text) returning str, None,
    gradeq.CLOSE or gradeq.STOP. Other keywords are those of run()."""
    argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout * 1000 < 1 << 64:
        raise ValueError(f"timeout: expected a finite number of seconds > 0, got {timeout!r}")
    ms = max(1, math.ceil(timeout * 1000))
    stdin = _text_answer(sinput) if callable(sinput) else sinput
    r = run(argv, stdin=stdin, cpu_ms=ms, wall_ms=ms, memory=memory, **options)
    if r.status == "SANDBOX_ERROR":
        raise SandboxError("gradeq: " + (r.error or "the sandbox failed"))
    if r.status in _CODES:
        ret = _CODES[r.status]
    elif r.signal:
        ret = 128 + r.signal
    else:
        ret = r.exit_code or 0
    return ret, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")
