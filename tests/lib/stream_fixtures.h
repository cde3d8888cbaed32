/* stream_fixtures.h -- what the cmocka tests that talk to a real
 * redis-server share (test_redis.c, test_stream.c, test_stream_client.c):
 * the group's shared server and the per-test fixtures around it, running
 * a command given as strings, opening a connection, and the submit/fetch
 * steps of the job protocol.
 *
 * Every helper fails the current test (fail_msg) when Redis does not
 * answer as it must, so callers need no error paths.
 */
#ifndef GRADEQ_TESTS_STREAM_FIXTURES_H
#define GRADEQ_TESTS_STREAM_FIXTURES_H

#include <stddef.h>

#include <hiredis/hiredis.h>

#include "queue/redis.h"
#include "queue/stream.h"
#include "tests/lib/redis_server.h"

/* The key prefix of the stream tests' queue. */
#define SF_P "gq"

/* The server a test group shares: started by sf_group_setup (which also
 * ignores SIGPIPE), removed by sf_group_teardown. Pass both to
 * cmocka_run_group_tests. */
extern rs_server sf_shared;
int sf_group_setup(void **state);
int sf_group_teardown(void **state);

/* Per-test setups: FLUSHALL on sf_shared; sf_fresh_stream also creates
 * the consumer group of SF_P. */
int sf_flush(void **state);
int sf_fresh_stream(void **state);

/* A per-test server of its own with options `o` (NULL: defaults), set as
 * *state; sf_own_teardown removes it even when the test failed, so no
 * server directory is left behind. One at a time: tests run in turn. */
int sf_own_server(void **state, const rs_opts *o);
int sf_own_teardown(void **state);

/* Runs a command given as strings (argv ends with NULL). */
redisReply *sf_run(q_conn *c, const char *const *argv);
#define SF_RUN(c, ...) sf_run((c), (const char *const[]){ __VA_ARGS__, NULL })
/* The integer a command answers. */
long long sf_run_ll(q_conn *c, const char *const *argv);
#define SF_LL(c, ...) sf_run_ll((c), (const char *const[]){ __VA_ARGS__, NULL })

/* A connection to `url`; sf_open connects to sf_shared. `o` may be NULL. */
q_conn *sf_open_url(const char *url, const q_conn_opts *o);
q_conn *sf_open(const q_conn_opts *o);

/* q_submit without a cap on the waiting entries; the entry id in `id`. */
void sf_submit(q_conn *c, const char *prefix, const void *job, size_t len, char id[Q_ID_LEN]);
/* q_fetch without blocking; a job must be waiting. */
void sf_fetch(q_conn *c, const char *prefix, const char *consumer, q_entry *e);
/* Submits `job` and fetches it as `consumer`: the entry `e` is running. */
void sf_submit_fetch(q_conn *c, const char *prefix, const void *job, size_t len,
                     const char *consumer, q_entry *e);

/* A result to publish: kept 600 s, the results stream capped at 1000. */
q_delivery sf_result_for(const char *job_id, const char *status, const char *bytes, size_t len);

#endif
