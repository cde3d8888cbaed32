/* bench_worker.c -- the worker end to end through Redis, each number beside
 * a baseline measured in the same run (variants interleaved, so machine
 * noise hits both).
 *
 *   1. jobs/s of trivial jobs (/bin/true, default limits): N jobs prefilled
 *      into P:jobs (pipelined XADDs of q_job_encode bytes), then
 *      build/gradeq-worker --threads T with full isolation, timed from its
 *      first result to its N-th (followed on P:results with XREAD BLOCK);
 *      R rounds of it and of 2 for each T, the two alternating (which goes
 *      first too), each variant's median round shown: a single run of each
 *      was at the mercy of the machine's drift between the two;
 *   2. the plain loop: T threads of this program, no isolation: unpack
 *      argv, posix_spawn (vfork) with stdout/stderr pipes drained, wait4,
 *      then the Redis work a minimal correct worker must do (the fenced
 *      publish: ack, delete, result list with its TTL, P:results, the
 *      counters) in one script that also reads the next job, as the
 *      worker's publish does (XREADGROUP BLOCK when none came). Same N,
 *      same prefill, T = 2, 3, 4. Beside each, what Redis did per job:
 *      requests read (round trips of every client: the worker or loop, the
 *      bench's follower) and commands run (scripts' included);
 *   3. submit-to-result latency (q_submit on one connection, paced at half
 *      the best gradeq rate) for the gradeq worker, beside the plain loop
 *      at the same rate;
 *   4. worker RSS: (a) the peak while 8 output floods (yes, stdout cap
 *      16 MiB, so each is killed at its cap) run at once, against the
 *      budget 32 MiB + the caps of the jobs running; (b) after 1,000 and
 *      after up to 100,000 trivial jobs (bounded in time, refilled as the
 *      queue drains).
 *
 * Where the time goes, per job: machine CPU (/proc/stat) between the first
 * and the last result, and over the whole run the worker process itself,
 * its zygotes + programs (reaped into this process's children) and
 * redis-server; for the latency, the run's own wall_us (from the result)
 * against the rest (queueing, Redis, the worker's work around the run).
 *
 * For every run: machine busy % and steal % from /proc/stat, and "other":
 * CPU the machine spent outside this program's process tree (this process,
 * its reaped children -- the worker, its zygotes and their programs, the
 * plain loop's /bin/true -- and redis-server), i.e. foreign load plus
 * kernel threads; a /proc scan at both ends says how much of it was kernel
 * threads and long-lived foreign processes. A run with other > 10 % is
 * marked NOISY: compare it with a rerun before believing it.
 *
 * The worker is stopped as in production (SIGTERM: drain), its job threads
 * woken from XREADGROUP BLOCK by CLIENT UNBLOCK so a stop costs no 2 s.
 *
 * Waits are on events (XREAD BLOCK, a pidfd) with deadlines. The only timed
 * sleeps are measurement clocks: the latency run's submit pacing, the RSS
 * sampling period and the idle-load sample at start. Progress goes to
 * stderr, the table to stdout. Exit status 1 when a run could not be done
 *
 * This file is the main: options, the sequence of measurements and the
 * table. The parts with one job each are in tests/lib (libtest.a), names
 * bw_: bench_common (the private redis-server, bw_die), bench_load (machine
 * load from /proc), bench_redis (prefill, following P:results),
 * bench_gworker (the gradeq-worker process), bench_plain (the plain loop),
 * bench_latency (item 3), bench_rss (item 4).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "tests/lib/bench_common.h"
#include "tests/lib/bench_gworker.h"
#include "tests/lib/bench_latency.h"
#include "tests/lib/bench_load.h"
#include "tests/lib/bench_plain.h"
#include "tests/lib/bench_redis.h"
#include "tests/lib/bench_rss.h"
#include "tests/lib/redis_server.h"

#define MIB (1024.0 * 1024.0)

static unsigned floods = 8; /* output floods at once in 4a (-F) */

/* ------------------------------------------------------------ item 1 and 2 */

typedef struct tp_result {
    double rate, cpu_us_job, busy;
    double tree_us_job, redis_us_job; /* whole window: worker (or loop) and its programs; redis-server */
    double self_us_job, progs_us_job; /* the tree split: worker (or loop) itself; zygotes + programs */
    double other;                     /* % of the machine outside this bench's tree */
    double reads_job, cmds_job;       /* Redis requests read and commands run, per job */
    long rss_kb;
} tp_result;

