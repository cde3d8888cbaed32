"""_wire.py -- the queue's keys and msgpack shapes (docs/protocol.md),
shared by the sync and the asyncio client.

A job is a dict passed through as it is, grading jobs included, with two
exceptions: an optional field set to None is left out, at any depth, and a
size (a limit ending in _bytes of any program the job carries: the job's,
each test's, the compile step's, the checker's, the interactor's; and
transcript_bytes) may be given as "64M". The caller's dict is never
changed.
"""
import math
import urllib.parse
import uuid
import warnings

import msgpack

from .errors import ResultError, ResultWarning
from .result import Result
from .sizes import parse_size

_BYTES_LIMITS = ("memory_bytes", "stdout_bytes", "stderr_bytes", "file_bytes")

# The longest one blocking command waits, in seconds; a longer wait is several.
MAX_BLOCK = 86400.0


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
    # A copy: the sizes below are converted in it, not in the caller's job.
    if isinstance(v, dict):
        return {k: _drop_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, (list, tuple)):
        return [_drop_none(x) for x in v]
    return v


def _sizes(prog, where):
    if isinstance(prog, dict) and isinstance(prog.get("limits"), dict):
        prog["limits"] = {k: parse_size(v, f"{where}limits.{k}") if k in _BYTES_LIMITS and isinstance(v, str) else v
                          for k, v in prog["limits"].items()}


def encode_job(job):
    """(id, msgpack bytes) of a job dict; assigns an id when it has none."""
    if not isinstance(job, dict):
        raise TypeError(f"job: expected a dict, got {type(job).__name__}")
    job = _drop_none(job)
    if "id" not in job:
        job["id"] = uuid.uuid4().hex
    _sizes(job, "")
    for key in ("interactor", "compile", "checker"):
        _sizes(job.get(key), f"{key}.")
    if isinstance(job.get("tests"), list):
        for i, test in enumerate(job["tests"]):
            _sizes(test, f"tests[{i}].")
    if isinstance(job.get("transcript_bytes"), str):
        job["transcript_bytes"] = parse_size(job["transcript_bytes"], "transcript_bytes")
    return job["id"], msgpack.packb(job, use_bin_type=True)


def decode_result(data, job_id=None, stream_id=None):
    """A Result from a result's msgpack bytes; ResultError naming the job
    (and the stream entry) when they cannot be decoded."""
    try:
        if not isinstance(data, bytes):
            raise ValueError("no result in the entry")
        m = msgpack.unpackb(data, raw=False, unicode_errors="replace", strict_map_key=False)
        if not isinstance(m, dict):
            raise ValueError("not a map")
        return Result.from_map(m)
    except Exception as e:  # anything the bytes can make the decoder raise
        where = f" (results stream entry {stream_id})" if stream_id else ""
        raise ResultError(f"gradeq: the result of job {job_id!r}{where} cannot be decoded: {e}",
                          job_id, stream_id) from e


def decode_or_warn(data, job_id, stream_id=None):
    """The Result, or None after a ResultWarning saying why it cannot be
    decoded (for results and follow: one bad result concerns one job)."""
    try:
        return decode_result(data, job_id, stream_id)
    except ResultError as e:
        warnings.warn(str(e), ResultWarning, stacklevel=3)
        return None


def stream_entry(sid, fields):
    """(stream id, job id, raw result) of an entry of the results stream."""
    sid = sid.decode() if isinstance(sid, bytes) else sid
    return sid, fields.get(b"id", b"").decode(errors="replace"), fields.get(b"result")


def check_timeout(timeout):
    """timeout in seconds, None (and infinity) for ever; refused when
    negative or not a number."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or math.isnan(timeout) or timeout < 0:
        raise ValueError(f"timeout: expected seconds >= 0 or None, got {timeout!r}")
    return None if math.isinf(timeout) else timeout
