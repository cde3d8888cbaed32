/* test_stream.c -- the job protocol (queue/stream.c) against a real
 * redis-server: fetch/publish round trips, fencing after a claim, claim
 * and touch, dead letters, admission control, result waiting, the worker
 * registry and the stats gauges.
 *
 * Idle consumers are simulated with XCLAIM ... IDLE <ms> JUSTID, which sets
 * an entry's idle time without bumping its delivery count, so no test
 * sleeps to make an entry old. Every test starts on an empty database.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "queue/job.h"
#include "queue/stream.h"
#include "tests/lib/redis_server.h"

#define P "gq"

static rs_server shared;

static redisReply *run(q_conn *c, const char *const *argv)
{
    char err[Q_ERR_LEN] = "";
    q_args a;
    q_args_init(&a);
    for (; *argv; argv++)
        q_args_str(&a, *argv);
    redisReply *r = q_command(c, &a, err, sizeof err);
    if (!r)
        fail_msg("command %s failed: %s", a.argv[0], err);
    return r;
}
#define RUN(c, ...) run((c), (const char *const[]){ __VA_ARGS__, NULL })

/* The integer a command answers. */
static long long run_ll(q_conn *c, const char *const *argv)
{
    redisReply *r = run(c, argv);
    assert_int_equal(r->type, REDIS_REPLY_INTEGER);
    long long v = r->integer;
    freeReplyObject(r);
    return v;
}
#define LL(c, ...) run_ll((c), (const char *const[]){ __VA_ARGS__, NULL })

/* A counter of P:stats, 0 when absent. */
static long long stat(q_conn *c, const char *prefix, const char *field)
{
    char key[128];
    (void)snprintf(key, sizeof key, "%s:stats", prefix);
    redisReply *r = RUN(c, "HGET", key, field);
    long long v = r->type == REDIS_REPLY_STRING ? atoll(r->str) : 0;
    freeReplyObject(r);
    return v;
}

static q_conn *open_opts(const q_conn_opts *o)
{
    char err[Q_ERR_LEN] = "";
    q_redis_addr addr;
    assert_int_equal(q_redis_url_parse(shared.url, &addr, err, sizeof err), 0);
    q_conn *c = q_conn_open(&addr, o, err, sizeof err);
    if (!c)
        fail_msg("open: %s", err);
    return c;
}

static q_conn *open_conn(void)
{
    return open_opts(NULL);
}

static void submit(q_conn *c, const char *prefix, const void *job, size_t len, char id[Q_ID_LEN])
{
    char err[Q_ERR_LEN] = "";
    if (q_submit(c, prefix, job, len, 0, id, err, sizeof err) != 1)
        fail_msg("submit: %s", err);
}

static void fetch(q_conn *c, const char *prefix, const char *consumer, q_entry *e)
{
    char err[Q_ERR_LEN] = "";
    if (q_fetch(c, prefix, consumer, 0, e, err, sizeof err) != 1)
        fail_msg("fetch by %s: %s", consumer, err);
}

/* Makes `id`, owned by `owner`, look idle for `ms` without a delivery. */
static void make_idle(q_conn *c, const char *id, const char *owner, const char *ms)
{
    redisReply *r = RUN(c, "XCLAIM", P ":jobs", "workers", owner, "0", id, "IDLE", ms, "JUSTID");
    assert_int_equal(r->elements, 1);
    freeReplyObject(r);
}

/* The delivery count and owner of a pending entry. */
static long long delivery_count(q_conn *c, const char *id, char owner[Q_NAME_MAX + 1])
{
    redisReply *r = RUN(c, "XPENDING", P ":jobs", "workers", id, id, "1");
    assert_int_equal(r->elements, 1);
    (void)snprintf(owner, Q_NAME_MAX + 1, "%s", r->element[0]->element[1]->str);
    long long n = r->element[0]->element[3]->integer;
    freeReplyObject(r);
    return n;
}

static q_delivery result_for(const char *job_id, const char *status, const char *bytes,
                             size_t len)
{
    return (q_delivery){ .job_id = job_id, .status = status, .data = bytes, .len = len,
                         .ttl_s = 600, .maxlen = 1000 };
}

/* ------------------------------------------------------------------ tests */

