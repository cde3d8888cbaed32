"""The queue clients (gradeq.Client, gradeq.aio.Client) against a real
redis-server and gradeq-worker: GRADEQ_TEST_REDIS names them."""
import asyncio
import math
import os
import uuid
from decimal import Decimal

import msgpack
import pytest

import gradeq
import gradeq.aio

URL = os.environ.get("GRADEQ_TEST_REDIS")
pytestmark = pytest.mark.skipif(not URL, reason="GRADEQ_TEST_REDIS (a Redis served by a worker) not set")


@pytest.fixture
def client():
    with gradeq.Client(URL) as c:
        yield c


def uid(tag):
    return f"py-{tag}-{uuid.uuid4().hex[:12]}"


def test_submit_assigns_an_id_and_result_waits(client):
    job_id = client.submit({"argv": ["sh", "-c", "printf 'a\\0b\\377'; echo err >&2; exit 4"]})
    assert job_id and isinstance(job_id, str)
    r = client.result(job_id, timeout=30)
    assert r.id == job_id and r.status == "RUNTIME_ERROR" and r.exit_code == 4
    assert r.stdout == b"a\0b\xff" and r.stderr == b"err\n"
    assert r.worker and r.attempt == 1 and "seccomp" in r.isolation
    again = client.result(job_id, timeout=0)  # the result stays for later readers
    assert again is not None and again.stdout == r.stdout


def test_run_with_stdin_files_env_and_limits(client):
    r = client.run({"id": uid("run"), "argv": ["sh", "-c", 'cat in/x; cat; echo "$K"'],
                    "files": {"in/x": b"file\n"}, "stdin": b"\x00stdin\n", "env": {"PATH": "/bin:/usr/bin", "K": "v"},
                    "limits": {"cpu_ms": 2000, "memory_bytes": "64M", "stdout_bytes": "4K"}}, timeout=30)
    assert r.ok, r
    assert r.stdout == b"file\n\x00stdin\nv\n"


def test_none_for_an_optional_field_is_never_sent(client):
    r = client.run({"argv": ["true"], "stdin": None, "env": None, "limits": {"cpu_ms": None, "wall_ms": 3000},
                    "interactor": None, "files": None}, timeout=30)
    assert r.ok, r


def test_bad_job_is_answered(client):
    r = client.run({"id": uid("bad"), "argv": []}, timeout=30)
    assert r.status == "BAD_JOB" and "argv" in r.error


def test_result_times_out_with_none(client):
    assert client.result(uid("never"), timeout=0.2) is None
    assert client.result(uid("never"), timeout=0) is None


def test_many_results_at_once(client):
    ids = [client.submit({"argv": ["echo", str(i)]}) for i in range(50)]
    got = client.results(ids, timeout=60)
    assert set(got) == set(ids)
    assert client.results([ids[0], uid("missing")], timeout=0.3).keys() == {ids[0]}
    assert all(got[i].stdout == f"{n}\n".encode() for n, i in enumerate(ids))


def test_follow_yields_and_resumes(client):
    stream = client.follow()
    first = client.submit({"id": uid("f1"), "argv": ["echo", "one"]})
    sid, r = next(stream)
    while r.id != first:
        sid, r = next(stream)
    second = client.submit({"id": uid("f2"), "argv": ["echo", "two"]})
    assert client.result(second, timeout=30).ok
    # A new follower from the last id seen gets what came after it.
    for sid2, r2 in client.follow(sid):
        if r2.id == second:
            assert r2.stdout == b"two\n" and sid2 > sid
            break


# A grading job: the sum of two numbers, on 3 tests whose second expects a
# wrong answer; each run also writes a byte that is not UTF-8 to stderr.
SUM_C = b"""#include <stdio.h>
int main(void) { long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 3;
                 fputs("\\377\\n", stderr); printf("%ld\\n", a + b); return 0; }
"""
SUM_PY = b"import sys\na, b = map(int, input().split())\nsys.stderr.buffer.write(b'\\xff\\n')\nprint(a + b)\n"
TESTS = [{"name": "one", "stdin": b"1 2\n", "expected": b"3\n"},
         {"name": "two", "stdin": b"2 2\n", "expected": b"5\n"},
         {"stdin": b"40 2\n", "expected": b"42\n"}]


