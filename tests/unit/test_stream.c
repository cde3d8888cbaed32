/* test_stream.c -- the worker's side of the job protocol (queue/stream.c)
 * against a real redis-server: the consumer group, fetch/publish round
 * trips, fencing after a claim, claim and touch, dead letters, argument
 * checks and a pending entry surviving a restart. The client's side
 * (submit, waiting for results, the worker registry, the stats) is in
 * test_stream_client.c; the shared fixtures in tests/lib/stream_fixtures.h.
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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "queue/stream.h"
#include "tests/lib/redis_server.h"
#include "tests/lib/stream_fixtures.h"

/* The shared helpers under the short names the checks below use. */
#define P SF_P
#define RUN SF_RUN
#define LL SF_LL

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

/* ------------------------------------------------------------------ tests */

static void test_group_ensure_is_idempotent(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
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
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    q_entry e;
    assert_int_equal(q_fetch(c, P, "w1", 0, 0, &e, err, sizeof err), 0);
    assert_int_equal(q_fetch(c, P, "w1", 30, 0, &e, err, sizeof err), 0);
    assert_int_equal(q_fetch(c, P, "w1", 2001, 0, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "block_ms 2001 outside 0..2000"));
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_fetch_publish_round_trip(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    static const char job[] = { 'j', 0, 1, '\r', '\n', (char)0xc1 };
    static const char res[] = { 'r', 0, 'e', 's' };
    sf_submit(c, P, job, sizeof job, id);

    q_entry e;
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_fetch(c, P, "w1", 100, 0, &e, err, sizeof err), 1);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_string_equal(e.id, id);
    assert_true(e.has_job);
    assert_int_equal(e.job_len, sizeof job);
    assert_memory_equal(e.job, job, sizeof job);
    assert_int_equal(e.attempt, 1);

    redisReply *t = RUN(c, "TIME");
    long long before = atoll(t->element[0]->str);
    freeReplyObject(t);
    q_delivery d = sf_result_for("job-1", "OK", res, sizeof res);
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
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", owner[Q_NAME_MAX + 1];
    q_entry a, b;
    sf_submit_fetch(c, P, "job", 3, "A", &a);
    make_idle(c, a.id, "A", "60000"); /* A stalled */
    q_cursor cur = { "" };
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, 0, &b, err, sizeof err), 1);
    assert_string_equal(b.id, a.id);
    assert_int_equal(b.attempt, 2);
    assert_memory_equal(b.job, "job", 3);

    q_delivery d = sf_result_for("job-2", "OK", "late", 4);
    assert_int_equal(q_publish(c, P, "A", a.id, &d, err, sizeof err), 0);
    q_dead_letter dl = { .reason = "late", .maxlen = 100 };
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
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", ids[150][Q_ID_LEN];
    for (int i = 0; i < 150; i++) {
        q_entry e;
        sf_submit_fetch(c, P, "x", 1, "A", &e);
        memcpy(ids[i], e.id, Q_ID_LEN);
        q_entry_free(&e);
    }
    q_cursor cur = { "" };
    q_entry e;
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, 0, &e, err, sizeof err), 0); /* all fresh */

    /* Only the last entry is idle: one call examines 100 PEL entries, so
     * it takes a second call, resuming from the cursor, to reach it. */
    make_idle(c, ids[149], "A", "60000");
    memset(&cur, 0, sizeof cur);
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, 0, &e, err, sizeof err), 0);
    assert_string_not_equal(cur.next, "0-0");
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, 0, &e, err, sizeof err), 1);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_string_equal(e.id, ids[149]);
    assert_int_equal(e.attempt, 2);
    assert_string_equal(cur.next, "0-0"); /* end of the PEL: the next call starts over */
    q_entry_free(&e);

    make_idle(c, ids[0], "A", "60000");
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, 0, &e, err, sizeof err), 1);
    assert_string_equal(e.id, ids[0]);
    q_entry_free(&e);
    q_conn_close(c);
}

/* A drained worker hands its entry back: another worker claims it at
 * once, and the delivery count is what it was before the drained one took
 * it, however many drains it goes through. Only the owner can. */