static void test_group_ensure_is_idempotent(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "";
    assert_int_equal(q_group_ensure(c, P, err, sizeof err), 0); /* BUSYGROUP is fine */
    redisReply *r = RUN(c, "XINFO", "GROUPS", P ":jobs");
    assert_int_equal(r->elements, 1);
    assert_string_equal(r->element[0]->element[1]->str, "workers");
    freeReplyObject(r);
    q_conn_close(c);
}

static void test_fetch_without_job(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "";
    q_entry e;
    assert_int_equal(q_fetch(c, P, "w1", 0, &e, err, sizeof err), 0);
    assert_int_equal(q_fetch(c, P, "w1", 30, &e, err, sizeof err), 0);
    assert_int_equal(q_fetch(c, P, "w1", 2001, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "block_ms 2001 outside 0..2000"));
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_fetch_publish_round_trip(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    static const char job[] = { 'j', 0, 1, '\r', '\n', (char)0xc1 };
    static const char res[] = { 'r', 0, 'e', 's' };
    submit(c, P, job, sizeof job, id);

    q_entry e;
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_fetch(c, P, "w1", 100, &e, err, sizeof err), 1);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_string_equal(e.id, id);
    assert_true(e.has_job);
    assert_int_equal(e.job_len, sizeof job);
    assert_memory_equal(e.job, job, sizeof job);
    assert_int_equal(e.attempt, 1);

    redisReply *t = RUN(c, "TIME");
    long long before = atoll(t->element[0]->str);
    freeReplyObject(t);
    q_delivery d = result_for("job-1", "OK", res, sizeof res);
    rt = q_conn_round_trips(c);
    assert_int_equal(q_publish(c, P, "w1", e.id, &d, err, sizeof err), 1);
    assert_int_equal(q_conn_round_trips(c) - rt, 1); /* even the first time */

    redisReply *r = RUN(c, "LRANGE", P ":result:job-1", "0", "9");
    assert_int_equal(r->elements, 1);
    assert_int_equal(r->element[0]->len, sizeof res);
    assert_memory_equal(r->element[0]->str, res, sizeof res);
    freeReplyObject(r);
    long long ttl = LL(c, "TTL", P ":result:job-1");
    assert_true(ttl > 0 && ttl <= 600);
    r = RUN(c, "XRANGE", P ":results", "-", "+", "COUNT", "10");
    assert_int_equal(r->elements, 1);
    redisReply *f = r->element[0]->element[1];
    assert_int_equal(f->elements, 4);
    assert_string_equal(f->element[0]->str, "id");
    assert_string_equal(f->element[1]->str, "job-1");
    assert_string_equal(f->element[2]->str, "result");
    assert_memory_equal(f->element[3]->str, res, sizeof res);
    freeReplyObject(r);
    assert_int_equal(stat(c, P, "OK"), 1);
    assert_int_equal(stat(c, P, "jobs"), 1);
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 0); /* acked and deleted */
    r = RUN(c, "XPENDING", P ":jobs", "workers");
    assert_int_equal(r->element[0]->integer, 0);
    freeReplyObject(r);

    /* The per-second ring counted it in the second it happened. */
    t = RUN(c, "TIME");
    long long after = atoll(t->element[0]->str);
    freeReplyObject(t);
    r = RUN(c, "HGETALL", P ":rate");
    assert_int_equal(r->elements, 4);
    long long sec = -1, count = -1;
    for (size_t i = 0; i < r->elements; i += 2)
        *(r->element[i]->str[0] == 't' ? &sec : &count) = atoll(r->element[i + 1]->str);
    freeReplyObject(r);
    assert_true(sec >= before && sec <= after);
    assert_int_equal(count, 1);

    q_blob b;
    assert_int_equal(q_wait_result(c, P, "job-1", 1000, &b, err, sizeof err), 1);
    assert_int_equal(b.len, sizeof res);
    assert_memory_equal(b.data, res, sizeof res);
    q_blob_free(&b);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_publish_after_losing_entry_writes_nothing(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN], owner[Q_NAME_MAX + 1];
    submit(c, P, "job", 3, id);
    q_entry a, b;
    fetch(c, P, "A", &a);
    make_idle(c, a.id, "A", "60000"); /* A stalled */
    q_cursor cur = { "" };
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, &b, err, sizeof err), 1);
    assert_string_equal(b.id, a.id);
    assert_int_equal(b.attempt, 2);
    assert_memory_equal(b.job, "job", 3);

    q_delivery d = result_for("job-2", "OK", "late", 4);
    assert_int_equal(q_publish(c, P, "A", a.id, &d, err, sizeof err), 0);
    q_dead_letter dl = { .job = "job", .job_len = 3, .reason = "late", .maxlen = 100 };
    assert_int_equal(q_dead(c, P, "A", a.id, &dl, err, sizeof err), 0);
    assert_int_equal(q_touch(c, P, "A", a.id, err, sizeof err), 0);
    assert_int_equal(LL(c, "EXISTS", P ":result:job-2", P ":results", P ":stats", P ":rate",
                        P ":dead"), 0);
    assert_int_equal(delivery_count(c, a.id, owner), 2);
    assert_string_equal(owner, "B"); /* still B's, untouched */

    assert_int_equal(q_publish(c, P, "B", b.id, &d, err, sizeof err), 1);
    assert_int_equal(LL(c, "LLEN", P ":result:job-2"), 1);
    q_entry_free(&a);
    q_entry_free(&b);
    q_conn_close(c);
}

