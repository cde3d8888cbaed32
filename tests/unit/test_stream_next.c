/* test_stream_next.c -- q_publish_next (queue/stream.c) against a real
 * redis-server: a busy worker's whole cycle in one round trip. The result
 * is published exactly as q_publish publishes it, the next job is read as
 * q_fetch reads one (first delivery, cut over the cap before it leaves
 * Redis), a lost entry neither writes nor reads, and an empty queue gives
 * a published result and no entry; q_wait_job, the wait after it. The rest of the worker's side is in
 * test_stream.c; the shared fixtures in tests/lib/stream_fixtures.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/stream.h"
#include "tests/lib/redis_server.h"
#include "tests/lib/stream_fixtures.h"

#define P SF_P
#define RUN SF_RUN
#define LL SF_LL

/* Consumer `who` owns entry `id`, delivered `count` times. */
static void assert_pending(q_conn *c, const char *id, const char *who, long long count)
{
    redisReply *r = RUN(c, "XPENDING", P ":jobs", "workers", id, id, "1");
    assert_int_equal(r->elements, 1);
    assert_string_equal(r->element[0]->element[1]->str, who);
    assert_int_equal(r->element[0]->element[3]->integer, count);
    freeReplyObject(r);
}

static void test_publish_brings_the_next_job(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id2[Q_ID_LEN];
    static const char job2[] = { 'n', 0, 'x', '\r', '\n' };
    q_entry e, next;
    sf_submit_fetch(c, P, "job1", 4, "w1", &e);
    sf_submit(c, P, job2, sizeof job2, id2);

    q_delivery d = sf_result_for("job-1", "OK", "res", 3);
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_publish_next(c, P, "w1", e.id, &d, 0, &next, err, sizeof err), 1);
    assert_int_equal(q_conn_round_trips(c) - rt, 1); /* the script's first run on this connection too */
    /* Published as q_publish does it. */
    assert_int_equal(LL(c, "LLEN", P ":result:job-1"), 1);
    assert_int_equal(LL(c, "XLEN", P ":results"), 1);
    redisReply *r = RUN(c, "HGET", P ":stats", "OK");
    assert_string_equal(r->str, "1");
    freeReplyObject(r);
    /* The next job, the caller's, first delivery, whole. */
    assert_non_null(next.reply);
    assert_string_equal(next.id, id2);
    assert_true(next.has_job);
    assert_int_equal(next.job_len, sizeof job2);
    assert_int_equal(next.job_bytes, sizeof job2);
    assert_memory_equal(next.job, job2, sizeof job2);
    assert_int_equal(next.attempt, 1);
    assert_pending(c, id2, "w1", 1);
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 1); /* job1 deleted, job2 running */

    /* Its own result brings nothing: the queue is empty, the result stands. */
    q_entry none;
    d = sf_result_for("job-2", "RUNTIME_ERROR", "r2", 2);
    assert_int_equal(q_publish_next(c, P, "w1", next.id, &d, 0, &none, err, sizeof err), 1);
    assert_null(none.reply);
    assert_int_equal(none.id[0], 0);
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 0);
    assert_int_equal(LL(c, "XLEN", P ":results"), 2);
    assert_int_equal(LL(c, "LLEN", P ":result:job-2"), 1);
    q_entry_free(&e);
    q_entry_free(&next);
    q_conn_close(c);
}

/* A next job over the cap is cut before it leaves Redis, as q_fetch cuts
 * one already waiting. */
static void test_next_job_over_the_cap_is_cut(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id2[Q_ID_LEN];
    size_t big = 3 * Q_JOB_KEEP;
    char *job2 = malloc(big);
    assert_non_null(job2);
    memset(job2, 'z', big);
    q_entry e, next;
    sf_submit_fetch(c, P, "job1", 4, "w1", &e);
    sf_submit(c, P, job2, big, id2);
    q_delivery d = sf_result_for("job-1", "OK", "res", 3);
    assert_int_equal(q_publish_next(c, P, "w1", e.id, &d, 2 * Q_JOB_KEEP, &next, err, sizeof err), 1);
    assert_string_equal(next.id, id2);
    assert_int_equal(next.job_len, Q_JOB_KEEP);
    assert_int_equal(next.job_bytes, big);
    assert_memory_equal(next.job, job2, Q_JOB_KEEP);
    /* The reply held only what was kept. */
    assert_int_equal(next.reply->element[1]->element[1]->len, Q_JOB_KEEP);
    free(job2);
    q_entry_free(&e);
    q_entry_free(&next);
    q_conn_close(c);
}

