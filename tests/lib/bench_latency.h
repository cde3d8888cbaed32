/* bench_latency.h -- bench_worker's item 3: submit-to-result latency at a
 * paced rate, through the gradeq worker or the plain loop.
 */
#ifndef GRADEQ_TESTS_BENCH_LATENCY_H
#define GRADEQ_TESTS_BENCH_LATENCY_H

#include <stdbool.h>

#include <hiredis/hiredis.h>

/* Latencies in ms. run_*: the run itself (the result's wall_us); rest_*:
 * the rest (queueing, Redis, the worker's own work around the run). */
typedef struct bw_lat_result {
    double p50, p90, p99, max, rate;
    long n;
    double run_p50, run_p99, rest_p50, rest_p99;
    double other; /* % of the machine outside this bench's tree */
} bw_lat_result;

/* Runs the gradeq worker (gradeq) or the plain loop with `threads` threads,
 * warms it up with one job per thread, then q_submits /bin/true jobs at
 * `rate` per second for `seconds` (at least 10 jobs) on one connection
 * while another thread follows P:results. ctl: commands; fc: a connection
 * for the warm-up's follower. */
bw_lat_result bw_latency_run(redisContext *ctl, redisContext *fc, bool gradeq, unsigned threads, double rate,
                             double seconds);

#endif
