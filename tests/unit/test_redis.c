/* test_redis.c -- queue/redis.c against a real redis-server: URL parsing,
 * connect errors, AUTH (password and ACL user), SELECT, timeouts,
 * reconnecting after a restart, the stop flag, scripts after SCRIPT FLUSH.
 *
 * Each test that needs special server settings starts its own server;
 * the rest share one, flushed before each test. Nothing waits on a fixed
 * sleep: every wait is on a reply or on the server's socket.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "queue/redis.h"
#include "tests/lib/redis_server.h"
#include "tests/lib/stream_fixtures.h"

/* The shared helpers under the short names the checks below use. */
#define RUN SF_RUN

/* Like RUN, but expects failure and returns the error text in err. */
static void run_fails(q_conn *c, char *err, size_t errlen, const char *const *argv)
{
    q_args a;
    q_args_init(&a);
    for (; *argv; argv++)
        q_args_str(&a, *argv);
    err[0] = '\0';
    redisReply *r = q_command(c, &a, err, errlen);
    if (r) {
        freeReplyObject(r);
        fail_msg("command %s succeeded; expected an error", a.argv[0]);
    }
    assert_true(err[0] != '\0');
}
#define RUN_FAILS(c, err, ...) \
    run_fails((c), (err), sizeof(err), (const char *const[]){ __VA_ARGS__, NULL })

static void expect_status(q_conn *c, const char *want, const char *const *argv)
{
    redisReply *r = sf_run(c, argv);
    assert_true(r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_STRING);
    assert_string_equal(r->str, want);
    freeReplyObject(r);
}
#define EXPECT(c, want, ...) expect_status((c), (want), (const char *const[]){ __VA_ARGS__, NULL })

/* Per-test servers (see sf_own_server), torn down by sf_own_teardown. */
static int own_plain(void **state)
{
    return sf_own_server(state, NULL);
}

static int own_with_password(void **state)
{
    return sf_own_server(state, &(rs_opts){ .requirepass = "s3cret" });
}

static long elapsed_ms(struct timespec since)
{
    struct timespec now;
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &now), 0);
    return (now.tv_sec - since.tv_sec) * 1000L + (now.tv_nsec - since.tv_nsec) / 1000000L;
}

/* ------------------------------------------------------------- URL parsing */