static tp_result throughput_run(redisContext *ctl, redisContext *fc, bool gradeq, unsigned threads, long n)
{
    char prefix[64], name[64], what[48];
    snprintf(prefix, sizeof prefix, "bw-%s-t%u", gradeq ? "gradeq" : "plain", threads);
    snprintf(name, sizeof name, "bench-t%u", threads);
    bw_fresh_queue(ctl, prefix);
    bw_prefill(ctl, prefix, "j", 0, n, bw_true_argv, 0);
    bw_follower f;
    bw_follower_init(&f, fc, prefix);
    bw_cpu_snap s0;
    bw_timing tm;
    tp_result res = { 0 };
    unsigned long long wself = 0;
    bw_redis_count rc0, rc1;
    bw_redis_counts(ctl, &rc0);
    bw_window_begin(&s0);
    if (gradeq) {
        bw_worker_start(prefix, threads, name);
        bw_wait_results(&f, n, &tm, true);
        bw_redis_counts(ctl, &rc1);
        res.rss_kb = bw_proc_status_kb(bw_worker_pid, "VmRSS");
        wself = bw_proc_ticks(bw_worker_pid, NULL);
        bw_worker_stop(ctl, name);
        long long ok = bw_stat_get(ctl, prefix, "OK");
        if (ok != n)
            bw_die("gradeq T=%u: %lld of %ld results OK (see P:stats)", threads, ok, n);
    } else {
        bw_plain_start(prefix, threads);
        bw_wait_results(&f, n, &tm, false);
        bw_redis_counts(ctl, &rc1);
        long failed = bw_plain_stop(ctl, prefix, threads);
        if (failed)
            bw_die("plain T=%u: %ld jobs failed", threads, failed);
    }
    snprintf(what, sizeof what, "1/2. %s T=%u, %ld jobs", gradeq ? "gradeq" : "plain", threads, n);
    bw_cpu_snap s1;
    bw_window_end(what, &s0, &s1);
    double us_tick = 1e6 / (double)bw_clk_tck;
    res.tree_us_job = (double)((s1.ours - s1.redis) - (s0.ours - s0.redis)) * us_tick / (double)n;
    /* gradeq: the worker process itself vs its zygotes and programs (reaped
     * into this bench's children); plain: the loop threads (this process)
     * vs the programs. */
    double kids = (double)(s1.children - s0.children);
    res.self_us_job = (gradeq ? (double)wself : (double)(s1.self - s0.self)) * us_tick / (double)n;
    res.progs_us_job = (gradeq ? kids - (double)wself : kids) * us_tick / (double)n;
    res.redis_us_job = (double)(s1.redis - s0.redis) * us_tick / (double)n;
    res.other = bw_loads[bw_nloads - 1].l.other;
    res.reads_job = (double)(rc1.reads - rc0.reads) / (double)n;
    res.cmds_job = (double)(rc1.commands - rc0.commands) / (double)n;
    res.rate = bw_rate_of(&tm, n);
    res.cpu_us_job = bw_cpu_per_job(&tm.first, &tm.last, n - tm.first_count);
    res.busy = bw_load_between(&tm.first, &tm.last).busy;
    fprintf(stderr, "  %-8s T=%u: %6.0f jobs/s, machine %.0f us/job (tree %.0f, redis %.0f), busy %.0f %%, other %.1f %%\n",
            gradeq ? "gradeq" : "plain", threads, res.rate, res.cpu_us_job, res.tree_us_job, res.redis_us_job, res.busy,
            bw_loads[bw_nloads - 1].l.other);
    return res;
}

/* ------------------------------------------------------------ main */

static void usage(void)
{
    fprintf(stderr, "usage: bench_worker [-n JOBS] [-t T,T,...] [-r ROUNDS] [-l SECONDS] [-L SECONDS] [-J JOBS] [-F COUNT] [JOBS]\n"
                    "  -n JOBS     trivial jobs per throughput run (default 3000)\n"
                    "  -t LIST     worker threads of the throughput runs (default 2,3,4)\n"
                    "  -r ROUNDS   throughput runs of each variant for each T, medians shown (default 3)\n"
                    "  -l SECONDS  length of each latency run (default 5)\n"
                    "  -L SECONDS  time budget of the long RSS run (default 120; 0 skips it)\n"
                    "  -J JOBS     jobs of the long RSS run (default 100000)\n"
                    "  -F COUNT    output floods at once in the RSS run (default 8)\n"
                    "Needs root (the worker refuses to run without full isolation).\n"
                    "GRADEQ_BIN: the directory of gradeq-worker (default build).\n");
    exit(2);
}

