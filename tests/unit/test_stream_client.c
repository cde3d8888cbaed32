/* test_stream_client.c -- the client's side of the job protocol
 * (queue/stream.c) against a real redis-server: admission control on
 * submit, waiting for results, the job id rule shared with the decoder,
 * the worker registry and the stats gauges. The worker's side is in
 * test_stream.c; the shared fixtures in tests/lib/stream_fixtures.h.
 *
 * Every test starts on an empty database.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "queue/job.h"
#include "queue/stream.h"
#include "tests/lib/stream_fixtures.h"

/* The shared helpers under the short names the checks below use. */
#define P SF_P
#define RUN SF_RUN
#define LL SF_LL

static void test_submit_refuses_when_full(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    assert_int_equal(q_submit(c, P, "a", 1, 2, id, err, sizeof err), 1);
    assert_int_equal(q_submit(c, P, "b", 1, 2, id, err, sizeof err), 1);
    assert_int_equal(q_submit(c, P, "c", 1, 2, id, err, sizeof err), 0);
    assert_string_equal(err, "queue full: 2 jobs waiting or running (--max-queue 2)");
    assert_string_equal(id, "");
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 2);

    q_entry e;
    sf_fetch(c, P, "A", &e);
    q_delivery d = sf_result_for("j", "OK", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), 1);
    assert_int_equal(q_submit(c, P, "c", 1, 2, id, err, sizeof err), 1); /* room again */
    assert_int_equal(q_submit(c, P, "d", 1, 0, id, err, sizeof err), 1); /* 0: no cap */
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 3);
    q_entry_free(&e);
    q_conn_close(c);
}

/* Redis answers a submit only once its script has copied the job: a big
 * job under a short command timeout timed out (a 48 MiB file under the
 * default 5 s on an emulated guest). The wait grows with the bytes sent. */
static void test_big_submit_waits_for_its_bytes(void **state)
{
    (void)state;
    q_conn *c = sf_open(&(q_conn_opts){ .command_timeout_ms = 50 });
    size_t len = (size_t)64 << 20;
    char *job = malloc(len), err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    assert_non_null(job);
    memset(job, 'j', len);
    assert_int_equal(q_submit(c, P, job, len, 0, id, err, sizeof err), 1);
    assert_int_equal(LL(c, "XLEN", P ":jobs"), 1);
    assert_int_equal(q_conn_reconnects(c), 0);
    free(job);
    q_conn_close(c);
}

/* A worker on its own connection: fetches one job, publishes its bytes. */
static void *worker_thread(void *arg)
{
    const char *job_id = arg;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    q_entry e;
    int got = 0;
    for (int tries = 0; tries < 50 && got == 0; tries++)
        got = q_fetch(c, P, "T", 100, 0, &e, err, sizeof err);
    if (got == 1) {
        q_delivery d = sf_result_for(job_id, "OK", e.job, e.job_len);
        got = q_publish(c, P, "T", e.id, &d, err, sizeof err);
        q_entry_free(&e);
    }
    q_conn_close(c);
    return (void *)(intptr_t)got;
}

static void test_wait_result(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN];
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, worker_thread, "job-w"), 0);
    sf_submit(c, P, "payload", 7, id);
    q_blob b;
    assert_int_equal(q_wait_result(c, P, "job-w", 10000, &b, err, sizeof err), 1);
    assert_int_equal(b.len, 7);
    assert_memory_equal(b.data, "payload", 7);
    q_blob_free(&b);
    void *ret;
    assert_int_equal(pthread_join(th, &ret), 0);
    assert_int_equal((intptr_t)ret, 1);
    assert_int_equal(LL(c, "LLEN", P ":result:job-w"), 1); /* left for the next reader */
    assert_int_equal(LL(c, "XLEN", P ":results"), 1);
    /* A second reader, at once (timeout 0) or waiting, gets it too. */
    assert_int_equal(q_wait_result(c, P, "job-w", 0, &b, err, sizeof err), 1);
    assert_int_equal(b.len, 7);
    q_blob_free(&b);
    assert_int_equal(q_wait_result(c, P, "job-w", -1, &b, err, sizeof err), 1);
    q_blob_free(&b);
    assert_int_equal(q_wait_result(c, P, "none", 0, &b, err, sizeof err), 0);
    q_conn_close(c);

    /* Nothing comes: the wait is cut into slices shorter than the socket
     * timeout (block max 1000 ms here, half of it: the other half is the
     * margin a loaded machine's Redis gets) and ends after the timeout. */
    c = sf_open(&(q_conn_opts){ .command_timeout_ms = 2000 });
    struct timespec t0, t1;
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t0), 0);
    unsigned long rt = q_conn_round_trips(c);
    assert_int_equal(q_wait_result(c, P, "none", 2500, &b, err, sizeof err), 0);
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t1), 0);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000L + (t1.tv_nsec - t0.tv_nsec) / 1000000L;
    assert_true(ms >= 2490);
    /* Each slice lasts at least its 1000 ms (Redis may end it late), so
     * 2500 ms needs two or three. */
    assert_true(q_conn_round_trips(c) - rt >= 2);
    assert_int_equal(q_conn_reconnects(c), 0); /* no socket timeout fired */
    q_conn_close(c);
}

static void test_worker_registry(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
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
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_LEN], now[32], t1[32], t2[32], stale[32];
    q_stats s;
    assert_int_equal(q_stats_read(c, "empty", &s, err, sizeof err), 0);
    assert_int_equal(s.length, 0);
    assert_int_equal(s.oldest_pending_ms, -1);
    assert_int_equal(s.oldest_waiting_ms, -1);

    for (int i = 0; i < 4; i++)
        sf_submit(c, P, "j", 1, id);
    assert_int_equal(q_stats_read(c, P, &s, err, sizeof err), 0); /* nothing delivered yet */
    assert_int_equal(s.length, 4);
    assert_int_equal(s.waiting, 4);
    assert_int_equal(s.pending, 0);
    assert_int_equal(s.nconsumers, 0);
    assert_true(s.oldest_waiting_ms >= 0 && s.oldest_waiting_ms < 60000);
    assert_int_equal(s.oldest_pending_ms, -1);
    q_entry e1, e2, e3;
    sf_fetch(c, P, "A", &e1);
    sf_fetch(c, P, "A", &e2);
    sf_fetch(c, P, "B", &e3);
    q_delivery d = sf_result_for("s1", "OK", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e1.id, &d, err, sizeof err), 1);
    q_dead_letter dl = { .reason = "r", .maxlen = 10 };
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
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "", id[Q_ID_MAX + 2];
    q_entry e;
    sf_submit_fetch(c, P, "x", 1, "A", &e);
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
        q_delivery d = sf_result_for(id, "OK", "r", 1);
        q_dead_letter dl = { "why", 10, 0, &d };
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
    q_delivery d = sf_result_for("sub-42:run.1_A", "OK", "r", 1);
    assert_int_equal(q_publish(c, P, "A", e.id, &d, err, sizeof err), 1); /* still ours */
    assert_int_equal(q_wait_result(c, P, "sub-42:run.1_A", 1000, &b, err, sizeof err), 1);
    q_blob_free(&b);
    q_entry_free(&e);
    q_conn_close(c);
}

#define T(f) cmocka_unit_test_setup(f, sf_fresh_stream)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_submit_refuses_when_full),
        T(test_big_submit_waits_for_its_bytes),
        T(test_wait_result),
        T(test_worker_registry),
        T(test_stats),
        T(test_job_id_rule_is_the_decoders),
    };
    return cmocka_run_group_tests(tests, sf_group_setup, sf_group_teardown);
}
