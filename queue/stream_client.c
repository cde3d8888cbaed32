/* stream_client.c -- the gradeq job protocol, a client's side: submit a
 * job, wait for its result (see stream.h).
 *
 * DESIGN. A submit is one script, so the queue-length check and the XADD
 * are atomic and concurrent submitters cannot overshoot max_queue. A wait
 * is a loop of BLPOPs on P:result:<id>, each at most q_conn_block_max_ms,
 * so the socket timeout never fires and the stop flag is seen.
 *
 * INVARIANTS
 *   - Only a job id the job decoder accepts (job_id.h) is waited for: an id
 *     the worker could not answer under would only ever time out.
 *   - A result is taken (BLPOP), so two waiters on one id never both get it.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "queue/err.h"
#include "queue/stream_internal.h"

/* Appends a job unless P:jobs already holds ARGV[1] (> 0) entries; check
 * and append are atomic, so concurrent submitters cannot overshoot.
 * Reply: {1, entry-id} added, {0, length} refused. */
static const q_script script_submit = {
    "submit",
    "local n, max = redis.call('XLEN', KEYS[1]), tonumber(ARGV[1])\n"
    "if max > 0 and n >= max then\n"
    "  return {0, n}\n"
    "end\n"
    "return {1, redis.call('XADD', KEYS[1], '*', 'job', ARGV[2])}\n",
};

int q_submit(q_conn *c, const char *prefix, const void *job, size_t len, long long max_queue,
             char id_out[Q_ID_LEN], char *err, size_t errlen)
{
    id_out[0] = '\0';
    if (q_check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    if ((!job && len) || max_queue < 0)
        return q_fail(err, errlen, "queue: submit needs job bytes and max_queue >= 0");
    char jobs[Q_KEY_MAX];
    q_mkkey(jobs, prefix, "jobs", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_ll(&a, max_queue);
    q_args_bin(&a, job, len);
    redisReply *r = q_eval(c, &script_submit, 1, &a, err, errlen);
    if (!r)
        return -1;
    if (!q_is_array(r, 2) || r->element[0]->type != REDIS_REPLY_INTEGER)
        return q_bad_reply(r, "the submit script", err, errlen);
    const redisReply *v = r->element[1];
    if (r->element[0]->integer == 0 && v->type == REDIS_REPLY_INTEGER) {
        (void)q_fail(err, errlen, "queue full: %lld jobs waiting or running (--max-queue %lld)", v->integer,
                     max_queue);
        freeReplyObject(r);
        return 0;
    }
    if (v->type != REDIS_REPLY_STRING || v->len >= Q_ID_LEN)
        return q_bad_reply(r, "the submit script", err, errlen);
    memcpy(id_out, v->str, v->len + 1);
    freeReplyObject(r);
    return 1;
}

static long long mono_ms(void)
{
    struct timespec t;
    (void)clock_gettime(CLOCK_MONOTONIC, &t); /* cannot q_fail for this clock */
    return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* The result as a blob, from an LINDEX or BRPOPLPUSH reply; 0 for nil. */
static int result_from(redisReply *r, const char *what, q_blob *out, char *err, size_t errlen)
{
    if (r->type == REDIS_REPLY_NIL) {
        freeReplyObject(r);
        return 0;
    }
    if (r->type != REDIS_REPLY_STRING)
        return q_bad_reply(r, what, err, errlen);
    out->data = r->str;
    out->len = r->len;
    out->reply = r;
    return 1;
}

int q_wait_result(q_conn *c, const char *prefix, const char *job_id, long timeout_ms,
                  q_blob *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (q_check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0 ||
        q_check_job_id(job_id, err, errlen) < 0)
        return -1;
    char reslist[Q_KEY_MAX];
    q_mkkey(reslist, prefix, "result:", job_id);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, "LINDEX");
    q_args_str(&a, reslist);
    q_args_str(&a, "0");
    redisReply *r = q_command(c, &a, err, errlen);
    int got = r ? result_from(r, "LINDEX", out, err, errlen) : -1;
    if (got != 0 || timeout_ms == 0)
        return got;
    long long deadline = mono_ms() + timeout_ms;
    for (;;) {
        if (q_conn_stopping(c))
            return q_fail(err, errlen, "queue: waiting for %s: shutting down", job_id);
        long long left = timeout_ms < 0 ? q_conn_block_max_ms(c) : deadline - mono_ms();
        if (left <= 0)
            return 0;
        /* A slice, not the whole wait, so the socket timeout never fires
         * and the stop flag is seen. BRPOPLPUSH onto the same list leaves
         * its one result in place, for the next reader. */
        long long slice = left < q_conn_block_max_ms(c) ? left : q_conn_block_max_ms(c);
        char secs[32];
        (void)snprintf(secs, sizeof secs, "%lld.%03lld", slice / 1000, slice % 1000);
        q_args_init(&a);
        q_args_str(&a, "BRPOPLPUSH");
        q_args_str(&a, reslist);
        q_args_str(&a, reslist);
        q_args_str(&a, secs);
        r = q_command(c, &a, err, errlen);
        if (!r)
            return -1;
        if ((got = result_from(r, "BRPOPLPUSH", out, err, errlen)) != 0)
            return got;
    }
}

void q_blob_free(q_blob *b)
{
    if (b->reply)
        freeReplyObject(b->reply);
    memset(b, 0, sizeof *b);
}