static void test_release_hands_back_uncounted(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", owner[Q_NAME_MAX + 1];
    q_entry e;
    sf_submit_fetch(c, P, "x", 1, "A", &e);
    char id[Q_ID_LEN];
    memcpy(id, e.id, sizeof id);
    q_entry_free(&e);
    assert_int_equal(q_release(c, P, "B", id, 30000, err, sizeof err), 0); /* not B's */
    assert_int_equal(delivery_count(c, id, owner), 1);
    const char *who = "A";
    for (int drain = 0; drain < 5; drain++) {
        assert_int_equal(q_release(c, P, who, id, 30000, err, sizeof err), 1);
        assert_int_equal(delivery_count(c, id, owner), 0);
        q_cursor cur = { "" };
        const char *next = drain % 2 ? "A" : "B";
        assert_int_equal(q_claim(c, P, next, 30000, &cur, 0, &e, err, sizeof err), 1);
        assert_string_equal(e.id, id);
        assert_int_equal(e.attempt, 1); /* as on its first delivery */
        q_entry_free(&e);
        who = next;
    }
    assert_int_equal(delivery_count(c, id, owner), 1);
    assert_string_equal(owner, who);
    q_conn_close(c);
}

/* The blocking read of an empty queue, in a thread: the entry comes whole
 * from XREADGROUP, not from the fetch script. */
typedef struct blocked_fetch {
    q_conn *c;
    q_entry e;
    int rc;
} blocked_fetch;

static void *fetch_blocking(void *arg)
{
    blocked_fetch *b = arg;
    char err[Q_ERR_LEN];
    b->rc = q_fetch(b->c, P, "A", 2000, 64 * 1024, &b->e, err, sizeof err);
    return NULL;
}

/* An entry's own job_bytes field does not pass for a cut: it would answer
 * a whole small job "over --max-job-bytes". Neither through the fetch
 * script nor when the entry comes whole from a blocked XREADGROUP. */
static void test_own_job_bytes_ignored(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    redisReply *r = RUN(c, "XADD", P ":jobs", "*", "job", "small", "job_bytes", "999999");
    freeReplyObject(r);
    q_entry e;
    assert_int_equal(q_fetch(c, P, "A", 0, 64 * 1024, &e, err, sizeof err), 1);
    assert_int_equal(e.job_len, 5);
    assert_int_equal(e.job_bytes, 5);
    q_entry_free(&e);

    blocked_fetch b = { .c = sf_open(NULL) };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fetch_blocking, &b), 0);
    /* Until the thread's XREADGROUP is blocked; the bound, 30 s, only
     * catches a hang (with 2 s, a busy machine's thread not blocked yet
     * failed the test; once blocked it waits 2 s for the entry, which the
     * next call here sends). */
    bool blocked = false;
    for (int i = 0; i < 6000 && !blocked; i++) {
        r = RUN(c, "CLIENT", "LIST");
        blocked = strstr(r->str, "flags=b") != NULL; /* blocked now, not only its last command */
        freeReplyObject(r);
        if (!blocked)
            nanosleep(&(struct timespec){ 0, 5 * 1000000 }, NULL);
    }
    r = RUN(c, "XADD", P ":jobs", "*", "job", "small", "job_bytes", "999999");
    freeReplyObject(r);
    pthread_join(t, NULL);
    assert_true(blocked);
    assert_int_equal(b.rc, 1);
    assert_int_equal(b.e.job_len, 5);
    assert_int_equal(b.e.job_bytes, 5);
    q_entry_free(&b.e);
    q_conn_close(b.c);
    q_conn_close(c);
}

