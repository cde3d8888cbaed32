"""gradeq: run untrusted programs under hard limits, here or on a farm.

    gradeq.run(argv, ...)         one program in the sandbox, in this process
    gradeq.run_program(cmd, ...)  the same as (ret, stdout, stderr) text
    gradeq.Client(url)            the queue: submit jobs to workers, await results
    gradeq.aio.Client(url)        the same with asyncio

The queue clients need python3-redis and python3-msgpack; local runs need
libgradeq.so (see the package README).
"""
from .local import (CALLBACK_ERROR, CLOSE, MEMORY, NOT_FOUND, OUTPUT_CAP, STOP, TIMEOUT,
                    IsolationError, IsolationWarning, SandboxError, run, run_program)
from .result import GroupResult, Result, TestResult
from .sizes import parse_size

__version__ = "1.0.0"
__all__ = ["run", "run_program", "Result", "TestResult", "GroupResult", "CLOSE", "STOP", "CALLBACK_ERROR", "NOT_FOUND",
           "TIMEOUT", "MEMORY", "OUTPUT_CAP", "SandboxError", "IsolationError",
           "IsolationWarning", "parse_size"]  # Client and aio: on first use (they need redis)


def __getattr__(name):
    # The queue client imports redis and msgpack only when asked for.
    if name == "Client":
        from .queue import Client
        return Client
    if name == "aio":
        from . import aio
        return aio
    raise AttributeError(f"module 'gradeq' has no attribute {name!r}")