static void test_claim_only_idle_and_walks_pel(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN], ids[150][Q_ID_LEN];
    for (int i = 0; i < 150; i++) {
        submit(c, P, "x", 1, id);
        q_entry e;
        fetch(c, P, "A", &e);
        memcpy(ids[i], e.id, Q_ID_LEN);
        q_entry_free(&e);
    }
    q_cursor cur = { "" };
    q_entry e;
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, &e, err, sizeof err), 0); /* all fresh */

    /* Only the last entry is idle: one call examines 100 PEL entries, so
     * it takes a second call, resuming from the cursor, to reach it. */
    make_idle(c, ids[149], "A", "60000");
    memset(&cur, 0, sizeof cur);
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, &e, err, sizeof err), 0);
    assert_string_not_equal(cur.next, "0-0");
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, &e, err, sizeof err), 1);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_string_equal(e.id, ids[149]);
    assert_int_equal(e.attempt, 2);
    assert_string_equal(cur.next, "0-0"); /* end of the PEL: the next call starts over */
    q_entry_free(&e);

    make_idle(c, ids[0], "A", "60000");
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, &e, err, sizeof err), 1);
    assert_string_equal(e.id, ids[0]);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_touch_keeps_entry(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN], owner[Q_NAME_MAX + 1];
    q_entry e1, e2, got;
    submit(c, P, "1", 1, id);
    submit(c, P, "2", 1, id);
    fetch(c, P, "A", &e1);
    fetch(c, P, "A", &e2);
    make_idle(c, e1.id, "A", "60000");
    make_idle(c, e2.id, "A", "60000");

    const char *ids[] = { e1.id, e2.id, "1-1" /* never delivered */ };
    int owned[3] = { -1, -1, -1 };
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_touch_many(c, P, "A", ids, 3, owned, err, sizeof err), 2);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_int_equal(owned[0], 1);
    assert_int_equal(owned[1], 1);
    assert_int_equal(owned[2], 0);
    q_cursor cur = { "" };
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, &got, err, sizeof err), 0);
    assert_int_equal(delivery_count(c, e1.id, owner), 1); /* touch is no delivery */
    assert_string_equal(owner, "A");
    assert_int_equal(q_touch(c, P, "B", e1.id, err, sizeof err), 0); /* not B's */
    assert_int_equal(delivery_count(c, e1.id, owner), 1);
    assert_string_equal(owner, "A");

    const char *many[Q_TOUCH_MAX + 1];
    for (int i = 0; i <= Q_TOUCH_MAX; i++)
        many[i] = e1.id;
    int o[Q_TOUCH_MAX + 1];
    assert_int_equal(q_touch_many(c, P, "A", many, Q_TOUCH_MAX + 1, o, err, sizeof err), -1);
    q_entry_free(&e1);
    q_entry_free(&e2);
    q_conn_close(c);
}