static void test_touch_keeps_entry(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN], owner[Q_NAME_MAX + 1];
    q_entry e1, e2, got;
    sf_submit(c, P, "1", 1, id);
    sf_submit(c, P, "2", 1, id);
    sf_fetch(c, P, "A", &e1);
    sf_fetch(c, P, "A", &e2);
    make_idle(c, e1.id, "A", "60000");
    make_idle(c, e2.id, "A", "60000");

    /* One round trip for the entries of several consumers (the slots of
     * one worker), each fenced by its own. */
    const char *ids[] = { e1.id, e2.id, "1-1" /* never delivered */, e2.id };
    const char *who[] = { "A", "A", "A", "B" /* not B's */ };
    int owned[4] = { -1, -1, -1, -1 };
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_touch_many(c, P, who, ids, 4, owned, err, sizeof err), 2);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_int_equal(owned[0], 1);
    assert_int_equal(owned[1], 1);
    assert_int_equal(owned[2], 0);
    assert_int_equal(owned[3], 0);
    q_cursor cur = { "" };
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, 0, &got, err, sizeof err), 0);
    assert_int_equal(delivery_count(c, e1.id, owner), 1); /* touch is no delivery */
    assert_string_equal(owner, "A");
    assert_int_equal(q_touch(c, P, "B", e1.id, err, sizeof err), 0); /* not B's */
    assert_int_equal(delivery_count(c, e1.id, owner), 1);
    assert_string_equal(owner, "A");

    const char *many[Q_TOUCH_MAX + 1];
    for (int i = 0; i <= Q_TOUCH_MAX; i++)
        many[i] = e1.id;
    const char *as[Q_TOUCH_MAX + 1];
    for (int i = 0; i <= Q_TOUCH_MAX; i++)
        as[i] = "A";
    int o[Q_TOUCH_MAX + 1];
    assert_int_equal(q_touch_many(c, P, as, many, Q_TOUCH_MAX + 1, o, err, sizeof err), -1);
    q_entry_free(&e1);
    q_entry_free(&e2);
    q_conn_close(c);
}

static void test_dead_letter(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    static const char raw[] = { (char)0x81, 0, 'x' };
    sf_submit(c, P, raw, sizeof raw, id);
    sf_submit(c, P, "second", 6, id);
    q_entry e, e2;
    sf_fetch(c, P, "A", &e);
    sf_fetch(c, P, "A", &e2);

    q_delivery d = sf_result_for("job-3", "INTERNAL_ERROR", "why", 3);
    q_dead_letter dl = { .reason = "crashed 5 workers", .maxlen = 100, .result = &d };
    assert_int_equal(q_dead(c, P, "A", e.id, &dl, err, sizeof err), 1);
    redisReply *r = RUN(c, "XRANGE", P ":dead", "-", "+", "COUNT", "10");
    assert_int_equal(r->elements, 1);
    redisReply *f = r->element[0]->element[1];
    assert_int_equal(f->elements, 6);
    assert_string_equal(f->element[0]->str, "entry");
    assert_string_equal(f->element[1]->str, e.id);
    assert_string_equal(f->element[3]->str, "crashed 5 workers");
    assert_string_equal(f->element[4]->str, "job");
    assert_int_equal(f->element[5]->len, sizeof raw);
    assert_memory_equal(f->element[5]->str, raw, sizeof raw);
    freeReplyObject(r);
    assert_int_equal(stat(c, P, "DEAD"), 1);
    assert_int_equal(stat(c, P, "INTERNAL_ERROR"), 1);
    assert_int_equal(LL(c, "LLEN", P ":result:job-3"), 1); /* the waiter hears of it */
    assert_int_equal(q_dead(c, P, "A", e.id, &dl, err, sizeof err), 0); /* gone already */

    /* Without a result: only the dead letter. */
    q_dead_letter bare = { .reason = "bad payload", .maxlen = 100 };
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
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    redisReply *r = RUN(c, "XADD", P ":jobs", "*", "other", "x");
    freeReplyObject(r);
    q_entry e;
    sf_fetch(c, P, "A", &e);
    assert_false(e.has_job);
    assert_null(e.job);
    assert_int_equal(e.job_len, 0);
    q_dead_letter dl = { .reason = "no job field", .maxlen = 100 };
    assert_int_equal(q_dead(c, P, "A", e.id, &dl, err, sizeof err), 1);
    assert_int_equal(LL(c, "XLEN", P ":dead"), 1);
    /* The entry's own fields are kept, not replaced by an empty job. */
    r = RUN(c, "XRANGE", P ":dead", "-", "+");
    redisReply *f = r->element[0]->element[1];
    assert_int_equal(f->elements, 6);
    assert_string_equal(f->element[4]->str, "other");
    assert_string_equal(f->element[5]->str, "x");
    freeReplyObject(r);
    q_entry_free(&e);
    q_conn_close(c);
}

