/* bench_redis.c -- bench_worker's Redis plumbing: commands on bw_srv that
 * die on error, trivial jobs encoded with q_job_encode and prefilled into
 * P:jobs, and the follower of P:results that times a run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/job.h"
#include "tests/lib/bench_common.h"
#include "tests/lib/bench_gworker.h"
#include "tests/lib/bench_load.h"
#include "tests/lib/bench_redis.h"

/* ------------------------------------------------------------ redis */

redisContext *bw_rconnect(void)
{
    struct timeval tv = { 10, 0 };
    redisContext *c = redisConnectUnixWithTimeout(bw_srv.sock, tv);
    if (!c || c->err)
        bw_die("connect %s: %s", bw_srv.sock, c ? c->errstr : "out of memory");
    if (redisSetTimeout(c, tv) != REDIS_OK)
        bw_die("redisSetTimeout failed");
    return c;
}

redisReply *bw_rcheck(redisContext *c, redisReply *r)
{
    if (!r)
        bw_die("redis: %s", c->errstr);
    if (r->type == REDIS_REPLY_ERROR)
        bw_die("redis: %s", r->str);
    return r;
}

redisReply *bw_rcmd(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    return bw_rcheck(c, r);
}

void bw_rdo(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    freeReplyObject(bw_rcheck(c, r));
}

/* Reads n pipelined replies, dying on any error. */
void bw_rdrain(redisContext *c, long n)
{
    for (long i = 0; i < n; i++) {
        void *r = NULL;
        if (redisGetReply(c, &r) != REDIS_OK)
            bw_die("redis: %s", c->errstr);
        freeReplyObject(bw_rcheck(c, r));
    }
}

long long bw_stat_get(redisContext *c, const char *prefix, const char *field)
{
    redisReply *r = bw_rcmd(c, "HGET %s:stats %s", prefix, field);
    long long v = r->type == REDIS_REPLY_STRING ? atoll(r->str) : 0;
    freeReplyObject(r);
    return v;
}

void bw_fresh_queue(redisContext *c, const char *prefix)
{
    bw_rdo(c, "FLUSHALL");
    bw_rdo(c, "XGROUP CREATE %s:jobs workers 0 MKSTREAM", prefix);
}

void bw_redis_counts(redisContext *c, bw_redis_count *out)
{
    redisReply *r = bw_rcmd(c, "INFO stats");
    const char *reads = r->type == REDIS_REPLY_STRING ? strstr(r->str, "total_reads_processed:") : NULL;
    const char *cmds = r->type == REDIS_REPLY_STRING ? strstr(r->str, "total_commands_processed:") : NULL;
    if (!reads || !cmds)
        bw_die("redis: INFO stats without total_reads_processed and total_commands_processed");
    out->reads = strtoull(strchr(reads, ':') + 1, NULL, 10);
    out->commands = strtoull(strchr(cmds, ':') + 1, NULL, 10);
    freeReplyObject(r);
}

/* ------------------------------------------------------------ jobs */

void bw_encode_job(msgpack_sbuffer *sb, const char *id, const char *const *argv, uint64_t stdout_cap)
{
    q_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.id, sizeof j.id, "%s", id);
    j.has_id = true;
    j.prog.argv = (char **)argv;
    while (argv[j.prog.argc])
        j.prog.argc++;
    if (stdout_cap) {
        j.prog.limits[Q_LIM_STDOUT_BYTES] = stdout_cap;
        j.prog.limits_present = 1u << Q_LIM_STDOUT_BYTES;
    }
    char err[512];
    msgpack_sbuffer_clear(sb);
    if (q_job_encode(&j, sb, err, sizeof err) < 0)
        bw_die("q_job_encode: %s", err);
}

const char *const bw_true_argv[] = { "/bin/true", NULL };