static void test_url_ok(void **state)
{
    (void)state;
    static const struct {
        const char *url;
        bool is_unix;
        const char *host_or_path;
        int port, db;
        const char *user, *password;
    } cases[] = {
        { "redis://localhost", false, "localhost", 6379, 0, "", "" },
        { "redis://10.0.0.5:6380", false, "10.0.0.5", 6380, 0, "", "" },
        { "redis://h:7000/3", false, "h", 7000, 3, "", "" },
        { "redis://h/", false, "h", 6379, 0, "", "" },
        { "redis://:pw@h", false, "h", 6379, 0, "", "pw" },
        { "redis://alice:s3cret@redis.example:6390/15", false, "redis.example", 6390, 15,
          "alice", "s3cret" },
        { "redis://:p%40ss%3Aw%2Fd@h", false, "h", 6379, 0, "", "p@ss:w/d" },
        { "redis://:a@b@h", false, "h", 6379, 0, "", "a@b" },
        { "redis://[::1]:7001/2", false, "::1", 7001, 2, "", "" },
        { "redis://[fe80::1]", false, "fe80::1", 6379, 0, "", "" },
        { "unix:///run/redis.sock", true, "/run/redis.sock", 6379, 0, "", "" },
        { "unix:///tmp/r.sock?db=3", true, "/tmp/r.sock", 6379, 3, "", "" },
        { "unix:///tmp/r.sock?db=2&user=bob&password=a%26b", true, "/tmp/r.sock", 6379, 2,
          "bob", "a&b" },
        { "unix:///tmp/r.sock?password=x", true, "/tmp/r.sock", 6379, 0, "", "x" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        q_redis_addr a;
        char err[Q_ERR_LEN] = "";
        if (q_redis_url_parse(cases[i].url, &a, err, sizeof err) < 0)
            fail_msg("%s: %s", cases[i].url, err);
        assert_int_equal(a.is_unix, cases[i].is_unix);
        assert_string_equal(a.is_unix ? a.path : a.host, cases[i].host_or_path);
        if (!a.is_unix)
            assert_int_equal(a.port, cases[i].port);
        assert_int_equal(a.db, cases[i].db);
        assert_string_equal(a.user, cases[i].user);
        assert_string_equal(a.password, cases[i].password);
    }
}

static void test_url_errors(void **state)
{
    (void)state;
    static const struct {
        const char *url, *want;
    } cases[] = {
        { "", "empty" },
        { "localhost:6379", "no scheme" },
        { "http://user:hunter2@h", "unknown scheme \"http\"" },
        { "rediss://h", "TLS" },
        { "redis://", "missing host" },
        { "redis://:6379", "missing host" },
        { "redis://h:0", "bad port" },
        { "redis://h:65536", "bad port" },
        { "redis://h:63a", "bad port" },
        { "redis://h:", "bad port" },
        { "redis://h/x", "bad database" },
        { "redis://h/-1", "bad database" },
        { "redis://h/99999999999", "bad database" },
        { "redis://[::1", "unclosed" },
        { "redis://[::1]x", "junk after" },
        { "redis://bob@h", "user without a password" },
        { "redis://:@h", "empty password" },
        { "redis://:%zz@h", "bad or too long password" },
        { "redis://:%00@h", "bad or too long password" },
        { "unix://run/redis.sock", "must be absolute" },
        { "unix:///s?db=x", "bad database" },
        { "unix:///s?timeout=1", "unknown parameter \"timeout\"" },
        { "unix:///s?user=bob", "user without a password" },
        { "unix:///s?password=", "bad, empty" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        q_redis_addr a;
        char err[Q_ERR_LEN] = "";
        if (q_redis_url_parse(cases[i].url, &a, err, sizeof err) == 0)
            fail_msg("%s: parsed; expected an error", cases[i].url);
        if (!strstr(err, cases[i].want))
            fail_msg("%s: error \"%s\" lacks \"%s\"", cases[i].url, err, cases[i].want);
        assert_null(strstr(err, "hunter2")); /* a password is never echoed */
    }
    char long_path[200] = "unix:///";
    memset(long_path + 8, 'x', 150);
    long_path[158] = '\0';
    q_redis_addr a;
    char err[Q_ERR_LEN] = "";
    assert_int_equal(q_redis_url_parse(long_path, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "longer than 107 bytes"));
}

/* ------------------------------------------------------------- connecting */

static void test_connect_refused(void **state)
{
    (void)state;
    /* A bound socket that never listens: connect() to it is refused, and
     * no other process can take the port while we hold it. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof sin;
    assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
    char url[64], want[96], err[Q_ERR_LEN] = "";
    (void)snprintf(url, sizeof url, "redis://127.0.0.1:%d", ntohs(sin.sin_port));
    (void)snprintf(want, sizeof want, "redis 127.0.0.1:%d: connection refused",
                   ntohs(sin.sin_port));
    q_redis_addr addr;
    assert_int_equal(q_redis_url_parse(url, &addr, err, sizeof err), 0);
    assert_null(q_conn_open(&addr, NULL, err, sizeof err));
    assert_string_equal(err, want);
    assert_int_equal(close(fd), 0);
}

static void test_connect_missing_socket(void **state)
{
    (void)state;
    char url[400], err[Q_ERR_LEN] = "";
    (void)snprintf(url, sizeof url, "unix://%s/nope.sock", sf_shared.dir);
    q_redis_addr addr;
    assert_int_equal(q_redis_url_parse(url, &addr, err, sizeof err), 0);
    assert_null(q_conn_open(&addr, NULL, err, sizeof err));
    assert_non_null(strstr(err, "nope.sock: no such file or directory"));
}

static void test_bad_options(void **state)
{
    (void)state;
    q_redis_addr addr;
    char err[Q_ERR_LEN] = "";
    assert_int_equal(q_redis_url_parse(sf_shared.url, &addr, err, sizeof err), 0);
    q_conn_opts o = { .client_name = "has space" };
    assert_null(q_conn_open(&addr, &o, err, sizeof err));
    assert_non_null(strstr(err, "client name"));
    q_conn_opts o2 = { .backoff_min_ms = 500, .backoff_max_ms = 100 };
    assert_null(q_conn_open(&addr, &o2, err, sizeof err));
    assert_non_null(strstr(err, "backoff_max_ms"));
}

static void test_auth_and_select(void **state)
{
    const rs_server *s = *state;
    char url[400];
    (void)snprintf(url, sizeof url, "%s?db=3&password=s3cret", s->url);
    q_conn *c = sf_open_url(url, NULL);
    EXPECT(c, "OK", "SET", "k", "in-db-3");
    (void)snprintf(url, sizeof url, "%s?password=s3cret", s->url);
    q_conn *c0 = sf_open_url(url, NULL);
    redisReply *r = RUN(c0, "EXISTS", "k");
    assert_int_equal(r->integer, 0); /* not in db 0 */
    freeReplyObject(r);
    EXPECT(c0, "OK", "SELECT", "3");
    EXPECT(c0, "in-db-3", "GET", "k");

    /* Without the password every command is refused; with a wrong one the
     * open fails and says why. */
    q_redis_addr addr;
    char err[Q_ERR_LEN] = "";
    assert_int_equal(q_redis_url_parse(s->url, &addr, err, sizeof err), 0);
    q_conn *anon = q_conn_open(&addr, NULL, err, sizeof err);
    assert_non_null(anon);
    RUN_FAILS(anon, err, "GET", "k");
    assert_non_null(strstr(err, "redis: NOAUTH"));
    (void)snprintf(url, sizeof url, "%s?password=wrong", s->url);
    assert_int_equal(q_redis_url_parse(url, &addr, err, sizeof err), 0);
    assert_null(q_conn_open(&addr, NULL, err, sizeof err));
    assert_non_null(strstr(err, ": AUTH failed: WRONGPASS"));
    assert_null(strstr(err, "wrong")); /* the password is not echoed */
    q_conn_close(anon);
    q_conn_close(c0);
    q_conn_close(c);
}

static void test_auth_acl_user(void **state)
{
    (void)state;
    q_conn *admin = sf_open_url(sf_shared.url, NULL);
    EXPECT(admin, "OK", "ACL", "SETUSER", "alice", "reset", "on", ">pa ss", "~*", "&*", "+@all");
    char url[400];
    (void)snprintf(url, sizeof url, "%s?user=alice&password=pa%%20ss", sf_shared.url);
    q_conn *c = sf_open_url(url, NULL);
    EXPECT(c, "alice", "ACL", "WHOAMI");
    redisReply *r = RUN(admin, "ACL", "DELUSER", "alice");
    assert_int_equal(r->integer, 1);
    freeReplyObject(r);
    q_conn_close(c);
    q_conn_close(admin);
}

static void test_client_name(void **state)
{
    (void)state;
    q_conn *c = sf_open_url(sf_shared.url, &(q_conn_opts){ .client_name = "worker-7:3" });
    EXPECT(c, "worker-7:3", "CLIENT", "GETNAME");
    q_conn_close(c);
}

/* ------------------------------------------------------------- commands */

static void test_error_reply(void **state)
{
    (void)state;
    q_conn *c = sf_open_url(sf_shared.url, NULL);
    char err[Q_ERR_LEN];
    EXPECT(c, "OK", "SET", "s", "text");
    RUN_FAILS(c, err, "INCR", "s");
    assert_string_equal(err, "redis: ERR value is not an integer or out of range");
    /* An error reply leaves the connection usable. */
    EXPECT(c, "PONG", "PING");
    assert_int_equal(q_conn_reconnects(c), 0);
    q_conn_close(c);
}

static void test_binary_args_and_overflow(void **state)
{
    (void)state;
    q_conn *c = sf_open_url(sf_shared.url, NULL);
    char err[Q_ERR_LEN] = "";
    static const char bin[] = { 'a', 0, '\r', '\n', (char)0xff };
    q_args a;
    q_args_init(&a);
    q_args_str(&a, "SET");
    q_args_str(&a, "bin");
    q_args_bin(&a, bin, sizeof bin);
    redisReply *r = q_command(c, &a, err, sizeof err);
    assert_non_null(r);
    freeReplyObject(r);
    r = RUN(c, "GET", "bin");
    assert_int_equal(r->len, sizeof bin);
    assert_memory_equal(r->str, bin, sizeof bin);
    freeReplyObject(r);

    q_args_init(&a);
    for (int i = 0; i <= Q_ARGS_MAX; i++)
        q_args_str(&a, "x");
    assert_true(a.overflow);
    assert_null(q_command(c, &a, err, sizeof err));
    assert_non_null(strstr(err, "more than 96 arguments"));
    q_args_init(&a);
    for (int i = 0; i <= Q_ARGS_NUMS; i++)
        q_args_ll(&a, i);
    assert_true(a.overflow);
    q_conn_close(c);
}

static void test_pipeline(void **state)
{
    (void)state;
    q_conn *c = sf_open_url(sf_shared.url, NULL);
    char err[Q_ERR_LEN] = "";
    q_args a, b, d;
    q_args_init(&a);
    q_args_str(&a, "SET");
    q_args_str(&a, "p");
    q_args_str(&a, "v");
    q_args_init(&b);
    q_args_str(&b, "LPUSH");
    q_args_str(&b, "p"); /* wrong type: an error reply among good ones */
    q_args_str(&b, "x");
    q_args_init(&d);
    q_args_str(&d, "GET");
    q_args_str(&d, "p");
    const q_args *cmds[] = { &a, &b, &d };
    redisReply *r[3];
    unsigned long before = q_conn_round_trips(c);
    assert_int_equal(q_pipeline(c, 3, cmds, r, err, sizeof err), 0);
    assert_int_equal(q_conn_round_trips(c) - before, 1);
    assert_int_equal(r[0]->type, REDIS_REPLY_STATUS);
    assert_int_equal(r[1]->type, REDIS_REPLY_ERROR);
    assert_non_null(strstr(r[1]->str, "WRONGTYPE"));
    assert_string_equal(r[2]->str, "v");
    for (int i = 0; i < 3; i++)
        freeReplyObject(r[i]);
    q_conn_close(c);
}

static void test_timeout_drops_and_recovers(void **state)
{
    (void)state;
    q_conn *c = sf_open_url(sf_shared.url, &(q_conn_opts){ .command_timeout_ms = 200 });
    assert_int_equal(q_conn_block_max_ms(c), 100);
    char err[Q_ERR_LEN];
    /* Blocking longer than the socket timeout: exactly what callers must
     * not do, so the timeout path is exercised. */
    RUN_FAILS(c, err, "BLPOP", "never", "1");
    assert_string_equal(err, "redis: timeout after 200 ms");
    EXPECT(c, "PONG", "PING");
    assert_int_equal(q_conn_reconnects(c), 1);
    q_conn_close(c);
}

static void test_reconnect_after_restart(void **state)
{
    rs_server *s = *state;
    char url[400], err[Q_ERR_LEN];
    (void)snprintf(url, sizeof url, "%s?db=3&password=s3cret", s->url);
    q_conn *c = sf_open_url(url, &(q_conn_opts){ .reconnect_wait_ms = 150 });
    EXPECT(c, "OK", "SET", "before", "1");

    assert_int_equal(rs_stop(s, err, sizeof err), 0);
    RUN_FAILS(c, err, "PING"); /* the live connection sees the server go */
    assert_non_null(strstr(err, "connection closed by server"));
    struct timespec t0;
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t0), 0);
    /* Backing off, then giving up. Regression: three calls used to grow
     * the delay (default max 2 s) far past the 150 ms wait, so the first
     * call after the restart gave up on a stale next_try without trying.
     * The delay is now capped at reconnect_wait_ms. */
    for (int i = 0; i < 3; i++) {
        RUN_FAILS(c, err, "PING");
        assert_non_null(strstr(err, "no such file or directory (reconnecting for 150 ms)"));
    }
    assert_true(elapsed_ms(t0) < 3000);
    assert_int_equal(q_conn_reconnects(c), 0);

    if (rs_restart(s, err, sizeof err) < 0)
        fail_msg("restart: %s", err);
    EXPECT(c, "OK", "SET", "after", "2"); /* AUTH and SELECT re-applied */
    assert_int_equal(q_conn_reconnects(c), 1);
    q_conn *check = sf_open_url(url, NULL);
    EXPECT(check, "2", "GET", "after");
    q_conn_close(check);
    q_conn_close(c);
}

