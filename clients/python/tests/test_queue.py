"""The queue clients (gradeq.Client, gradeq.aio.Client) against a real
redis-server and gradeq-worker: GRADEQ_TEST_REDIS names them."""
import asyncio
import os
import uuid
from decimal import Decimal

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


def test_asyncio_client():
    asyncio.run(asyncio.wait_for(_async_suite(), 300))
