"""aio.py -- gradeq.aio.Client: the queue client for asyncio (redis.asyncio).

Awaiting many results does not take a connection each: one follower task
reads the results stream (XREAD BLOCK on a connection of its own) and hands
each result to the futures waiting for its id. A waiter registers its
future, makes sure the follower runs (the follower fixes its start position
before it is reported running), then reads the result's list once: a result
published before that read is in the list, one published after is on the
stream past the follower's start. Other commands share a small bounded pool
(pool_size connections), so 10,000 concurrent awaits use pool_size + 1
connections. Submits and those list reads are pipelined: the ones issued in
one turn of the event loop go out together (one command at a time costs the
client about ten times the CPU of the same command in a pipeline). A result
that cannot be decoded fails the waiters of its own job, no other.
"""
import asyncio
import warnings

import redis.asyncio as aredis

from . import _wire
from .errors import ResultError, ResultWarning


class _AutoPipeline:
    """Commands issued in one turn of the event loop, sent as pipelines of
    at most MAX commands; each caller awaits its own reply."""

    MAX = 1000

    def __init__(self, r):
        self.redis = r
        self.queue = []
        self.tasks = set()

    def __call__(self, *args):
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        if not self.queue:
            loop.call_soon(self._flush)
        self.queue.append((args, fut))
        return fut

    def _flush(self):
        queue, self.queue = self.queue, []
        for i in range(0, len(queue), self.MAX):
            task = asyncio.ensure_future(self._send(queue[i:i + self.MAX]))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _send(self, batch):
        pipe = self.redis.pipeline(transaction=False)
        for args, _ in batch:
            pipe.execute_command(*args)
        try:
            replies = await pipe.execute(raise_on_error=False)
        except Exception as e:  # the connection failed: every caller of the batch learns why
            replies = [e] * len(batch)
        for (_, fut), reply in zip(batch, replies):
            if fut.done():  # its caller was cancelled
                continue
            if isinstance(reply, Exception):
                fut.set_exception(reply)
            else:
                fut.set_result(reply)

    async def close(self):
        await asyncio.gather(*self.tasks, return_exceptions=True)


class Client:
    """An asyncio connection to the farm's Redis; use `async with` or close()."""

    def __init__(self, url="redis://127.0.0.1:6379", *, prefix="gradeq", pool_size=8, **redis_options):
        pool = aredis.BlockingConnectionPool.from_url(_wire.redis_url(url), max_connections=pool_size, timeout=None,
                                                     **redis_options)
        self.redis = aredis.Redis(connection_pool=pool)
        self._follower_redis = aredis.Redis.from_url(_wire.redis_url(url), **redis_options)
        self.keys = _wire.Keys(prefix)
        self._pipe = _AutoPipeline(self.redis)
        self._waiters = {}
        self._follower = None
        self._started = None

    async def close(self):
        if self._follower is not None:
            self._follower.cancel()
            await asyncio.gather(self._follower, return_exceptions=True)
            self._follower = None
        await self._pipe.close()
        await self._follower_redis.close()
        await self.redis.close()
        await self.redis.connection_pool.disconnect()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def submit(self, job):
        """Queues a job dict and returns its id (assigned when it had none)."""
        job_id, data = _wire.encode_job(job)
        await self._pipe("XADD", self.keys.jobs, "*", "job", data)
        return job_id

    async def _last_id(self, r):
        last = await r.xrevrange(self.keys.results, count=1)
        return last[0][0] if last else b"0-0"

    async def _entries(self, r, last_id):
        """(stream id, job id, raw result) of each entry after last_id."""
        while True:
            got = await r.xread({self.keys.results: last_id}, count=1000, block=0)
            for _, entries in got or ():
                for sid, fields in entries:
                    last_id = sid
                    yield _wire.stream_entry(sid, fields)

    async def _follow_results(self, started):
        try:
            last_id = await self._last_id(self._follower_redis)
            started.set_result(None)
            async for sid, job_id, data in self._entries(self._follower_redis, last_id):
                futs = self._waiters.pop(job_id, ())
                if futs:
                    self._resolve(futs, data, job_id, sid)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the stream failed: every waiter learns why; the next wait restarts the follower
            if not started.done():
                started.set_exception(e)
            for futs in self._waiters.values():
                for fut in futs:
                    if not fut.done():
                        fut.set_exception(e)
            self._waiters.clear()
            self._follower = None

    @staticmethod
    def _resolve(futs, data, job_id, sid):
        # A result that cannot be decoded fails its own waiters, no other.
        try:
            result, error = _wire.decode_result(data, job_id, sid), None
        except ResultError as e:
            result, error = None, e
        for fut in futs:
            if fut.done():
                continue
            if error is None:
                fut.set_result(result)
            else:
                fut.set_exception(error)

    async def _ensure_follower(self):
        if self._follower is None:
            self._started = asyncio.get_running_loop().create_future()
            self._follower = asyncio.create_task(self._follow_results(self._started))
        await asyncio.shield(self._started)

    async def result(self, job_id, timeout=None):
        """The job's Result, waiting up to timeout seconds (None or math.inf:
        for ever, 0: not at all); None when the time ran out. ResultError
        when it cannot be decoded."""
        timeout = _wire.check_timeout(timeout)
        fut = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(job_id, []).append(fut)
        try:
            if timeout != 0:
                await self._ensure_follower()
            data = await self._pipe("LINDEX", self.keys.result(job_id), 0)
            if data is not None:
                return _wire.decode_result(data, job_id)
            if timeout == 0:
                return None
            try:
                return await asyncio.wait_for(asyncio.shield(fut), timeout)
            except asyncio.TimeoutError:
                return None
        finally:
            futs = self._waiters.get(job_id)
            if futs and fut in futs:
                futs.remove(fut)
                if not futs:
                    del self._waiters[job_id]

    async def run(self, job, timeout=None):
        """Submits and waits: the Result, or None when timeout ran out."""
        return await self.result(await self.submit(job), timeout)

    async def results(self, job_ids, timeout=None):
        """{id: Result} for the ids whose result came within timeout seconds
        (one that cannot be decoded is left out, with a ResultWarning)."""
        ids = list(dict.fromkeys(job_ids))
        got = await asyncio.gather(*(self.result(i, timeout) for i in ids), return_exceptions=True)
        out = {}
        for i, r in zip(ids, got):
            if isinstance(r, ResultError):
                warnings.warn(str(r), ResultWarning, stacklevel=2)
            elif isinstance(r, BaseException):
                raise r
            elif r is not None:
                out[i] = r
        return out

    async def follow(self, last_id="$"):
        """Yields (stream_id, Result) for every result published after
        last_id ("$": after the first iteration began); pass the last
        stream_id seen to resume. Holds one connection of the pool while it
        runs. An entry that cannot be decoded is skipped with a
        ResultWarning naming it."""
        if last_id == "$":
            last_id = await self._last_id(self.redis)
        async for sid, job_id, data in self._entries(self.redis, last_id):
            r = _wire.decode_or_warn(data, job_id, sid)
            if r is not None:
                yield sid, r