static void test_stop_flag_ends_reconnecting(void **state)
{
    rs_server *s = *state;
    atomic_int stop = 0;
    q_conn *c = sf_open_url(s->url, &(q_conn_opts){ .reconnect_wait_ms = 30000,
                                                   .backoff_min_ms = 2000,
                                                   .stop = &stop });
    char err[Q_ERR_LEN];
    assert_false(q_conn_stopping(c));
    assert_int_equal(rs_stop(s, err, sizeof err), 0);
    RUN_FAILS(c, err, "PING");
    atomic_store(&stop, 1);
    assert_true(q_conn_stopping(c));
    struct timespec t0;
    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t0), 0);
    RUN_FAILS(c, err, "PING");
    assert_non_null(strstr(err, "not reconnecting: shutting down"));
    assert_true(elapsed_ms(t0) < 1000); /* not the 30 s reconnect budget */
    q_conn_close(c);
}

/* Rewrites a key's value; the script is tiny so the test is about caching. */
static const q_script echo_script = { "echo", "return redis.call('SET', KEYS[1], ARGV[1])" };

static void eval_ok(q_conn *c, const char *val, unsigned long round_trips)
{
    char err[Q_ERR_LEN] = "";
    q_args a;
    q_args_init(&a);
    q_args_str(&a, "e");
    q_args_str(&a, val);
    unsigned long before = q_conn_round_trips(c);
    redisReply *r = q_eval(c, &echo_script, 1, &a, err, sizeof err);
    if (!r)
        fail_msg("eval: %s", err);
    freeReplyObject(r);
    assert_int_equal(q_conn_round_trips(c) - before, round_trips);
    EXPECT(c, val, "GET", "e");
}

