#!/usr/bin/env python3
"""bench_clients.py -- the Python package against its baselines, each pair
measured in the same run, interleaved round by round:

  1. gradeq.run(["/bin/true"]) against subprocess.run(["/bin/true"])
  2. round trips/s of a guessing-game exchange (a line out, a line back)
     through gradeq.run's stdin function against the same program over bare
     pipes (subprocess.Popen)
  3. jobs/s of gradeq.aio.Client submitting and awaiting N jobs against
     redis-cli --pipe of the same N jobs, each waited for until the last
     result is published, against a private redis-server and gradeq-worker

Usage: bench_clients.py [-n RUNS] [-r ROUND_TRIPS] [-j JOBS]; GRADEQ_BIN is
the build dir (default build). Needs root (full isolation).
"""
import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "clients", "python"))
B = os.environ.get("GRADEQ_BIN", "build")
os.environ.setdefault("GRADEQ_LIB", os.path.join(os.path.abspath(B), "libgradeq.so.1"))

import gradeq  # noqa: E402


def per_call(fn, n):
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def bench_run(n):
    rounds = 10
    ours, theirs = [], []
    gradeq.run(["/bin/true"])  # the box's zygote starts once per process
    for _ in range(rounds):
        ours.append(per_call(lambda: gradeq.run(["/bin/true"]), n // rounds))
        theirs.append(per_call(lambda: subprocess.run(["/bin/true"]), n // rounds))
    a, b = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
    print(f"gradeq.run(/bin/true)      {a:7.3f} ms per run (median of {rounds} rounds of {n // rounds})")
    print(f"subprocess.run(/bin/true)  {b:7.3f} ms per run   ratio {a / b:.2f}x (target: within 2x)")


PINGER = "import sys\nfor i in range({n}):\n    print(i, flush=True)\n    sys.stdin.readline()\n"


def bench_round_trips(n):
    prog = ["python3", "-c", PINGER.format(n=n)]

    def through_callback():
        count = 0

        def answer(stream, data):
            nonlocal count
            count += data.count(b"\n")
            return b"higher\n" * data.count(b"\n")
        t = time.perf_counter()
        r = gradeq.run(prog, stdin=answer, cpu_ms=60000, wall_ms=120000)
        dt = time.perf_counter() - t
        assert r.ok and count == n, (r.status, count)
        return n / dt

    def over_pipes():
        t = time.perf_counter()
        p = subprocess.Popen(prog, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for _ in range(n):
            p.stdout.readline()
            p.stdin.write(b"higher\n")
            p.stdin.flush()
        p.stdin.close()
        assert p.wait(60) == 0
        return n / (time.perf_counter() - t)
    ours, theirs = [], []
    for _ in range(3):
        ours.append(through_callback())
        theirs.append(over_pipes())
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"guessing game through the stdin function  {a:9.0f} round trips/s (median of 3 runs of {n})")
    print(f"the same over bare pipes                  {b:9.0f} round trips/s   ratio {a / b:.2f}")


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def bench_queue(jobs, tmp):
    import redis
    from gradeq import _wire
    sock = os.path.join(tmp, "redis.sock")
    subprocess.run(["redis-server", "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700", "--dir", tmp,
                    "--save", "", "--appendonly", "no", "--daemonize", "yes", "--pidfile", f"{tmp}/redis.pid",
                    "--logfile", f"{tmp}/redis.log"], check=True, timeout=30)
    r = redis.Redis(unix_socket_path=sock)
    for _ in range(200):
        try:
            r.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)  # start-up poll with a bound, not synchronisation between tests
    worker = subprocess.Popen([os.path.join(B, "gradeq-worker"), "--redis", f"unix://{sock}", "--name", "bench"],
                              stdout=subprocess.DEVNULL, stderr=open(f"{tmp}/worker.log", "w"))
    url = f"unix://{sock}"
    try:
        def wait_results(n):
            last, seen = "0-0", 0
            while seen < n:
                for _, entries in r.xread({"gradeq:results": last}, count=1000, block=60000) or ():
                    seen += len(entries)
                    last = entries[-1][0]
            return seen

        def pipeline_baseline(tag):
            r.delete("gradeq:results")
            data = b"".join(resp("XADD", "gradeq:jobs", "*", "job", _wire.encode_job({"id": f"{tag}-{i}", "argv": ["/bin/true"]})[1])
                            for i in range(jobs))
            t = time.perf_counter()
            subprocess.run(["redis-cli", "-s", sock, "--pipe"], input=data, check=True, capture_output=True, timeout=600)
            wait_results(jobs)
            return jobs / (time.perf_counter() - t)

        async def client_run():
            r.delete("gradeq:results")
            async with gradeq.aio.Client(url) as c:
                t, cpu = time.perf_counter(), time.process_time()
                ids = await asyncio.gather(*(c.submit({"argv": ["/bin/true"]}) for _ in range(jobs)))
                got = await c.results(ids, timeout=600)
                dt, cpu = time.perf_counter() - t, time.process_time() - cpu
                assert len(got) == jobs and all(x.ok for x in got.values())
                return jobs / dt, cpu
        import gradeq.aio
        base = pipeline_baseline("warm")  # first pass warms the worker's boxes
        base = pipeline_baseline("base")
        ours, cpu = asyncio.run(client_run())
        base2 = pipeline_baseline("base2")
        print(f"redis-cli --pipe, {jobs} jobs, until the last result  {base:8.0f} jobs/s, after: {base2:8.0f} jobs/s")
        print(f"gradeq.aio.Client submit + await {jobs} jobs          {ours:8.0f} jobs/s   ratio {ours / ((base + base2) / 2):.2f}"
              f"   (client CPU {cpu * 1e6 / jobs:.0f} us per job)")
    finally:
        worker.terminate()
        worker.wait(60)
        r.shutdown(nosave=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=2000, help="runs of /bin/true each way")
    ap.add_argument("-r", type=int, default=20000, help="round trips of the guessing game")
    ap.add_argument("-j", type=int, default=10000, help="jobs through the queue")
    a = ap.parse_args()
    bench_run(a.n)
    bench_round_trips(a.r)
    with tempfile.TemporaryDirectory() as tmp:
        bench_queue(a.j, tmp)


if __name__ == "__main__":
    main()
