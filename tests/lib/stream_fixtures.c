/* stream_fixtures.c -- fixtures and helpers of the tests against a real
 * redis-server (see stream_fixtures.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>

#include "tests/lib/stream_fixtures.h"

rs_server sf_shared;

int sf_group_setup(void **state)
{
    (void)state;
    char err[Q_ERR_LEN];
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR || rs_start(&sf_shared, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "redis-server: %s\n", err);
        return -1;
    }
    return 0;
}

int sf_group_teardown(void **state)
{
    (void)state;
    rs_destroy(&sf_shared);
    return 0;
}

static void flushall(q_conn *c)
{
    redisReply *r = SF_RUN(c, "FLUSHALL");
    assert_int_equal(r->type, REDIS_REPLY_STATUS);
    assert_string_equal(r->str, "OK");
    freeReplyObject(r);
}

int sf_flush(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    flushall(c);
    q_conn_close(c);
    return 0;
}

int sf_fresh_stream(void **state)
{
    (void)state;
    q_conn *c = sf_open(NULL);
    char err[Q_ERR_LEN] = "";
    flushall(c);
    if (q_group_ensure(c, SF_P, err, sizeof err) < 0)
        fail_msg("group: %s", err);
    q_conn_close(c);
    return 0;
}

int sf_own_server(void **state, const rs_opts *o)
{
    static rs_server s; /* tests run one at a time */
    char err[Q_ERR_LEN];
    if (rs_start(&s, o, err, sizeof err) < 0) {
        fprintf(stderr, "rs_start: %s\n", err);
        return -1;
    }
    *state = &s;
    return 0;
}

int sf_own_teardown(void **state)
{
    rs_destroy(*state);
    return 0;
}

redisReply *sf_run(q_conn *c, const char *const *argv)
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

long long sf_run_ll(q_conn *c, const char *const *argv)
{
    redisReply *r = sf_run(c, argv);
    assert_int_equal(r->type, REDIS_REPLY_INTEGER);
    long long v = r->integer;
    freeReplyObject(r);
    return v;
}

q_conn *sf_open_url(const char *url, const q_conn_opts *o)
{
    char err[Q_ERR_LEN] = "";
    q_redis_addr addr;
    if (q_redis_url_parse(url, &addr, err, sizeof err) < 0)
        fail_msg("parse %s: %s", url, err);
    q_conn *c = q_conn_open(&addr, o, err, sizeof err);
    if (!c)
        fail_msg("open %s: %s", url, err);
    return c;
}

q_conn *sf_open(const q_conn_opts *o)
{
    return sf_open_url(sf_shared.url, o);
}

void sf_submit(q_conn *c, const char *prefix, const void *job, size_t len, char id[Q_ID_LEN])
{
    char err[Q_ERR_LEN] = "";
    if (q_submit(c, prefix, job, len, 0, id, err, sizeof err) != 1)
        fail_msg("submit: %s", err);
}

void sf_fetch(q_conn *c, const char *prefix, const char *consumer, q_entry *e)
{
    char err[Q_ERR_LEN] = "";
    if (q_fetch(c, prefix, consumer, 0, 0, e, err, sizeof err) != 1)
        fail_msg("fetch by %s: %s", consumer, err);
}

void sf_submit_fetch(q_conn *c, const char *prefix, const void *job, size_t len,
                     const char *consumer, q_entry *e)
{
    char id[Q_ID_LEN];
    sf_submit(c, prefix, job, len, id);
    sf_fetch(c, prefix, consumer, e);
    assert_string_equal(e->id, id);
}

q_delivery sf_result_for(const char *job_id, const char *status, const char *bytes, size_t len)
{
    return (q_delivery){ .job_id = job_id, .status = status, .data = bytes, .len = len,
                         .ttl_s = 600, .maxlen = 1000 };
}