static void test_script_cache_and_reload(void **state)
{
    (void)state;
    q_conn *c = sf_open_url(sf_shared.url, NULL);
    eval_ok(c, "1", 1); /* SCRIPT LOAD + EVAL pipelined */
    eval_ok(c, "2", 1); /* EVALSHA */
    EXPECT(c, "OK", "SCRIPT", "FLUSH");
    eval_ok(c, "3", 2); /* NOSCRIPT, then SCRIPT LOAD + EVAL */
    eval_ok(c, "4", 1);

    char err[Q_ERR_LEN] = "";
    static const q_script broken = { "broken", "return redis.call('NOSUCHCMD')" };
    q_args a;
    q_args_init(&a);
    assert_null(q_eval(c, &broken, 0, &a, err, sizeof err));
    assert_non_null(strstr(err, "redis: script broken: ERR"));
    assert_null(q_eval(c, &broken, 1, &a, err, sizeof err));
    assert_non_null(strstr(err, "1 keys for 0 arguments"));
    q_conn_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_ok),
        cmocka_unit_test(test_url_errors),
        cmocka_unit_test(test_connect_refused),
        cmocka_unit_test(test_connect_missing_socket),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test_setup_teardown(test_auth_and_select, own_with_password, sf_own_teardown),
        cmocka_unit_test_setup(test_auth_acl_user, sf_flush),
        cmocka_unit_test_setup(test_client_name, sf_flush),
        cmocka_unit_test_setup(test_error_reply, sf_flush),
        cmocka_unit_test_setup(test_binary_args_and_overflow, sf_flush),
        cmocka_unit_test_setup(test_pipeline, sf_flush),
        cmocka_unit_test_setup(test_timeout_drops_and_recovers, sf_flush),
        cmocka_unit_test_setup_teardown(test_reconnect_after_restart, own_with_password,
                                        sf_own_teardown),
        cmocka_unit_test_setup_teardown(test_stop_flag_ends_reconnecting, own_plain,
                                        sf_own_teardown),
        cmocka_unit_test_setup(test_script_cache_and_reload, sf_flush),
    };
    return cmocka_run_group_tests(tests, sf_group_setup, sf_group_teardown);
}
