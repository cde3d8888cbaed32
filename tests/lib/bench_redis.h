/* bench_redis.h -- bench_worker's Redis side: connections to bw_srv and
 * commands that die on error, job encoding and prefill of P:jobs, and
 * following P:results (XREAD BLOCK) with the timing of a run.
 */
#ifndef GRADEQ_TESTS_BENCH_REDIS_H
#define GRADEQ_TESTS_BENCH_REDIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>
#include <msgpack.h>

#include "tests/lib/bench_load.h"

/* ---- connections and commands: any error is fatal (bw_die) */

/* A connection to bw_srv with 10 s timeouts. */
redisContext *bw_rconnect(void);
/* r, unless NULL (connection error) or an error reply. */
redisReply *bw_rcheck(redisContext *c, redisReply *r);
redisReply *bw_rcmd(redisContext *c, const char *fmt, ...);
/* A command whose reply is not wanted. */
void bw_rdo(redisContext *c, const char *fmt, ...);
/* Reads n pipelined replies. */
void bw_rdrain(redisContext *c, long n);
/* HGET P:stats field, 0 when absent. */
long long bw_stat_get(redisContext *c, const char *prefix, const char *field);
/* FLUSHALL, then the P:jobs stream and its group "workers". */
void bw_fresh_queue(redisContext *c, const char *prefix);

/* The server's request counters (INFO stats): reads of client requests,
 * which is one per round trip of each client, and commands, those run by
 * scripts included. */
typedef struct bw_redis_count {
    unsigned long long reads, commands;
} bw_redis_count;
void bw_redis_counts(redisContext *c, bw_redis_count *out);

/* ---- jobs */

extern const char *const bw_true_argv[]; /* { "/bin/true", NULL } */

/* q_job_encode of a job id running argv (default limits; stdout_cap, when
 * not 0, as its stdout_bytes limit) into sb. */
void bw_encode_job(msgpack_sbuffer *sb, const char *id, const char *const *argv, uint64_t stdout_cap);
/* XADDs jobs tag-from .. tag-(from+n-1), pipelined 500 per round trip. */
void bw_prefill(redisContext *c, const char *prefix, const char *tag, long from, long n, const char *const *argv,
                uint64_t stdout_cap);

/* ---- following P:results */

/* One result seen on P:results: its id and result fields (NULL/0 when
 * absent) and when it was read. */
typedef void (*bw_entry_fn)(void *ctx, const char *id, size_t len, const char *res, size_t res_len, double t);

typedef struct bw_follower {
    redisContext *c;
    char key[160];
    char last[64];
    long count;
} bw_follower;

void bw_follower_init(bw_follower *f, redisContext *c, const char *prefix);
/* Waits up to block_ms for new P:results entries (at most max), calling fn
 * (if not NULL) on each; returns how many came. */
long bw_follow(bw_follower *f, int block_ms, long max, bw_entry_fn fn, void *ctx);

typedef struct bw_timing {
    bw_cpu_snap first, last;
    long first_count;    /* results already in at the first snapshot */
} bw_timing;

/* Follows until n results, snapshotting at the first and the n-th; dies
 * after BW_IDLE_DEADLINE_US without one, or (gradeq) if the worker exits. */
void bw_wait_results(bw_follower *f, long n, bw_timing *tm, bool gradeq);
/* Results per second between the first and the n-th. */
double bw_rate_of(const bw_timing *tm, long n);

#endif
