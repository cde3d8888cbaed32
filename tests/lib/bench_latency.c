/* bench_latency.c -- bench_worker's latency run (item 3): jobs encoded up
 * front, submitted with q_submit at a fixed pace (clock_nanosleep to
 * absolute deadlines), their results followed on P:results by a thread of
 * its own; percentiles of submit-to-result, of the run's own wall_us, and
 * of the rest.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>
#include <msgpack.h>

#include "queue/job.h"
#include "queue/redis.h"
#include "queue/stream.h"
#include "tests/lib/bench_common.h"
#include "tests/lib/bench_gworker.h"
#include "tests/lib/bench_latency.h"
#include "tests/lib/bench_load.h"
#include "tests/lib/bench_plain.h"
#include "tests/lib/bench_redis.h"

typedef struct lat_ctx {
    bw_follower f;
    long total;
    double *recv, *run; /* when each result came; the run's own wall time (ms) */
    long received;
    bool failed;
} lat_ctx;

/* The unsigned integer under `key` in a msgpack map; -1 when absent. */
static double msgpack_map_uint(const char *data, size_t len, const char *key)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0, kl = strlen(key);
    double v = -1;
    if (data && msgpack_unpack_next(&u, data, len, &off) == MSGPACK_UNPACK_SUCCESS &&
        u.data.type == MSGPACK_OBJECT_MAP)
        for (uint32_t i = 0; i < u.data.via.map.size; i++) {
            const msgpack_object *k = &u.data.via.map.ptr[i].key, *o = &u.data.via.map.ptr[i].val;
            if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == kl && memcmp(k->via.str.ptr, key, kl) == 0 &&
                o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
                v = (double)o->via.u64;
        }
    msgpack_unpacked_destroy(&u);
    return v;
}

static void lat_entry(void *ctx, const char *id, size_t len, const char *res, size_t res_len, double t)
{
    lat_ctx *l = ctx;
    if (len < 5 || memcmp(id, "lat-", 4) != 0)
        return;
    long i = strtol(id + 4, NULL, 10);
    if (i >= 0 && i < l->total && l->recv[i] == 0) {
        l->recv[i] = t;
        l->run[i] = msgpack_map_uint(res, res_len, "wall_us") / 1e3;
        l->received++;
    }
}