static void test_dead_letter(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    static const char raw[] = { (char)0x81, 0, 'x' };
    submit(c, P, raw, sizeof raw, id);
    submit(c, P, "second", 6, id);
    q_entry e, e2;
    fetch(c, P, "A", &e);
    fetch(c, P, "A", &e2);

    q_delivery d = result_for("job-3", "INTERNAL_ERROR", "why", 3);
    q_dead_letter dl = { .job = e.job, .job_len = e.job_len, .reason = "crashed 5 workers",
                         .maxlen = 100, .result = &d };
    assert_int_equal(q_dead(c, P, "A", e.id, &dl, err, sizeof err), 1);
    redisReply *r = RUN(c, "XRANGE", P ":dead", "-", "+", "COUNT", "10");
    assert_int_equal(r->elements, 1);
    redisReply *f = r->element[0]->element[1];
    assert_int_equal(f->elements, 6);
    assert_string_equal(f->element[1]->str, e.id);
    assert_int_equal(f->element[3]->len, sizeof raw);
    assert_memory_equal(f->element[3]->str, raw, sizeof raw);
    assert_string_equal(f->element[5]->str, "crashed 5 workers");
    freeReplyObject(r);
    assert_int_equal(stat(c, P, "DEAD"), 1);
    assert_int_equal(stat(c, P, "INTERNAL_ERROR"), 1);
    assert_int_equal(LL(c, "LLEN", P ":result:job-3"), 1); /* the waiter hears of it */
    assert_int_equal(q_dead(c, P, "A", e.id, &dl, err, sizeof err), 0); /* gone already */

    /* Without a result: only the dead letter. */
    q_dead_letter bare = { .job = e2.job, .job_len = e2.job_len, .reason = "bad payload",
                           .maxlen = 100 };
    assert_int_equal(q_dead(c, P, "A", e2.id, &bare, err, sizeof err), 1);
    assert_int_equal(LL(c, "XLEN", P ":dead"), 2);
    assert_int_equal(stat(c, P, "DEAD"), 2);
    assert_int_equal(stat(c, P, "jobs"), 1);
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 0);
    q_entry_free(&e);
    q_entry_free(&e2);
    q_conn_close(c);
}

static void test_entry_without_job_field(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "";
    redisReply *r = RUN(c, "XADD", P ":jobs", "*", "other", "x");
    freeReplyObject(r);
    q_entry e;
    fetch(c, P, "A", &e);
    assert_false(e.has_job);
    assert_null(e.job);
    assert_int_equal(e.job_len, 0);
    q_dead_letter dl = { .reason = "no job field", .maxlen = 100 };
    assert_int_equal(q_dead(c, P, "A", e.id, &dl, err, sizeof err), 1);
    assert_int_equal(LL(c, "XLEN", P ":dead"), 1);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_claim_counts_deleted_entries_lost(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    submit(c, P, "x", 1, id);
    q_entry e;
    fetch(c, P, "A", &e);
    make_idle(c, e.id, "A", "60000");
    assert_int_equal(LL(c, "XDEL", P ":jobs", e.id), 1); /* trimmed by hand */
    q_cursor cur = { "" };
    q_entry got;
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, &got, err, sizeof err), 0);
    assert_int_equal(stat(c, P, "LOST"), 1);
    redisReply *r = RUN(c, "XPENDING", P ":jobs", "workers");
    assert_int_equal(r->element[0]->integer, 0);
    freeReplyObject(r);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_submit_refuses_when_full(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    assert_int_equal(q_submit(c, P, "a", 1, 2, id, err, sizeof err), 1);
    assert_int_equal(q_submit(c, P, "b", 1, 2, id, err, sizeof err), 1);
    assert_int_equal(q_submit(c, P, "c", 1, 2, id, err, sizeof err), 0);
    assert_string_equal(err, "queue full: 2 entries waiting (max 2)");
    assert_string_equal(id, "");
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 2);

    q_entry e;
    fetch(c, P, "A", &e);
    q_delivery d = result_for("j", "OK", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), 1);
    assert_int_equal(q_submit(c, P, "c", 1, 2, id, err, sizeof err), 1); /* room again */
    assert_int_equal(q_submit(c, P, "d", 1, 0, id, err, sizeof err), 1); /* 0: no cap */
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 3);
    q_entry_free(&e);
    q_conn_close(c);
}