/* A worker that lost its entry writes nothing and takes no job. */
static void test_lost_entry_reads_nothing(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id2[Q_ID_LEN];
    q_entry a, b, next;
    sf_submit_fetch(c, P, "job1", 4, "A", &a);
    redisReply *r = RUN(c, "XCLAIM", P ":jobs", "workers", "B", "0", a.id); /* B took it */
    freeReplyObject(r);
    sf_submit(c, P, "job2", 4, id2);
    q_delivery d = sf_result_for("job-1", "OK", "late", 4);
    assert_int_equal(q_publish_next(c, P, "A", a.id, &d, 0, &next, err, sizeof err), 0);
    assert_null(next.reply);
    assert_int_equal(LL(c, "EXISTS", P ":result:job-1", P ":results", P ":stats", P ":rate"), 0);
    assert_pending(c, a.id, "B", 2);
    /* job2 is still waiting for anyone. */
    sf_fetch(c, P, "B", &b);
    assert_string_equal(b.id, id2);
    q_entry_free(&a);
    q_entry_free(&b);
    q_conn_close(c);
}

/* After a publish that found the queue empty: one XREADGROUP BLOCK round
 * trip, the job that came meanwhile read and cut over the cap here. */
static void test_wait_job_after_an_empty_queue(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    q_entry e;
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_wait_job(c, P, "w1", 20, 0, &e, err, sizeof err), 0);
    assert_int_equal(q_wait_job(c, P, "w1", 0, 0, &e, err, sizeof err), 0); /* no wait: nothing sent */
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_int_equal(q_wait_job(c, P, "w1", 2001, 0, &e, err, sizeof err), -1);
    assert_non_null(strstr(err, "block_ms 2001 outside 0..2000"));

    size_t big = 2 * Q_JOB_KEEP;
    char *job = malloc(big);
    assert_non_null(job);
    memset(job, 'y', big);
    sf_submit(c, P, job, big, id);
    rt = q_conn_round_trips(c);
    assert_int_equal(q_wait_job(c, P, "w1", 100, Q_JOB_KEEP, &e, err, sizeof err), 1);
    assert_int_equal(q_conn_round_trips(c) - rt, 1);
    assert_string_equal(e.id, id);
    assert_int_equal(e.attempt, 1);
    assert_int_equal(e.job_len, Q_JOB_KEEP);
    assert_int_equal(e.job_bytes, big); /* cut here: it came whole */
    assert_memory_equal(e.job, job, Q_JOB_KEEP);
    free(job);
    q_entry_free(&e);
    q_conn_close(c);
}

/* Bad arguments are refused before anything is sent; `next` is zeroed. */
static void test_bad_arguments_send_nothing(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    q_entry e, next;
    sf_submit_fetch(c, P, "job1", 4, "A", &e);
    memset(&next, 0xa5, sizeof next);
    q_delivery d = sf_result_for("bad id", "OK", "r", 1);
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_publish_next(c, P, "A", e.id, &d, 0, &next, err, sizeof err), -1);
    assert_non_null(strstr(err, "job id"));
    assert_null(next.reply);
    assert_int_equal(q_conn_round_trips(c) - rt, 0);
    q_entry_free(&e);
    q_conn_close(c);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, sf_fresh_stream)
    const struct CMUnitTest tests[] = {
        T(test_publish_brings_the_next_job),
        T(test_next_job_over_the_cap_is_cut),
        T(test_lost_entry_reads_nothing),
        T(test_wait_job_after_an_empty_queue),
        T(test_bad_arguments_send_nothing),
    };
    return cmocka_run_group_tests(tests, sf_group_setup, sf_group_teardown);
}
