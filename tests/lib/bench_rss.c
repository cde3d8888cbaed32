/* bench_rss.c -- bench_worker's RSS runs of the gradeq worker: sampling
 * /proc/PID/status, the output floods (4a: peak RSS against the budget)
 * and the long run (4b: RSS after many trivial jobs, bounded in time).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "tests/lib/bench_common.h"
#include "tests/lib/bench_gworker.h"
#include "tests/lib/bench_load.h"
#include "tests/lib/bench_redis.h"
#include "tests/lib/bench_rss.h"

static const char *const yes_argv[] = { "/usr/bin/yes", NULL };

long bw_proc_status_kb(pid_t pid, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long v = -1;
    size_t fl = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
            v = atol(line + fl + 1);
            break;
        }
    fclose(f);
    return v;
}

/* ------------------------------------------------------------ item 4a */

bw_flood_result bw_flood_run(redisContext *ctl, redisContext *fc, unsigned floods)
{
    const char *prefix = "bw-flood", *name = "bench-flood";
    bw_fresh_queue(ctl, prefix);
    bw_prefill(ctl, prefix, "warm", 0, floods, bw_true_argv, 0);
    bw_follower f;
    bw_follower_init(&f, fc, prefix);
    bw_cpu_snap s0;
    bw_window_begin(&s0);
    bw_worker_start(prefix, floods, name);
    bw_timing tw;
    bw_wait_results(&f, floods, &tw, true);
    bw_flood_result res = { .idle_kb = bw_proc_status_kb(bw_worker_pid, "VmRSS") };
    for (int round = 0; round < 2; round++) {
        char tag[32];
        snprintf(tag, sizeof tag, "flood%d", round);
        long long target = (long long)floods * (round + 2);
        double t0 = bw_now_us();
        bw_prefill(ctl, prefix, tag, 0, floods, yes_argv, BW_FLOOD_CAP);
        /* Sample every 2 ms until every flood is published (the results
         * are 16 MiB each: counted in P:stats, never read back). */
        long peak = 0;
        for (;;) {
            long kb = bw_proc_status_kb(bw_worker_pid, "VmRSS");
            if (kb > peak)
                peak = kb;
            res.samples++;
            if (bw_stat_get(ctl, prefix, "jobs") >= target)
                break;
            bw_worker_check_alive();
            if (bw_now_us() - t0 > 60e6)
                bw_die("floods: not all published within 60 s");
            struct timespec ts = { 0, 2000000 };
            nanosleep(&ts, NULL);
        }
        res.secs[round] = (bw_now_us() - t0) / 1e6;
        res.peak_round_kb[round] = peak;
        if (peak > res.peak_kb)
            res.peak_kb = peak;
        res.after_kb[round] = bw_proc_status_kb(bw_worker_pid, "VmRSS");
        fprintf(stderr, "  flood round %d: peak RSS %.1f MiB, after %.1f MiB, %.2f s\n", round + 1, peak / 1024.0,
                res.after_kb[round] / 1024.0, res.secs[round]);
    }
    res.hwm_kb = bw_proc_status_kb(bw_worker_pid, "VmHWM");
    bw_worker_stop(ctl, name);
    bw_window_end("4a. RSS, output floods", &s0, NULL);
    redisReply *info = bw_rcmd(ctl, "INFO memory");
    const char *um = strstr(info->str, "used_memory:");
    res.redis_kb = um ? atol(um + 12) / 1024 : -1;
    freeReplyObject(info);
    long long over = bw_stat_get(ctl, prefix, "OUTPUT_LIMIT");
    if (over != 2 * floods)
        bw_die("floods: %lld of %u ended OUTPUT_LIMIT", over, 2 * floods);
    bw_rdo(ctl, "FLUSHALL"); /* 16 x 2 x 16 MiB of results */
    return res;
}

/* ------------------------------------------------------------ item 4b */

const long bw_rss_marks[BW_RSS_MARKS] = { 1000, 10000, 25000, 50000, 75000, 100000 };

bw_long_result bw_long_run(redisContext *ctl, redisContext *fc, unsigned threads, long target, double budget_s)
{
    const char *prefix = "bw-long", *name = "bench-long";
    const long batch = 2000;
    bw_long_result res = { .target = target, .budget_s = budget_s };
    bw_fresh_queue(ctl, prefix);
    long submitted = target < 2 * batch ? target : 2 * batch;
    bw_prefill(ctl, prefix, "l", 0, submitted, bw_true_argv, 0);
    bw_follower f;
    bw_follower_init(&f, fc, prefix);
    bw_cpu_snap s0, first = { 0 };
    long first_count = 0;
    bw_window_begin(&s0);
    bw_worker_start(prefix, threads, name);
    double end = bw_now_us() + budget_s * 1e6, progress = bw_now_us(), report = bw_now_us() + 10e6;
    int mark = 0;
    for (;;) {
        long got = bw_follow(&f, 500, 2000, NULL, NULL);
        double t = bw_now_us();
        if (got > 0) {
            progress = t;
            if (f.count == got) {
                bw_snap(&first);
                first_count = got;
            }
            long kb = bw_proc_status_kb(bw_worker_pid, "VmRSS");
            if (kb > res.rss_max_kb)
                res.rss_max_kb = kb;
            while (mark < BW_RSS_MARKS && f.count >= bw_rss_marks[mark])
                res.rss_at[mark++] = kb;
        } else {
            bw_worker_check_alive();
        }
        if (t - progress > BW_IDLE_DEADLINE_US)
            bw_die("long run: no result for %.0f s (%ld of %ld in)", BW_IDLE_DEADLINE_US / 1e6, f.count, submitted);
        if (t >= report) {
            fprintf(stderr, "  long run: %ld jobs done, %.0f s left, RSS %.1f MiB\n", f.count, (end - t) / 1e6,
                    bw_proc_status_kb(bw_worker_pid, "VmRSS") / 1024.0);
            report = t + 10e6;
        }
        bool more = submitted < target && t < end;
        if (more && submitted - f.count < batch) {
            long n = target - submitted < batch ? target - submitted : batch;
            bw_prefill(ctl, prefix, "l", submitted, n, bw_true_argv, 0);
            submitted += n;
        }
        if (f.count >= submitted && !more)
            break;
    }
    bw_cpu_snap last;
    bw_snap(&last);
    res.jobs = f.count;
    res.cut = res.jobs < target;
    res.rss_end_kb = bw_proc_status_kb(bw_worker_pid, "VmRSS");
    res.hwm_kb = bw_proc_status_kb(bw_worker_pid, "VmHWM");
    res.secs = (last.t - first.t) / 1e6;
    res.rate = res.secs > 0 ? (double)(res.jobs - first_count) / res.secs : 0;
    bw_worker_stop(ctl, name);
    bw_window_end("4b. long run", &s0, NULL);
    long long ok = bw_stat_get(ctl, prefix, "OK");
    if (ok != res.jobs)
        bw_die("long run: %lld of %ld results OK", ok, res.jobs);
    bw_rdo(ctl, "FLUSHALL");
    return res;
}