static const char *mark(bool ok)
{
    return ok ? "ok" : "MISS";
}

/* A note for a row whose runs had foreign load. */
static const char *noisy(double a, double b)
{
    static char buf[96];
    if (a <= 10 && b <= 10)
        return "";
    snprintf(buf, sizeof buf, "  NOISY: other %.0f / %.0f %% of the machine", a, b);
    return buf;
}

static int by_rate(const void *a, const void *b)
{
    double x = ((const tp_result *)a)->rate, y = ((const tp_result *)b)->rate;
    return x < y ? -1 : x > y;
}

/* The round of median rate (all its figures: they belong together). */
static tp_result median_run(tp_result *runs, int n)
{
    qsort(runs, (size_t)n, sizeof *runs, by_rate);
    return runs[n / 2];
}

#define MAX_ROUNDS 9

int main(int argc, char **argv)
{
    long n = 3000, long_jobs = 100000;
    int rounds = 3;
    double lat_s = 5, long_s = 120;
    unsigned tlist[BW_MAX_THREADS] = { 2, 3, 4 }, nt = 3;
    int opt;
    while ((opt = getopt(argc, argv, "n:t:r:l:L:J:F:h")) != -1) {
        switch (opt) {
        case 'n': n = atol(optarg); break;
        case 'r': rounds = atoi(optarg); break;
        case 'l': lat_s = atof(optarg); break;
        case 'L': long_s = atof(optarg); break;
        case 'J': long_jobs = atol(optarg); break;
        case 'F': floods = (unsigned)atoi(optarg); break;
        case 't': {
            nt = 0;
            for (char *s = optarg; *s && nt < BW_MAX_THREADS;) {
                char *e;
                long v = strtol(s, &e, 10);
                if (e == s || v < 1 || v > BW_MAX_THREADS)
                    usage();
                tlist[nt++] = (unsigned)v;
                s = *e == ',' ? e + 1 : e;
                if (*e && *e != ',')
                    usage();
            }
            break;
        }
        default: usage();
        }
    }
    if (optind < argc)
        n = atol(argv[optind]); /* like bench_sandbox: a bare count */
    if (n < 10 || nt == 0 || rounds < 1 || rounds > MAX_ROUNDS || lat_s <= 0 || long_s < 0 || long_jobs < 1000 || floods < 1 || floods > 64)
        usage();
    signal(SIGPIPE, SIG_IGN);
    bw_clk_tck = sysconf(_SC_CLK_TCK);
    const char *bindir = getenv("GRADEQ_BIN") ? getenv("GRADEQ_BIN") : "build";
    snprintf(bw_worker_bin, sizeof bw_worker_bin, "%s/gradeq-worker", bindir);
    if (access(bw_worker_bin, X_OK) < 0) {
        fprintf(stderr, "bench_worker: %s: %s (set GRADEQ_BIN)\n", bw_worker_bin, strerror(errno));
        return 1;
    }
    if (geteuid() != 0) {
        fprintf(stderr, "bench_worker: needs root: gradeq-worker refuses to run without full isolation\n");
        return 1;
    }
    /* Foreign load before anything of ours runs: a 300 ms sample. */
    bw_cpu_snap i0, i1;
    bw_snap(&i0);
    struct timespec idle = { 0, 300000000 };
    nanosleep(&idle, NULL);
    bw_snap(&i1);
    bw_load idle_load = bw_load_between(&i0, &i1);
    char err[512];
    if (rs_start(&bw_srv, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "bench_worker: redis: %s\n", err);
        return 1;
    }
    redisContext *ctl = bw_rconnect(), *fc = bw_rconnect();
    fprintf(stderr, "bench_worker: %ld jobs per throughput run, threads", n);
    for (unsigned i = 0; i < nt; i++)
        fprintf(stderr, " %u", tlist[i]);
    fprintf(stderr, "; idle load before start: %.1f %% busy\n", idle_load.busy);

    /* 1 and 2, interleaved: for each T, rounds of plain and gradeq, the
     * first of a round alternating. */
    tp_result gq[BW_MAX_THREADS], pl[BW_MAX_THREADS];
    unsigned best = 0;
    for (unsigned i = 0; i < nt; i++) {
        tp_result rp[MAX_ROUNDS], rg[MAX_ROUNDS];
        for (int r = 0; r < rounds; r++) {
            bool gradeq_first = r % 2;
            if (gradeq_first)
                rg[r] = throughput_run(ctl, fc, true, tlist[i], n);
            rp[r] = throughput_run(ctl, fc, false, tlist[i], n);
            if (!gradeq_first)
                rg[r] = throughput_run(ctl, fc, true, tlist[i], n);
        }
        pl[i] = median_run(rp, rounds);
        gq[i] = median_run(rg, rounds);
        if (gq[i].rate > gq[best].rate)
            best = i;
    }
    /* 3. at half the best measured rate, gradeq and then the plain loop. */
    double lat_rate = gq[best].rate / 2;
    bw_lat_result lg = bw_latency_run(ctl, fc, true, tlist[best], lat_rate, lat_s);
    bw_lat_result lp = bw_latency_run(ctl, fc, false, tlist[best], lat_rate, lat_s);
    /* 4a, 4b. */
    bw_flood_result fr = bw_flood_run(ctl, fc, floods);
    bw_long_result lr = { 0 };
    if (long_s > 0)
        lr = bw_long_run(ctl, fc, tlist[best], long_jobs, long_s);

    /* ---- the table ---- */
    printf("\nbench_worker: gradeq-worker end to end through a private redis-server (unix socket);\n"
           "baseline = the plain loop (no isolation) in the same run; \"a / b\" in notes = gradeq / baseline;\n"
           "jobs/s and their notes: the median of %d alternating rounds of each\n",
           rounds);
    if (idle_load.busy > 10)
        printf("WARNING: the machine was %.0f %% busy before the bench started: expect NOISY runs\n", idle_load.busy);
    printf("%-52s %13s %13s %7s   %s\n", "what", "gradeq", "baseline", "ratio", "target");
    for (unsigned i = 0; i < nt; i++) {
        char what[64];
        snprintf(what, sizeof what, "1/2. /bin/true jobs/s, %u threads (N=%ld)", tlist[i], n);
        double ratio = pl[i].rate > 0 ? gq[i].rate / pl[i].rate : 0;
        printf("%-52s %10.0f /s %10.0f /s %7.2f   >= 1000/s [%s], ratio >= 0.90 [%s]%s\n", what, gq[i].rate,
               pl[i].rate, ratio, mark(gq[i].rate >= 1000), mark(ratio >= 0.9), noisy(gq[i].other, pl[i].other));
        printf("      CPU/job, ms: machine %.2f / %.2f; worker process %.2f / %.2f, zygotes+programs %.2f / %.2f, "
               "redis %.2f / %.2f; busy %.0f / %.0f %%; worker RSS %.1f MiB\n",
               gq[i].cpu_us_job / 1e3, pl[i].cpu_us_job / 1e3, gq[i].self_us_job / 1e3, pl[i].self_us_job / 1e3,
               gq[i].progs_us_job / 1e3, pl[i].progs_us_job / 1e3, gq[i].redis_us_job / 1e3,
               pl[i].redis_us_job / 1e3, gq[i].busy, pl[i].busy, gq[i].rss_kb / 1024.0);
        printf("      Redis per job: requests read (round trips, the follower's included) %.2f / %.2f, commands "
               "run %.1f / %.1f\n",
               gq[i].reads_job, pl[i].reads_job, gq[i].cmds_job, pl[i].cmds_job);
    }
    char what[96];
    snprintf(what, sizeof what, "3. submit->result p50 at %.0f jobs/s, %u threads", lg.rate, tlist[best]);
    printf("%-52s %10.2f ms %10.2f ms %7.2f   (rate = half the best jobs/s above)\n", what, lg.p50, lp.p50,
           lp.p50 > 0 ? lg.p50 / lp.p50 : 0);
    double p99_ratio = lp.p99 > 0 ? lg.p99 / lp.p99 : 0;
    printf("%-52s %10.2f ms %10.2f ms %7.2f   < 10 ms [%s], ratio <= 1.20 [%s]%s\n", "3. submit->result p99", lg.p99,
           lp.p99, p99_ratio, mark(lg.p99 < 10), mark(p99_ratio <= 1.2), noisy(lg.other, lp.other));
    printf("      p90 %.2f / %.2f ms, max %.2f / %.2f ms, n=%ld; of which the run itself (result wall_us) p50 %.2f / "
           "%.2f, p99 %.2f / %.2f ms; the rest (queue, Redis, worker) p50 %.2f / %.2f, p99 %.2f / %.2f ms\n",
           lg.p90, lp.p90, lg.max, lp.max, lg.n, lg.run_p50, lp.run_p50, lg.run_p99, lp.run_p99, lg.rest_p50,
           lp.rest_p50, lg.rest_p99, lp.rest_p99);
    double budget = 32 + floods * (double)BW_FLOOD_CAP / MIB;
    snprintf(what, sizeof what, "4a. worker RSS peak, %u x yes at a 16 MiB cap", floods);
    printf("%-52s %9.1f MiB %9.1f MiB %7.2f   <= budget [%s]\n", what, fr.peak_kb / 1024.0, budget,
           fr.peak_kb / 1024.0 / budget, mark(fr.peak_kb / 1024.0 <= budget && fr.hwm_kb / 1024.0 <= budget));
    printf("      budget = 32 MiB + %u x 16 MiB; VmHWM %.1f MiB; RSS idle %.1f MiB, after round 1 %.1f MiB, after "
           "round 2 %.1f MiB; round peaks %.1f / %.1f MiB (%ld samples, every 2 ms); redis used_memory after "
           "the %u results: %.0f MiB\n",
           floods, fr.hwm_kb / 1024.0, fr.idle_kb / 1024.0, fr.after_kb[0] / 1024.0, fr.after_kb[1] / 1024.0,
           fr.peak_round_kb[0] / 1024.0, fr.peak_round_kb[1] / 1024.0, fr.samples, 2 * floods, fr.redis_kb / 1024.0);
    if (long_s > 0) {
        snprintf(what, sizeof what, "4b. worker RSS after %ld jobs vs after 1,000", lr.jobs);
        printf("%-52s %9.1f MiB %9.1f MiB %7.2f   < 32 MiB and flat [%s]\n", what, lr.rss_end_kb / 1024.0,
               lr.rss_at[0] / 1024.0, lr.rss_at[0] ? (double)lr.rss_end_kb / (double)lr.rss_at[0] : 0,
               mark(lr.rss_end_kb < 32 * 1024 && lr.rss_end_kb <= lr.rss_at[0] + 1024));
        printf("      RSS at");
        for (int i = 0; i < BW_RSS_MARKS; i++)
            if (lr.rss_at[i])
                printf(" %ldk: %.1f,", bw_rss_marks[i] / 1000, lr.rss_at[i] / 1024.0);
        printf(" max seen %.1f MiB, VmHWM %.1f MiB; %.0f jobs/s sustained over %.0f s, %u threads\n",
               lr.rss_max_kb / 1024.0, lr.hwm_kb / 1024.0, lr.rate, lr.secs, tlist[best]);
        if (lr.cut)
            printf("      NOTE: stopped at the %.0f s budget after %ld of %ld jobs (-L, -J to change)\n", lr.budget_s,
                   lr.jobs, lr.target);
    }
    printf("\nmachine load per run (/proc/stat, all CPUs; other = CPU outside this bench's process tree: foreign "
           "load and kernel threads)\n");
    printf("%-32s %7s %7s %7s %7s %9s %9s\n", "run", "secs", "busy %", "steal %", "other %", "kthreads", "procs");
    printf("%-32s %7.1f %7.1f %7.1f %7s\n", "idle, before start", idle_load.secs, idle_load.busy, idle_load.steal,
           "-");
    for (int i = 0; i < bw_nloads; i++)
        printf("%-32s %7.1f %7.1f %7.1f %7.1f %9.1f %9.1f%s\n", bw_loads[i].what, bw_loads[i].l.secs,
               bw_loads[i].l.busy, bw_loads[i].l.steal, bw_loads[i].l.other, bw_loads[i].kthreads,
               bw_loads[i].procs, bw_loads[i].l.other > 10 ? "  NOISY" : "");
    printf("(other = busy - CPU of this tree; kthreads and procs: the part of it seen in kernel threads and in other "
           "long-lived processes; the rest ran in processes that came and went)\n");
    redisFree(ctl);
    redisFree(fc);
    rs_destroy(&bw_srv);
    return 0;
}
