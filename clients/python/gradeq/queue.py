"""queue.py -- gradeq.Client: submit jobs to a gradeq farm, await results.

Waiting for one result blocks on its list (BLMOVE of the list onto itself:
the result stays there for later readers until it expires). Waiting for many
at once (results()) takes one connection: each list is read once, then the
results stream is followed from a position taken before those reads, so a
result is either already in its list or later on the stream.
"""
import time

import redis

from . import _wire


class Client:
    """A connection to the farm's Redis (redis://, rediss:// or unix:// URL)."""

    def __init__(self, url="redis://127.0.0.1:6379", *, prefix="gradeq", **redis_options):
        self.redis = redis.Redis.from_url(_wire.redis_url(url), **redis_options)
        self.keys = _wire.Keys(prefix)

    def close(self):
        self.redis.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def submit(self, job):
        """Queues a job dict and returns its id (assigned when it had none)."""
        job_id, data = _wire.encode_job(job)
        self.redis.xadd(self.keys.jobs, {"job": data})
        return job_id

    def result(self, job_id, timeout=None):
        """The job's Result, waiting up to timeout seconds (None or math.inf:
        for ever, 0: not at all); None when the time ran out. ResultError
        when it cannot be decoded."""
        key = self.keys.result(job_id)
        timeout = _wire.check_timeout(timeout)
        if timeout == 0:
            data = self.redis.lindex(key, 0)
        elif timeout is None:
            data = self.redis.blmove(key, key, 0, "LEFT", "LEFT")  # BLMOVE 0: for ever
        else:
            deadline, data = time.monotonic() + timeout, None
            while data is None and (left := deadline - time.monotonic()) > 0:
                # At least a millisecond (less would be 0, for ever), at most MAX_BLOCK a command.
                data = self.redis.blmove(key, key, min(max(left, 0.001), _wire.MAX_BLOCK), "LEFT", "LEFT")
        return None if data is None else _wire.decode_result(data, job_id)

    def run(self, job, timeout=None):
        """Submits and waits: the Result, or None when timeout ran out."""
        return self.result(self.submit(job), timeout)

    def _last_id(self):
        last = self.redis.xrevrange(self.keys.results, count=1)
        return last[0][0] if last else b"0-0"

    def results(self, job_ids, timeout=None):
        """{id: Result} for the ids whose result came within timeout seconds
        (one that cannot be decoded is left out, with a ResultWarning)."""
        ids = list(dict.fromkeys(job_ids))
        timeout = _wire.check_timeout(timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        start = self._last_id()
        pipe = self.redis.pipeline(transaction=False)
        for i in ids:
            pipe.lindex(self.keys.result(i), 0)
        got = {i: _wire.decode_or_warn(d, i) for i, d in zip(ids, pipe.execute()) if d is not None}
        want = set(ids) - got.keys()
        for sid, job_id, data in self._entries(start, deadline, lambda: not want):
            if job_id in want:
                got[job_id] = _wire.decode_or_warn(data, job_id, sid)
                want.discard(job_id)
        return {i: r for i, r in got.items() if r is not None}

    def _entries(self, last_id, deadline=None, done=lambda: False):
        while not done():
            block = 0 if deadline is None else int(min(deadline - time.monotonic(), _wire.MAX_BLOCK) * 1000)
            if deadline is not None and block <= 0:
                return
            got = self.redis.xread({self.keys.results: last_id}, count=1000, block=block)
            for _, entries in got or ():
                for sid, fields in entries:
                    last_id = sid
                    yield _wire.stream_entry(sid, fields)

    def follow(self, last_id="$"):
        """An iterator of (stream_id, Result) over every result published
        after last_id ("$": after this call); pass the last stream_id seen
        to resume. An entry that cannot be decoded is skipped with a
        ResultWarning naming it."""
        if last_id == "$":
            last_id = self._last_id()
        return ((sid, r) for sid, job_id, data in self._entries(last_id)
                if (r := _wire.decode_or_warn(data, job_id, sid)) is not None)
