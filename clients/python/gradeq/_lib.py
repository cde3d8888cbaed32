"""_lib.py -- libgradeq.so through ctypes: its structures and functions.

The structures mirror sandbox/sandbox.h field for field (tests/test_abi.py
compiles the header and compares every offset). The library is found
through GRADEQ_LIB when set, else the installed library (the dynamic
loader's search path), else build/ at the top of the checkout this package
lives in. It is loaded once, on first use, so that importing gradeq for the
queue client alone never needs it.
"""
import ctypes
import os
import threading

SONAME = "libgradeq.so.1"
ERR_LEN = 256
ISO_ALL = (1 << 16) - 1

STATUS_NAMES = ("OK", "RUNTIME_ERROR", "SIGNALED", "TIME_LIMIT", "WALL_TIME_LIMIT",
                "MEMORY_LIMIT", "OUTPUT_LIMIT", "EXEC_ERROR", "SANDBOX_ERROR")


class Limits(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in (
        "cpu_ms", "wall_ms", "memory_bytes", "stdout_bytes", "stderr_bytes",
        "processes", "file_bytes", "open_files")]


class File(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("data", ctypes.c_char_p),  # const void *: bytes, not copied
                ("len", ctypes.c_size_t), ("executable", ctypes.c_bool),
                ("content_id", ctypes.c_uint64)]  # 0: compared in full when kept


INTERACT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                               ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)


class Spec(ctypes.Structure):
    _fields_ = [("argv", ctypes.POINTER(ctypes.c_char_p)),
                ("env", ctypes.POINTER(ctypes.c_char_p)),
                ("files", ctypes.POINTER(File)), ("nfiles", ctypes.c_size_t),
                ("stdin_data", ctypes.c_char_p), ("stdin_len", ctypes.c_size_t),
                ("limits", Limits),
                ("interact", INTERACT_FN), ("interact_ctx", ctypes.c_void_p),
                ("use_stdin_fd", ctypes.c_bool), ("use_stdout_fd", ctypes.c_bool),
                ("stdin_fd", ctypes.c_int), ("stdout_fd", ctypes.c_int),
                ("pin_cpu", ctypes.c_bool), ("cpu", ctypes.c_uint),
                ("collect", ctypes.c_void_p)]  # sbx_collect *: always NULL here


class RawResult(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("exit_code", ctypes.c_int), ("signal", ctypes.c_int),
                ("stdout_buf", ctypes.c_void_p), ("stdout_len", ctypes.c_size_t),
                ("stdout_truncated", ctypes.c_bool),
                ("stderr_buf", ctypes.c_void_p), ("stderr_len", ctypes.c_size_t),
                ("stderr_truncated", ctypes.c_bool),
                ("cpu_us", ctypes.c_uint64), ("wall_us", ctypes.c_uint64), ("end_ns", ctypes.c_uint64),
                ("memory_bytes", ctypes.c_uint64), ("isolation", ctypes.c_uint),
                ("waiting_for_input", ctypes.c_bool), ("ended_by_callback", ctypes.c_bool),
                ("error", ctypes.c_char * ERR_LEN),
                ("stdout_map_", ctypes.c_size_t), ("stderr_map_", ctypes.c_size_t)]


class HostOptions(ctypes.Structure):
    _fields_ = [("require_isolation", ctypes.c_bool), ("uid_base", ctypes.c_uint),
                ("max_slots", ctypes.c_uint), ("state_dir", ctypes.c_char_p),
                ("cgroup_name", ctypes.c_char_p), ("box_bytes", ctypes.c_uint64),
                ("tmp_bytes", ctypes.c_uint64)]


_P = ctypes.c_void_p
_SIGNATURES = {
    "sbx_limits_default": (None, [ctypes.POINTER(Limits)]),
    "sbx_reply_write": (ctypes.c_int, [_P, ctypes.c_void_p, ctypes.c_size_t]),
    "sbx_reply_close": (None, [_P]),
    "sbx_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "sbx_isolation_names": (ctypes.c_size_t, [ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t]),
    "sbx_result_free": (None, [ctypes.POINTER(RawResult)]),
    "sbx_host_open": (ctypes.c_int, [ctypes.POINTER(_P), ctypes.POINTER(HostOptions),
                                     ctypes.c_char_p, ctypes.c_size_t]),
    "sbx_host_close": (None, [_P]),
    "sbx_host_isolation": (ctypes.c_uint, [_P]),
    "sbx_host_describe": (ctypes.c_char_p, [_P]),
    "sbx_box_open": (ctypes.c_int, [_P, ctypes.POINTER(_P), ctypes.c_char_p, ctypes.c_size_t]),
    "sbx_box_close": (None, [_P]),
    "sbx_box_forget": (None, [_P]),
    "sbx_run": (ctypes.c_int, [_P, ctypes.POINTER(Spec), ctypes.POINTER(RawResult)]),
}

_lock = threading.Lock()
_lib = None


def _after_fork_in_child():
    # A thread of the parent may have held the lock, loading the library.
    global _lock
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def _checkout_lib():
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    return os.path.join(top, "build", SONAME)


def candidates():
    """Where the library is looked for, in order."""
    env = os.environ.get("GRADEQ_LIB")
    if env:
        return [env]
    return [SONAME, _checkout_lib()]


def lib():
    """The loaded library; OSError naming every place tried when none loads."""
    global _lib
    with _lock:
        if _lib is None:
            tried = []
            for path in candidates():
                try:
                    handle = ctypes.CDLL(path)
                    break
                except OSError as e:
                    tried.append(str(e))
            else:
                raise OSError("gradeq: cannot load libgradeq.so (set GRADEQ_LIB, run `make install`, "
                              "or `make` in the checkout): " + "; ".join(tried))
            for name, (restype, argtypes) in _SIGNATURES.items():
                f = getattr(handle, name)
                f.restype, f.argtypes = restype, argtypes
            _lib = handle
        return _lib


def loaded():
    """The library when it is loaded, else None; takes no lock (a forked
    child calls it, where a thread of the parent may have held one)."""
    return _lib


def isolation_names(bits):
    names = (ctypes.c_char_p * 32)()
    n = lib().sbx_isolation_names(bits, names, 32)
    return [names[i].decode() for i in range(n)]