/* A worker on its own connection: fetches one job, publishes its bytes. */
static void *worker_thread(void *arg)
{
    const char *job_id = arg;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "";
    q_entry e;
    int got = 0;
    for (int tries = 0; tries < 50 && got == 0; tries++)
        got = q_fetch(c, P, "T", 100, &e, err, sizeof err);
    if (got == 1) {
        q_delivery d = result_for(job_id, "OK", e.job, e.job_len);
        got = q_publish(c, P, "T", e.id, &d, err, sizeof err);
        q_entry_free(&e);
    }
    q_conn_close(c);
    return (void *)(intptr_t)got;
}

static void test_wait_result(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, worker_thread, "job-w"), 0);
    submit(c, P, "payload", 7, id);
    q_blob b;
    assert_int_equal(q_wait_result(c, P, "job-w", 10000, &b, err, sizeof err), 1);
    assert_int_equal(b.len, 7);
    assert_memory_equal(b.data, "payload", 7);
    q_blob_free(&b);
    void *ret;
    assert_int_equal(pthread_join(th, &ret), 0);
    assert_int_equal((intptr_t)ret, 1);
    assert_int_equal(LL(c, "EXISTS", P ":result:job-w"), 0); /* consumed */
    assert_int_equal(LL(c, "XLEN", P ":results"), 1);         /* kept */
    q_conn_close(c);

    /* Nothing comes: the wait is cut into slices shorter than the socket
     * timeout (block max 200 ms here) and ends after the timeout. */
    c = open_opts(&(q_conn_opts){ .command_timeout_ms = 400 });
    struct timespec t0, t1;
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t0), 0);
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_wait_result(c, P, "none", 500, &b, err, sizeof err), 0);
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t1), 0);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000L + (t1.tv_nsec - t0.tv_nsec) / 1000000L;
    assert_true(ms >= 490);
    /* Each slice lasts at least its 200 ms (Redis may end it up to ~100 ms
     * late), so 500 ms needs two or three. */
    assert_true(q_conn_round_trips(c) - rt >= 2);
    assert_int_equal(q_conn_reconnects(c), 0); /* no socket timeout fired */
    q_conn_close(c);
}

static void test_worker_registry(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "";
    q_worker_info w1 = { .name = "host-a:101", .host = "host-a", .version = "1.2.3",
                         .pid = 101, .threads = 4, .busy = 3, .jobs_done = 77,
                         .started_at = 1700000000, .last_seen = 1700000100 };
    q_worker_info w2 = { .name = "host-b:202", .host = "host-b", .version = "1.2.3", .pid = 202 };
    q_worker_info other = { .name = "elsewhere", .host = "h", .version = "v" };
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_worker_beat(c, P, &w1, 30, err, sizeof err), 0);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_int_equal(q_worker_beat(c, P, &w2, 30, err, sizeof err), 0);
    assert_int_equal(q_worker_beat(c, "g?", &other, 30, err, sizeof err), 0);
    long long ttl = LL(c, "TTL", P ":worker:host-a:101");
    assert_true(ttl > 0 && ttl <= 30);

    q_worker_info list[4];
    bool trunc = true;
    assert_int_equal(q_workers_list(c, P, list, 4, &trunc, err, sizeof err), 2);
    assert_false(trunc);
    const q_worker_info *a = !strcmp(list[0].name, w1.name) ? &list[0] : &list[1];
    assert_string_equal(a->name, "host-a:101");
    assert_string_equal(a->host, "host-a");
    assert_string_equal(a->version, "1.2.3");
    assert_int_equal(a->pid, 101);
    assert_int_equal(a->threads, 4);
    assert_int_equal(a->busy, 3);
    assert_int_equal(a->jobs_done, 77);
    assert_int_equal(a->started_at, 1700000000);
    assert_int_equal(a->last_seen, 1700000100);
    /* "g?" must match itself only, not "gq": the prefix is glob-escaped. */
    assert_int_equal(q_workers_list(c, "g?", list, 4, &trunc, err, sizeof err), 1);
    assert_string_equal(list[0].name, "elsewhere");
    assert_int_equal(q_workers_list(c, P, list, 1, &trunc, err, sizeof err), 1);
    assert_true(trunc);

    assert_int_equal(q_worker_gone(c, P, w1.name, err, sizeof err), 0);
    assert_int_equal(q_workers_list(c, P, list, 4, &trunc, err, sizeof err), 1);
    assert_string_equal(list[0].name, "host-b:202");
    q_conn_close(c);
}

