/* bench_common.h -- what every part of bench_worker (tests/bench) shares:
 * its private redis-server, the clock and the fatal exit.
 *
 * bench_worker's parts live in tests/lib/bench_*.c, one job each, their
 * external names prefixed bw_: bench_load (machine load from /proc),
 * bench_redis (Redis plumbing, prefill, following P:results), bench_gworker
 * (the gradeq-worker process under test), bench_plain (the plain baseline
 * loop), bench_latency (submit-to-result latency), bench_rss (worker RSS:
 * output floods, the long run).
 */
#ifndef GRADEQ_TESTS_BENCH_COMMON_H
#define GRADEQ_TESTS_BENCH_COMMON_H

#include "tests/lib/redis_server.h"

#define BW_IDLE_DEADLINE_US 30e6 /* no new result for this long: the run failed */
#define BW_MAX_THREADS 16        /* worker threads of one run, at most */

/* The private redis-server every run goes through (started by main). */
extern rs_server bw_srv;

/* CLOCK_MONOTONIC, in us. */
double bw_now_us(void);

/* "bench_worker: " and the message on stderr; then kills the worker under
 * test if one runs (showing the tail of its log), removes the redis-server
 * and exits 1. */
__attribute__((noreturn, format(printf, 1, 2)))
void bw_die(const char *fmt, ...);

#endif