def check_one_wrong_answer(r):
    assert r.status == "WRONG_ANSWER" and not r.ok, r
    assert (r.passed, r.total) == (2, 3)
    assert isinstance(r.compile, gradeq.Result) and r.compile.ok and isinstance(r.compile.stderr, bytes)
    assert [t.name for t in r.tests] == ["one", "two", "3"]
    assert [t.status for t in r.tests] == ["OK", "WRONG_ANSWER", "OK"]
    assert [t.ok for t in r.tests] == [True, False, True]
    assert all(isinstance(t, gradeq.TestResult) for t in r.tests)
    assert [t.stdout for t in r.tests] == [b"3\n", b"4\n", b"42\n"]
    assert all(t.stderr == b"\xff\n" and t.exit_code == 0 and t.signal is None for t in r.tests)
    assert r.tests[0].checker_message is None and isinstance(r.tests[1].cpu_us, int)
    assert (r.score, r.max_score) == (Decimal(2), Decimal(3)) and isinstance(r.score, Decimal)
    assert [t.score for t in r.tests] == [1, 0, 1] and r.groups == []


def check_compile_error(r, message):
    assert r.status == "COMPILE_ERROR", r
    assert (r.passed, r.total) == (0, 3)
    assert r.compile.status == "RUNTIME_ERROR" and r.compile.exit_code != 0
    assert isinstance(r.compile.stderr, bytes) and message in r.compile.stderr
    assert [t.status for t in r.tests] == ["SKIPPED"] * 3 and r.tests[2].stdout == b""


def test_grading_with_groups(client):
    r = client.run({"argv": ["python3", "main.py"], "files": {"main.py": SUM_PY},
                    "tests": [dict(t, points=p) for t, p in zip(TESTS, [0.1, "0.2", 30])],
                    "groups": [{"name": "small", "tests": ["one", "two"], "scoring": "sum"},
                               {"name": "big", "tests": ["3"], "points": 70, "depends_on": ["small"]}]},
                   timeout=120)
    assert (r.score, r.max_score) == (Decimal("0.1"), Decimal("70.3")), r
    assert [(g.name, g.status, g.score, g.message) for g in r.groups] == [
        ("small", "WRONG_ANSWER", Decimal("0.1"), None), ("big", "SKIPPED", 0, "depends on small (failed)")]
    assert [t.group for t in r.tests] == ["small", "small", "big"]
    assert r.tests[2].status == "SKIPPED" and r.tests[2].checker_message == "depends on small (failed)"


def test_grading_a_c_submission(client):
    r = client.run({"id": uid("grade-c"), "language": "c", "source": SUM_C, "tests": TESTS}, timeout=120)
    check_one_wrong_answer(r)
    bad = client.run({"language": "c", "source": b"int main(void) { return nope; }\n", "tests": TESTS}, timeout=120)
    check_compile_error(bad, b"nope")


def test_grading_without_a_preset(client):
    r = client.run({"argv": ["python3", "main.py"], "files": {"main.py": SUM_PY}, "tests": TESTS,
                    "compile": {"argv": ["python3", "-m", "py_compile", "main.py"], "limits": {"cpu_ms": 5000}},
                    "checker": "tokens"}, timeout=120)
    check_one_wrong_answer(r)

async def _async_suite():
    async with gradeq.aio.Client(URL, pool_size=4, client_name="py-aio-test") as c:
        r = await c.run({"argv": ["sh", "-c", "echo async; exit 2"]}, timeout=30)
        assert r.status == "RUNTIME_ERROR" and r.stdout == b"async\n"
        assert await c.result(uid("never"), timeout=0.2) is None
        # Many waits at once: 300 jobs awaited together over pool_size + 1 connections.
        ids = await asyncio.gather(*(c.submit({"argv": ["echo", str(i)]}) for i in range(300)))
        results = await asyncio.gather(*(c.result(i, timeout=120) for i in ids))
        assert [x.stdout for x in results] == [f"{i}\n".encode() for i in range(300)]
        mine = [x for x in await c.redis.client_list() if x["name"] == "py-aio-test"]
        assert 2 <= len(mine) <= 4 + 1  # the pool and the follower
        # An id awaited twice at once resolves both.
        job = await c.submit({"argv": ["echo", "twice"]})
        a, b = await asyncio.gather(c.result(job, 30), c.result(job, 30))
        assert a.stdout == b.stdout == b"twice\n"
        # follow: from a stream id (here the start), yielding in order.
        job = await c.submit({"argv": ["echo", "followed"]})
        agen = c.follow("0-0")
        async for sid, res in agen:
            if res.id == job:
                break
        await agen.aclose()
        assert res.stdout == b"followed\n"
        assert await c.results([job, uid("missing")], timeout=0.5) == {job: res}
        # Grading jobs, the same fields as through the sync client.
        check_one_wrong_answer(await c.run({"language": "python3", "source": SUM_PY, "tests": TESTS}, timeout=120))
        bad = await c.run({"language": "python3", "source": b"print(1 +)\n", "tests": TESTS}, timeout=120)
        check_compile_error(bad, b"SyntaxError")
        # Timeouts of any size wait for the result.
        for t in (math.inf, 2 ** 31, 1e300):
            job = await c.submit({"argv": ["echo", "any"]})
            assert (await c.result(job, t)).stdout == b"any\n"
            assert (await c.results([job], t))[job].ok