static const long long *counter(const q_stats *s, const char *name)
{
    for (size_t i = 0; i < s->ncounters; i++)
        if (!strcmp(s->counters[i].name, name))
            return &s->counters[i].value;
    return NULL;
}

static void test_stats(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN], now[32], t1[32], t2[32], stale[32];
    q_stats s;
    assert_int_equal(q_stats_read(c, "empty", &s, err, sizeof err), 0);
    assert_int_equal(s.length, 0);
    assert_int_equal(s.oldest_pending_ms, -1);
    assert_int_equal(s.oldest_waiting_ms, -1);

    for (int i = 0; i < 4; i++)
        submit(c, P, "j", 1, id);
    assert_int_equal(q_stats_read(c, P, &s, err, sizeof err), 0); /* nothing delivered yet */
    assert_int_equal(s.length, 4);
    assert_int_equal(s.waiting, 4);
    assert_int_equal(s.pending, 0);
    assert_int_equal(s.nconsumers, 0);
    assert_true(s.oldest_waiting_ms >= 0 && s.oldest_waiting_ms < 60000);
    assert_int_equal(s.oldest_pending_ms, -1);
    q_entry e1, e2, e3;
    fetch(c, P, "A", &e1);
    fetch(c, P, "A", &e2);
    fetch(c, P, "B", &e3);
    q_delivery d = result_for("s1", "OK", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e1.id, &d, err, sizeof err), 1);
    q_dead_letter dl = { .job = "j", .job_len = 1, .reason = "r", .maxlen = 10 };
    assert_int_equal(q_dead(c, P, "B", e3.id, &dl, err, sizeof err), 1);

    /* Plant two buckets inside the last minute and one outside it. */
    redisReply *r = RUN(c, "TIME");
    long long sec = atoll(r->element[0]->str);
    freeReplyObject(r);
    (void)snprintf(t1, sizeof t1, "%lld", sec - 10);
    (void)snprintf(t2, sizeof t2, "%lld", sec - 59);
    (void)snprintf(stale, sizeof stale, "%lld", sec - 100);
    (void)snprintf(now, sizeof now, "%lld", sec);
    r = RUN(c, "HSET", P ":rate", "t60", t1, "n60", "90", "t61", t2, "n61", "30", "t62", stale,
            "n62", "999");
    freeReplyObject(r);

    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_stats_read(c, P, &s, err, sizeof err), 0);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_int_equal(s.length, 2);  /* e2 running, the 4th waiting */
    assert_int_equal(s.pending, 1);
    assert_int_equal(s.waiting, 1);
    assert_int_equal(s.dead, 1);
    assert_true(s.oldest_pending_ms >= 0 && s.oldest_pending_ms < 60000);
    assert_true(s.oldest_waiting_ms >= 0 && s.oldest_waiting_ms < 60000);
    assert_int_equal(s.nconsumers, 1);
    assert_false(s.consumers_truncated);
    assert_string_equal(s.consumers[0].name, "A");
    assert_int_equal(s.consumers[0].pending, 1);
    /* 120 results in the window: 2/s. The publish above happened in the
     * current second (or just before: then it adds 1/60). */
    assert_true(s.jobs_per_s >= 2.0 && s.jobs_per_s <= 2.0 + 1.0 / 60 + 1e-9);
    assert_non_null(counter(&s, "OK"));
    assert_int_equal(*counter(&s, "OK"), 1);
    assert_int_equal(*counter(&s, "jobs"), 1);
    assert_int_equal(*counter(&s, "DEAD"), 1);
    assert_false(s.counters_truncated);
    q_entry_free(&e1);
    q_entry_free(&e2);
    q_entry_free(&e3);
    q_conn_close(c);
}