static void *lat_follow_main(void *arg)
{
    lat_ctx *l = arg;
    double progress = bw_now_us();
    while (l->received < l->total) {
        if (bw_follow(&l->f, 500, 1000, lat_entry, l) > 0)
            progress = bw_now_us();
        else if (bw_now_us() - progress > BW_IDLE_DEADLINE_US) {
            l->failed = true;
            break;
        }
    }
    return NULL;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

bw_lat_result bw_latency_run(redisContext *ctl, redisContext *fc, bool gradeq, unsigned threads, double rate,
                             double seconds)
{
    char prefix[64], name[64], what[48], err[512];
    snprintf(prefix, sizeof prefix, "bw-lat-%s", gradeq ? "gradeq" : "plain");
    snprintf(name, sizeof name, "bench-lat");
    bw_fresh_queue(ctl, prefix);
    bw_follower warm;
    bw_follower_init(&warm, fc, prefix);
    bw_cpu_snap s0;
    bw_window_begin(&s0);
    if (gradeq)
        bw_worker_start(prefix, threads, name);
    else
        bw_plain_start(prefix, threads);
    /* Warm up: one job per thread, through the same submit path. */
    q_redis_addr addr;
    if (q_redis_url_parse(bw_srv.url, &addr, err, sizeof err) < 0)
        bw_die("%s", err);
    q_conn *qc = q_conn_open(&addr, NULL, err, sizeof err);
    if (!qc)
        bw_die("q_conn_open: %s", err);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    char entry[Q_ID_LEN], id[64];
    for (unsigned i = 0; i < threads; i++) {
        snprintf(id, sizeof id, "warm-%u", i);
        bw_encode_job(&sb, id, bw_true_argv, 0);
        if (q_submit(qc, prefix, sb.data, sb.size, 0, entry, err, sizeof err) != 1)
            bw_die("q_submit: %s", err);
    }
    bw_timing tw;
    bw_wait_results(&warm, threads, &tw, gradeq);
    /* All jobs encoded up front: the paced loop only submits. */
    long total = (long)(rate * seconds);
    if (total < 10)
        total = 10;
    char *blob = NULL;
    size_t *off = calloc((size_t)total + 1, sizeof *off);
    size_t cap = 0;
    for (long i = 0; i < total; i++) {
        snprintf(id, sizeof id, "lat-%ld", i);
        bw_encode_job(&sb, id, bw_true_argv, 0);
        if (off[i] + sb.size > cap) {
            cap = (off[i] + sb.size) * 2;
            blob = realloc(blob, cap);
            if (!blob)
                bw_die("out of memory");
        }
        memcpy(blob + off[i], sb.data, sb.size);
        off[i + 1] = off[i] + sb.size;
    }
    msgpack_sbuffer_destroy(&sb);
    lat_ctx l = { .total = total, .recv = calloc((size_t)total, sizeof(double)),
                  .run = calloc((size_t)total, sizeof(double)) };
    double *sent = calloc((size_t)total, sizeof(double));
    if (!off || !l.recv || !l.run || !sent)
        bw_die("out of memory");
    l.f = warm;
    l.f.c = bw_rconnect(); /* the follower thread's own connection */
    pthread_t th;
    if (pthread_create(&th, NULL, lat_follow_main, &l) != 0)
        bw_die("pthread_create failed");
    double period_ns = 1e9 / rate;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double t0 = start.tv_sec * 1e9 + start.tv_nsec + 5e6;
    for (long i = 0; i < total; i++) {
        double due = t0 + (double)i * period_ns;
        struct timespec ts = { (time_t)(due / 1e9), (long)(due - (double)(time_t)(due / 1e9) * 1e9) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        sent[i] = bw_now_us();
        if (q_submit(qc, prefix, blob + off[i], off[i + 1] - off[i], 0, entry, err, sizeof err) != 1)
            bw_die("q_submit: %s", err);
    }
    double submit_s = (bw_now_us() - sent[0]) / 1e6;
    pthread_join(th, NULL);
    redisFree(l.f.c);
    q_conn_close(qc);
    if (gradeq) {
        bw_worker_check_alive();
        bw_worker_stop(ctl, name);
    } else if (bw_plain_stop(ctl, prefix, threads)) {
        bw_die("plain latency run: jobs failed");
    }
    snprintf(what, sizeof what, "3. latency %s T=%u", gradeq ? "gradeq" : "plain", threads);
    bw_window_end(what, &s0, NULL);
    if (l.failed || l.received != total)
        bw_die("latency run (%s): %ld of %ld results came back", gradeq ? "gradeq" : "plain", l.received, total);
    if (gradeq && bw_stat_get(ctl, prefix, "OK") != total + threads)
        bw_die("latency run: not every result is OK");
    double *lat = calloc((size_t)total, sizeof(double));
    if (!lat)
        bw_die("out of memory");
    for (long i = 0; i < total; i++)
        lat[i] = (l.recv[i] - sent[i]) / 1e3;
    qsort(lat, (size_t)total, sizeof *lat, cmp_d);
    bw_lat_result res = { lat[total / 2], lat[(long)(0.9 * (total - 1))], lat[(long)(0.99 * (total - 1))],
                       lat[total - 1], (double)(total - 1) / submit_s, total };
    /* Where it went: the run itself (wall_us of the result) and the rest
     * (queueing, Redis, the worker's own work around the run). */
    for (long i = 0; i < total; i++)
        lat[i] = l.run[i];
    qsort(lat, (size_t)total, sizeof *lat, cmp_d);
    res.run_p50 = lat[total / 2];
    res.run_p99 = lat[(long)(0.99 * (total - 1))];
    for (long i = 0; i < total; i++)
        lat[i] = (l.recv[i] - sent[i]) / 1e3 - l.run[i];
    qsort(lat, (size_t)total, sizeof *lat, cmp_d);
    res.rest_p50 = lat[total / 2];
    res.rest_p99 = lat[(long)(0.99 * (total - 1))];
    res.other = bw_loads[bw_nloads - 1].l.other;
    fprintf(stderr, "  %-8s latency at %.0f jobs/s: p50 %.2f ms, p99 %.2f ms, max %.2f ms (n=%ld)\n",
            gradeq ? "gradeq" : "plain", res.rate, res.p50, res.p99, res.max, total);
    free(lat);
    free(sent);
    free(l.recv);
    free(l.run);
    free(off);
    free(blob);
    return res;
}