/* A job over the cap never leaves Redis whole: the worker gets its first
 * Q_JOB_KEEP bytes and its length, P:dead keeps no more (fetched waiting,
 * claimed, or arriving during a blocking read). */
/* ttl 0 (the worker's --result-lists no): the result goes to P:results
 * only, no per-job list is left behind. */
static void test_publish_without_list(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    q_entry e;
    sf_submit_fetch(c, P, "j", 1, "A", &e);
    q_delivery d = sf_result_for("nolist", "OK", "r", 1);
    d.ttl_s = 0;
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), 1);
    assert_int_equal(LL(c, "EXISTS", P ":result:nolist"), 0);
    assert_int_equal(LL(c, "XLEN", P ":results"), 1);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_oversized_job_cut(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    static char big[1 << 20];
    memset(big, 'j', sizeof big);
    sf_submit(c, P, big, sizeof big, id);
    sf_submit(c, P, "small", 5, id);
    q_entry e, s;
    assert_int_equal(q_fetch(c, P, "A", 0, 64 * 1024, &e, err, sizeof err), 1);
    assert_true(e.has_job);
    assert_int_equal(e.job_len, Q_JOB_KEEP);
    assert_int_equal(e.job_bytes, sizeof big);
    assert_int_equal(q_fetch(c, P, "A", 0, 64 * 1024, &s, err, sizeof err), 1);
    assert_int_equal(s.job_len, 5);
    assert_int_equal(s.job_bytes, 5);
    q_dead_letter dl = { .reason = "too big", .maxlen = 100, .max_job = 64 * 1024 };
    assert_int_equal(q_dead(c, P, "A", e.id, &dl, err, sizeof err), 1);
    redisReply *r = RUN(c, "XRANGE", P ":dead", "-", "+");
    redisReply *f = r->element[0]->element[1];
    assert_int_equal(f->elements, 8);
    assert_string_equal(f->element[4]->str, "job");
    assert_int_equal(f->element[5]->len, Q_JOB_KEEP);
    assert_string_equal(f->element[6]->str, "job_bytes");
    assert_string_equal(f->element[7]->str, "1048576");
    freeReplyObject(r);
    q_entry_free(&e);
    q_entry_free(&s);
    /* Claimed after its consumer went silent: cut the same way. */
    sf_submit(c, P, big, sizeof big, id);
    assert_int_equal(q_fetch(c, P, "A", 0, 0, &e, err, sizeof err), 1);
    assert_int_equal(e.job_len, sizeof big); /* no cap: whole */
    q_entry_free(&e);
    q_cursor cur = { "0-0" };
    assert_int_equal(q_claim(c, P, "B", 0, &cur, 64 * 1024, &e, err, sizeof err), 1);
    assert_int_equal(e.job_len, 5); /* "small", still pending first */
    q_entry_free(&e);
    assert_int_equal(q_claim(c, P, "B", 0, &cur, 64 * 1024, &e, err, sizeof err), 1);
    assert_int_equal(e.job_len, Q_JOB_KEEP);
    assert_int_equal(e.job_bytes, sizeof big);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_claim_counts_deleted_entries_lost(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    q_entry e;
    sf_submit_fetch(c, P, "x", 1, "A", &e);
    make_idle(c, e.id, "A", "60000");
    assert_int_equal(LL(c, "XDEL", P ":jobs", e.id), 1); /* trimmed by hand */
    q_cursor cur = { "" };
    q_entry got;
    assert_int_equal(q_claim(c, P, "B", 30000, &cur, 0, &got, err, sizeof err), 0);
    assert_int_equal(stat(c, P, "LOST"), 1);
    redisReply *r = RUN(c, "XPENDING", P ":jobs", "workers");
    assert_int_equal(r->element[0]->integer, 0);
    freeReplyObject(r);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_hash_tag_prefix(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    assert_int_equal(q_group_ensure(c, "{gq}", err, sizeof err), 0);
    q_entry e;
    sf_submit_fetch(c, "{gq}", "job", 3, "A", &e);
    q_delivery d = sf_result_for("t1", "OK", "res", 3);
    assert_int_equal(q_publish(c, "{gq}", "A", e.id, &d, err, sizeof err), 1);
    assert_int_equal(LL(c, "LLEN", "{gq}:result:t1"), 1);
    assert_int_equal(LL(c, "XLEN", "{gq}:results"), 1);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_fetch_recreates_deleted_group(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char id[Q_ID_LEN];
    assert_int_equal(LL(c, "DEL", P ":jobs"), 1);
    q_entry e;
    assert_int_equal(q_fetch(c, P, "A", 0, 0, &e, NULL, 0), 0); /* err is optional */
    assert_int_equal(LL(c, "EXISTS", P ":jobs"), 1);
    sf_submit(c, P, "x", 1, id);
    sf_fetch(c, P, "A", &e);
    assert_string_equal(e.id, id);
    q_entry_free(&e);
    q_conn_close(c);
}

static void test_bad_arguments_write_nothing(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    q_entry e;
    sf_submit_fetch(c, P, "x", 1, "A", &e);
    q_delivery d = sf_result_for("ok-id", "lower", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "must be [A-Z0-9_]"));
    d = sf_result_for("ok-id", "DEAD", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "status \"DEAD\" is reserved"));
    q_worker_info w = { .name = "bad name" };
    assert_int_equal(q_worker_beat(c, P, &w, 10, err, sizeof err), -1);
    assert_non_null(strstr(err, "worker name may only hold"));
    d = sf_result_for("has space", "OK", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_string_equal(err, "queue: job id must be 1..128 bytes of [A-Za-z0-9._:-]");
    d = sf_result_for("ok-id", "OK", "r", 1);
    d.ttl_s = -1;
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "ttl_s >= 0"));
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

/* A worker's pending entry survives a Redis restart (AOF on); its first
 * command after the restart fails, the next reconnects and publishes with
 * the script reloaded. */
static void test_pending_survives_restart(void **state)
{
    rs_server *s = *state;
    char err[Q_ERR_LEN] = "";
    q_redis_addr addr;
    assert_int_equal(q_redis_url_parse(s->url, &addr, err, sizeof err), 0);
    q_conn *c = q_conn_open(&addr, NULL, err, sizeof err);
    assert_non_null(c);
    assert_int_equal(q_group_ensure(c, P, err, sizeof err), 0);
    q_entry e;
    sf_submit_fetch(c, P, "durable", 7, "A", &e);
    q_delivery d = sf_result_for("dur", "OK", "r", 1);
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

/* A server of its own, with AOF: the fixture's teardown runs even when the
 * test fails, so no server directory is left behind. */
static int own_aof_server(void **state)
{
    return sf_own_server(state, &(rs_opts){ .aof = true });
}

#define T(f) cmocka_unit_test_setup(f, sf_fresh_stream)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_group_ensure_is_idempotent),
        T(test_fetch_without_job),
        T(test_fetch_publish_round_trip),
        T(test_publish_after_losing_entry_writes_nothing),
        T(test_claim_only_idle_and_walks_pel),
        T(test_release_hands_back_uncounted),
        T(test_own_job_bytes_ignored),
        T(test_touch_keeps_entry),
        T(test_dead_letter),
        T(test_oversized_job_cut),
        T(test_publish_without_list),
        T(test_entry_without_job_field),
        T(test_claim_counts_deleted_entries_lost),
        T(test_hash_tag_prefix),
        T(test_fetch_recreates_deleted_group),
        T(test_bad_arguments_write_nothing),
        cmocka_unit_test_setup_teardown(test_pending_survives_restart, own_aof_server,
                                        sf_own_teardown),
    };
    return cmocka_run_group_tests(tests, sf_group_setup, sf_group_teardown);
}
