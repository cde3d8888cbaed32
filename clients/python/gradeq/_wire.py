"""_wire.py -- the queue's keys and msgpack shapes (docs/protocol.md),
shared by the sync and the asyncio client.

A job is a dict passed through as it is, grading jobs included, with two
exceptions: an optional field set to None is left out (the worker answers
nil with BAD_JOB), and a limit ending in _bytes may be given as "64M".
"""
import urllib.parse
import uuid

import msgpack

from .result import Result
from .sizes import parse_size

_BYTES_LIMITS = ("memory_bytes", "stdout_bytes", "stderr_bytes", "file_bytes")


def redis_url(url):
    """url for redis-py: the worker's `?user=` (unix:///path?user=U&password=P)
    is redis-py's `?username=`."""
    base, sep, query = url.partition("?")
    q = [("username" if k == "user" else k, v) for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True)]
    return base + sep + urllib.parse.urlencode(q)


class Keys:
    def __init__(self, prefix):
        self.jobs = f"{prefix}:jobs"
        self.results = f"{prefix}:results"
        self._result = f"{prefix}:result:"

    def result(self, job_id):
        return self._result + job_id


def _drop_none(v):
    if isinstance(v, dict):
        return {k: _drop_none(x) for k, x in v.items() if x is not None}
    return v


def _limits(limits):
    return {k: parse_size(v, f"limits.{k}") if k in _BYTES_LIMITS and isinstance(v, str) else v
            for k, v in limits.items()}


def encode_job(job):
    """(id, msgpack bytes) of a job dict; assigns an id when it has none."""
    if not isinstance(job, dict):
        raise TypeError(f"job: expected a dict, got {type(job).__name__}")
    job = _drop_none(job)
    if "id" not in job:
        job["id"] = uuid.uuid4().hex
    for prog in (job, job.get("interactor")):
        if isinstance(prog, dict) and isinstance(prog.get("limits"), dict):
            prog["limits"] = _limits(prog["limits"])
    return job["id"], msgpack.packb(job, use_bin_type=True)


def decode_result(data):
    """A Result from a result's msgpack bytes."""
    m = msgpack.unpackb(data, raw=False, unicode_errors="replace", strict_map_key=False)
    if not isinstance(m, dict):
        raise ValueError("gradeq: a result that is not a map")
    return Result.from_map(m)


def stream_entry(sid, fields):
    """(stream id, job id, raw result) of an entry of the results stream."""
    sid = sid.decode() if isinstance(sid, bytes) else sid
    return sid, fields.get(b"id", b"").decode(errors="replace"), fields.get(b"result")


def check_timeout(timeout):
    """timeout in seconds (None: for ever), refused when negative."""
    if timeout is not None and timeout < 0:
        raise ValueError(f"timeout: negative: {timeout}")
    return timeout