static void test_hash_tag_prefix(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    assert_int_equal(q_group_ensure(c, "{gq}", err, sizeof err), 0);
    submit(c, "{gq}", "job", 3, id);
    q_entry e;
    fetch(c, "{gq}", "A", &e);
    q_delivery d = result_for("t1", "OK", "res", 3);
    assert_int_equal(q_publish(c, "{gq}", "A", e.id, &d, err, sizeof err), 1);
    assert_int_equal(LL(c, "LLEN", "{gq}:result:t1"), 1);
    assert_int_equal(LL(c, "XLEN", "{gq}:results"), 1);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_fetch_recreates_deleted_group(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char id[Q_ID_LEN];
    assert_int_equal(LL(c, "DEL", P ":jobs"), 1);
    q_entry e;
    assert_int_equal(q_fetch(c, P, "A", 0, &e, NULL, 0), 0); /* err is optional */
    assert_int_equal(LL(c, "EXISTS", P ":jobs"), 1);
    submit(c, P, "x", 1, id);
    fetch(c, P, "A", &e);
    assert_string_equal(e.id, id);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_bad_arguments_write_nothing(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    submit(c, P, "x", 1, id);
    q_entry e;
    fetch(c, P, "A", &e);
    q_delivery d = result_for("ok-id", "lower", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "must be [A-Z0-9_]"));
    d = result_for("ok-id", "DEAD", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "status \"DEAD\" is reserved"));
    q_worker_info w = { .name = "bad name" };
    assert_int_equal(q_worker_beat(c, P, &w, 10, err, sizeof err), -1);
    assert_non_null(strstr(err, "worker name may only hold"));
    d = result_for("has space", "OK", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_string_equal(err, "queue: job id must be 1..128 bytes of [A-Za-z0-9._:-]");
    d = result_for("ok-id", "OK", "r", 1);
    d.ttl_s = 0;
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "ttl_s > 0"));
    d.ttl_s = 60;
    assert_int_equal(q_publish(c, P, "A", "12-x", &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad entry id \"12-x\""));
    assert_int_equal(q_publish(c, P, "", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "consumer must be 1..64 bytes"));
    assert_int_equal(q_publish(c, "a b", "A", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "prefix may only hold"));
    assert_int_equal(LL(c, "EXISTS", P ":stats", P ":results"), 0);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), 1); /* still ours */
    q_entry_free(&e);
    q_conn_close(c);
}

/* Regression: stream.h allowed job ids of [!-~]{1,128} while the job
 * decoder accepts only [A-Za-z0-9._:-]{1,128}, so a client could wait for
 * "a/b", an id no worker can answer under. Now q_publish, q_dead and
 * q_wait_result accept an id exactly when q_job_decode does. */
static bool decoder_takes(const char *id)
{
    char err[Q_ERR_LEN] = "", buf[16 + Q_ID_MAX + 1];
    size_t n = strlen(id), o = 6;
    q_job j;
    assert_true(n <= Q_ID_MAX + 1);
    memcpy(buf, "\x82\xa2id\xd9", 5); /* {"id": <str8 id>, "argv": ["x"]} */
    buf[5] = (char)n;
    memcpy(buf + o, id, n);
    o += n;
    memcpy(buf + o, "\xa4" "argv\x91\xa1x", 8);
    int rc = q_job_decode(buf, o + 8, NULL, &j, err, sizeof err);
    q_job_free(&j);
    return rc == 0;
}

static void test_job_id_rule_is_the_decoders(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "", entry[Q_ID_LEN], id[Q_ID_MAX + 2];
    submit(c, P, "x", 1, entry);
    q_entry e;
    fetch(c, P, "A", &e);
    q_blob b;
    /* Every one-byte id, then the longest id and one byte more. */
    for (int i = 0; i < 258; i++) {
        if (i < 256) {
            id[0] = (char)(i ? i : 'a');
            id[1] = '\0';
        } else {
            memset(id, 'i', Q_ID_MAX + 1);
            id[Q_ID_MAX + (i - 256)] = '\0';
        }
        bool valid = decoder_takes(id);
        assert_int_equal(valid, q_id_valid(id, strlen(id)));
        q_delivery d = result_for(id, "OK", "r", 1);
        q_dead_letter dl = { "x", 1, "why", 10, &d };
        if (valid) {
            assert_int_equal(q_wait_result(c, P, id, 1, &b, err, sizeof err), 0);
            continue;
        }
        assert_int_equal(q_wait_result(c, P, id, 1, &b, err, sizeof err), -1);
        assert_string_equal(err, "queue: job id must be 1..128 bytes of [A-Za-z0-9._:-]");
        assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
        assert_string_equal(err, "queue: job id must be 1..128 bytes of [A-Za-z0-9._:-]");
        assert_int_equal(q_dead(c, P, "A", e.id, &dl, err, sizeof err), -1);
        assert_string_equal(err, "queue: job id must be 1..128 bytes of [A-Za-z0-9._:-]");
    }
    assert_true(decoder_takes("sub-42:run.1_A") && !decoder_takes("a/b") && !decoder_takes(""));
    assert_int_equal(LL(c, "EXISTS", P ":stats", P ":results", P ":dead"), 0);
    q_delivery d = result_for("sub-42:run.1_A", "OK", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), 1); /* still ours */
    assert_int_equal(q_wait_result(c, P, "sub-42:run.1_A", 1000, &b, err, sizeof err), 1);
    q_blob_free(&b);
    q_entry_free(&e);
    q_conn_close(c);
}