/* XADDs jobs tag-from .. tag-(from+n-1), pipelined 500 per round trip. */
void bw_prefill(redisContext *c, const char *prefix, const char *tag, long from, long n,
               const char *const *argv, uint64_t stdout_cap)
{
    char key[160], id[96];
    snprintf(key, sizeof key, "%s:jobs", prefix);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    long pending = 0;
    for (long i = from; i < from + n; i++) {
        snprintf(id, sizeof id, "%s-%ld", tag, i);
        bw_encode_job(&sb, id, argv, stdout_cap);
        if (redisAppendCommand(c, "XADD %s * job %b", key, sb.data, sb.size) != REDIS_OK)
            bw_die("redisAppendCommand: out of memory");
        if (++pending == 500) {
            bw_rdrain(c, pending);
            pending = 0;
        }
    }
    bw_rdrain(c, pending);
    msgpack_sbuffer_destroy(&sb);
}

/* ------------------------------------------------------------ following results */

void bw_follower_init(bw_follower *f, redisContext *c, const char *prefix)
{
    memset(f, 0, sizeof *f);
    f->c = c;
    snprintf(f->key, sizeof f->key, "%s:results", prefix);
    snprintf(f->last, sizeof f->last, "0-0");
}

/* Waits up to block_ms for new P:results entries; returns how many came. */
long bw_follow(bw_follower *f, int block_ms, long max, bw_entry_fn fn, void *ctx)
{
    redisReply *r = bw_rcmd(f->c, "XREAD COUNT %ld BLOCK %d STREAMS %s %s", max, block_ms, f->key, f->last);
    double t = bw_now_us();
    if (r->type == REDIS_REPLY_NIL) {
        freeReplyObject(r);
        return 0;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 || r->element[0]->type != REDIS_REPLY_ARRAY ||
        r->element[0]->elements != 2 || r->element[0]->element[1]->type != REDIS_REPLY_ARRAY)
        bw_die("XREAD: unexpected reply");
    redisReply *es = r->element[0]->element[1];
    for (size_t i = 0; i < es->elements; i++) {
        redisReply *e = es->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING)
            bw_die("XREAD: unexpected entry");
        if (i + 1 == es->elements)
            snprintf(f->last, sizeof f->last, "%s", e->element[0]->str);
        redisReply *fv = e->element[1];
        if (!fn || fv->type != REDIS_REPLY_ARRAY)
            continue;
        const redisReply *id = NULL, *res = NULL;
        for (size_t k = 0; k + 1 < fv->elements; k += 2) {
            if (fv->element[k]->len == 2 && memcmp(fv->element[k]->str, "id", 2) == 0)
                id = fv->element[k + 1];
            else if (fv->element[k]->len == 6 && memcmp(fv->element[k]->str, "result", 6) == 0)
                res = fv->element[k + 1];
        }
        if (id)
            fn(ctx, id->str, id->len, res ? res->str : NULL, res ? res->len : 0, t);
    }
    long n = (long)es->elements;
    f->count += n;
    freeReplyObject(r);
    return n;
}

/* Follows until n results, snapshotting at the first and the n-th. */
void bw_wait_results(bw_follower *f, long n, bw_timing *tm, bool gradeq)
{
    double progress = bw_now_us();
    tm->first_count = 0;
    while (f->count < n) {
        long got = bw_follow(f, 500, 1000, NULL, NULL);
        if (got > 0) {
            progress = bw_now_us();
            if (f->count == got) {
                bw_snap(&tm->first);
                tm->first_count = got;
            }
        } else if (gradeq) {
            bw_worker_check_alive();
        }
        if (bw_now_us() - progress > BW_IDLE_DEADLINE_US)
            bw_die("no result for %.0f s (%ld of %ld in)", BW_IDLE_DEADLINE_US / 1e6, f->count, n);
    }
    bw_snap(&tm->last);
}

double bw_rate_of(const bw_timing *tm, long n)
{
    double dt = tm->last.t - tm->first.t;
    return dt > 0 ? (double)(n - tm->first_count) * 1e6 / dt : 0;
}