def test_asyncio_client():
    asyncio.run(asyncio.wait_for(_async_suite(), 300))


# A checker program: the answer's first token against the expected one.
CHECKER = b"#!/bin/sh\n[ \"$(head -c 64 \"$2\" | tr -d '[:space:]')\" = \"$(tr -d '[:space:]' < \"$3\")\" ]\n"


def test_sizes_as_strings_in_every_program_of_a_grading_job(client):
    r = client.run({"argv": ["python3", "main.py"], "files": {"main.py": SUM_PY, "chk": CHECKER},
                    "limits": {"memory_bytes": "256M", "stdout_bytes": "64K"},
                    "compile": {"argv": ["python3", "-m", "py_compile", "main.py"],
                                "limits": {"cpu_ms": 5000, "memory_bytes": "512M", "file_bytes": "64M"}},
                    "checker": {"argv": ["sh", "chk"], "files": {"chk": CHECKER},
                                "limits": {"memory_bytes": "64M", "stderr_bytes": "4K"}},
                    "tests": [dict(t, limits={"memory_bytes": "128M", "file_bytes": "1M"}) for t in TESTS]},
                   timeout=120)
    assert r.status != "BAD_JOB", r.error
    check_one_wrong_answer(r)


def test_timeouts_of_any_size(client):
    for t in (math.inf, 2 ** 31, 1e300):
        job = client.submit({"argv": ["echo", str(t)]})
        r = client.result(job, timeout=t)
        assert r.stdout == f"{t}\n".encode()
        assert client.results([job], timeout=t)[job].stdout == r.stdout
    with pytest.raises(ValueError):
        client.result(uid("x"), timeout=math.nan)


def put_entries(r, prefix, entries):
    """Writes results by hand, as a worker would: each in its list and on
    the stream."""
    for job_id, data in entries:
        r.rpush(f"{prefix}:result:{job_id}", data)
        r.xadd(f"{prefix}:results", {"id": job_id, "result": data})


def drop_keys(r, prefix):
    for key in r.scan_iter(f"{prefix}:*"):
        r.delete(key)


GOOD = msgpack.packb({"id": "good", "status": "OK", "stdout": b"fine"}, use_bin_type=True)
BAD = b"\xc1"  # never valid msgpack


def test_an_undecodable_result_concerns_its_own_job_alone():
    prefix = uid("junk")
    with gradeq.Client(URL, prefix=prefix) as c:
        try:
            put_entries(c.redis, prefix, [("bad", BAD), ("good", GOOD)])
            with pytest.raises(gradeq.ResultError) as e:
                c.result("bad", timeout=0)
            assert e.value.job_id == "bad"
            with pytest.warns(gradeq.ResultWarning, match="'bad'"):
                got = c.results(["bad", "good"], timeout=5)
            assert list(got) == ["good"] and got["good"].stdout == b"fine"
            with pytest.warns(gradeq.ResultWarning, match=r"'bad' \(results stream entry \d+-\d+\)"):
                sid, r = next(c.follow("0-0"))
            assert r.id == "good"
        finally:
            drop_keys(c.redis, prefix)


async def _undecodable_suite(prefix):
    async with gradeq.aio.Client(URL, prefix=prefix) as c:
        waits = {i: asyncio.create_task(c.result(i, 30)) for i in ("bad", "good", "later")}
        await c._ensure_follower()  # the waits are registered and the follower's start fixed: what comes next it sees
        await c.redis.xadd(f"{prefix}:results", {"id": "bad", "result": BAD})
        await c.redis.xadd(f"{prefix}:results", {"id": "good", "result": GOOD})
        assert (await waits["good"]).stdout == b"fine"
        with pytest.raises(gradeq.ResultError) as e:
            await waits["bad"]
        assert e.value.job_id == "bad" and e.value.stream_id
        await c.redis.xadd(f"{prefix}:results", {"id": "later", "result": GOOD})
        assert (await waits["later"]).ok  # the follower goes on
        await c.redis.rpush(f"{prefix}:result:bad", BAD)
        await c.redis.rpush(f"{prefix}:result:good", GOOD)
        with pytest.warns(gradeq.ResultWarning, match="'bad'"):
            assert list(await c.results(["bad", "good"], timeout=5)) == ["good"]
        with pytest.warns(gradeq.ResultWarning, match="'bad'"):
            agen = c.follow("0-0")
            sid, r = await agen.__anext__()
            await agen.aclose()
        assert r.id == "good"


def test_asyncio_waiters_of_other_jobs_outlive_an_undecodable_result():
    prefix = uid("junk")
    try:
        asyncio.run(asyncio.wait_for(_undecodable_suite(prefix), 120))
    finally:
        with gradeq.Client(URL) as c:
            drop_keys(c.redis, prefix)