/* A worker's pending entry survives a Redis restart (AOF on); its first
 * command after the restart fails, the next reconnects and publishes with
 * the script reloaded. */
static void test_pending_survives_restart(void **state)
{
    rs_server *s = *state;
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    q_redis_addr addr;
    assert_int_equal(q_redis_url_parse(s->url, &addr, err, sizeof err), 0);
    q_conn *c = q_conn_open(&addr, NULL, err, sizeof err);
    assert_non_null(c);
    assert_int_equal(q_group_ensure(c, P, err, sizeof err), 0);
    submit(c, P, "durable", 7, id);
    q_entry e;
    fetch(c, P, "A", &e);
    q_delivery d = result_for("dur", "OK", "r", 1);
    assert_int_equal(q_touch(c, P, "A", e.id, err, sizeof err), 1); /* loads a script */

    assert_int_equal(rs_stop(s, err, sizeof err), 0);
    if (rs_restart(s, err, sizeof err) < 0)
        fail_msg("restart: %s", err);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "connection closed by server"));
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), 1);
    assert_int_equal(q_conn_reconnects(c), 1);
    assert_int_equal(LL(c, "LLEN", P ":result:dur"), 1);
    q_entry_free(&e);
    q_conn_close(c);
}

/* A server of its own, with AOF, in a fixture: the teardown runs even
 * when the test fails, so no server directory is left behind. */
static int own_aof_server(void **state)
{
    static rs_server s;
    char err[Q_ERR_LEN];
    if (rs_start(&s, &(rs_opts){ .aof = true }, err, sizeof err) < 0) {
        fprintf(stderr, "rs_start: %s\n", err);
        return -1;
    }
    *state = &s;
    return 0;
}

static int own_teardown(void **state)
{
    rs_destroy(*state);
    return 0;
}

static int fresh_db(void **state)
{
    (void)state;
    q_conn *c = open_conn();
    char err[Q_ERR_LEN] = "";
    redisReply *r = RUN(c, "FLUSHALL");
    freeReplyObject(r);
    if (q_group_ensure(c, P, err, sizeof err) < 0)
        fail_msg("group: %s", err);
    q_conn_close(c);
    return 0;
}

static int group_setup(void **state)
{
    (void)state;
    char err[Q_ERR_LEN];
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR || rs_start(&shared, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "redis-server: %s\n", err);
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    rs_destroy(&shared);
    return 0;
}

#define T(f) cmocka_unit_test_setup(f, fresh_db)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_group_ensure_is_idempotent),
        T(test_fetch_without_job),
        T(test_fetch_publish_round_trip),
        T(test_publish_after_losing_entry_writes_nothing),
        T(test_claim_only_idle_and_walks_pel),
        T(test_touch_keeps_entry),
        T(test_dead_letter),
        T(test_entry_without_job_field),
        T(test_claim_counts_deleted_entries_lost),
        T(test_submit_refuses_when_full),
        T(test_wait_result),
        T(test_worker_registry),
        T(test_stats),
        T(test_hash_tag_prefix),
        T(test_fetch_recreates_deleted_group),
        T(test_bad_arguments_write_nothing),
        T(test_job_id_rule_is_the_decoders),
        cmocka_unit_test_setup_teardown(test_pending_survives_restart, own_aof_server, own_teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
