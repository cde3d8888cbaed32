/* test_grade_engine.c -- the grading engine's bounds, run for real in the
 * sandbox: a test's own wall_ms of 0 stays under the worker's maximum
 * wall; the outputs a grading keeps stay within the plan's output_max; and
 * a result at every bound (the largest fields, outputs filling
 * wk_output_budget) encodes within the result size it was computed for,
 * for a single interactive run and for a grading of Q_TESTS_MAX tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/result.h"
#include "tests/lib/sandbox_fixtures.h"
#include "worker/engine/checker.h"
#include "worker/engine/engine.h"

static const char *const sleep_argv[] = { "/bin/sleep", "2", NULL };

/* A plan of n tests over argv, limits the defaults, maxima max. */
static wk_grade_plan plan_of(const char *const *argv, q_grade *g, q_test *t, size_t n, const sbx_limits *max)
{
    *g = (q_grade){ .tests = t, .ntests = n, .checker = Q_CHECK_EXACT };
    wk_grade_plan p = { .argv = argv, .g = g, .max = *max, .test_output_max = WK_TEST_OUTPUT_MAX_DEFAULT,
                        .output_max = wk_output_budget(Q_RESULT_BYTES_MAX, true) };
    sbx_limits_default(&p.limits);
    return p;
}

/* A wall_ms of 0 is "three times cpu": with a cpu_ms of 1000 that is 3 s,
 * past a worker's 300 ms maximum unless the engine clamps it. */
static void zero_wall_stays_under_the_maximum(void **state)
{
    (void)state;
    sbx_limits max;
    sbx_limits_default(&max);
    max.wall_ms = 300;
    q_test t = { .name = "1" };
    t.extra.limits[Q_LIM_WALL_MS] = 0;
    t.extra.limits_present = 1u << Q_LIM_WALL_MS;
    q_grade g;
    wk_grade_plan p = plan_of(sleep_argv, &g, &t, 1, &max);
    wk_graded out;
    assert_int_equal(wk_grade(sx_host, sx_box, NULL, &p, &out), WK_GRADED);
    assert_string_equal(out.res.tests[0].status, "WALL_TIME_LIMIT");
    assert_true(out.res.tests[0].wall_us < 1500000);
    wk_graded_free(&out);
}

/* Four tests writing 3000 bytes to each stream, under a budget of 1000:
 * each test keeps an equal share of what is left, the whole stays within. */
static void outputs_share_the_budget(void **state)
{
    (void)state;
    static const char *const argv[] = { "/bin/sh", "-c", "head -c 3000 /dev/zero; head -c 3000 /dev/zero >&2",
                                        NULL };
    sbx_limits max;
    sbx_limits_default(&max);
    q_test t[4] = { { .name = "1" }, { .name = "2" }, { .name = "3" }, { .name = "4" } };
    q_grade g;
    wk_grade_plan p = plan_of(argv, &g, t, 4, &max);
    p.output_max = 1000;
    wk_graded out;
    assert_int_equal(wk_grade(sx_host, sx_box, NULL, &p, &out), WK_GRADED);
    size_t kept = 0;
    for (size_t i = 0; i < 4; i++) {
        const q_graded *r = &out.res.tests[i];
        assert_true(r->stdout_len == 125 && r->stderr_len == 125);
        assert_true(r->stdout_truncated);
        kept += r->stdout_len + r->stderr_len;
    }
    assert_true(kept <= 1000);
    wk_graded_free(&out);
}

static char *filled(size_t n, char c)
{
    char *p = malloc(n + 1);
    assert_non_null(p);
    memset(p, c, n);
    p[n] = 0;
    return p;
}

static size_t encoded_size(const q_result *r)
{
    msgpack_sbuffer sb;
    char err[Q_ERR_LEN];
    msgpack_sbuffer_init(&sb);
    if (q_result_encode(r, &sb, err, sizeof err) < 0)
        fail_msg("encode: %s", err);
    size_t n = sb.size;
    msgpack_sbuffer_destroy(&sb);
    return n;
}

/* What a worker can fill with the most bytes, each field at its longest:
 * the id, the worker's name, an error (a sandbox's or a pair's message),
 * every isolation name, the numbers at 64 bits. */
static q_result largest_fields(char *id, char *worker, char *error, const char **iso)
{
    for (int i = 0; i < 32; i++)
        iso[i] = "seccomp-and-more-than-any-name";
    return (q_result){ .id = id, .status = "INTERACTOR_ERROR", .has_exit_code = true, .exit_code = INT64_MIN,
                       .has_signal = true, .signal = INT64_MIN, .cpu_us = UINT64_MAX, .wall_us = UINT64_MAX,
                       .memory_bytes = UINT64_MAX, .worker = worker, .attempt = UINT64_MAX, .error = error,
                       .isolation = iso, .nisolation = 32 };
}

static void results_fit_their_bound(void **state)
{
    (void)state;
    char *id = filled(Q_ID_MAX, 'i'), *worker = filled(64, 'w'), *error = filled(SBX_ERR_LEN - 1, 'e');
    const char *iso[32];
    for (uint64_t bytes = 2u << 20; bytes <= Q_RESULT_BYTES_MAX; bytes *= 32) {
        /* An interactive run: its outputs split across all four streams. */
        size_t budget = wk_output_budget(bytes, false), quarter = budget / 4;
        char *out = filled(budget - 3 * quarter, 'o');
        q_result r = largest_fields(id, worker, error, iso);
        r.stdout_buf = r.stderr_buf = r.transcript = out;
        r.stdout_len = r.stderr_len = r.transcript_len = quarter;
        r.has_interactor = true;
        r.interactor = (q_proc_result){ .status = "MEMORY_LIMIT", .has_exit_code = true, .exit_code = INT64_MIN,
                                        .has_signal = true, .signal = INT64_MIN, .stderr_buf = out,
                                        .stderr_len = budget - 3 * quarter, .cpu_us = UINT64_MAX,
                                        .wall_us = UINT64_MAX, .memory_bytes = UINT64_MAX };
        size_t n = encoded_size(&r);
        if (n > bytes)
            fail_msg("a run's result of %zu bytes for a bound of %llu", n, (unsigned long long)bytes);
        free(out);

        /* A grading of Q_TESTS_MAX tests, every name and message at its
         * longest, the outputs filling the budget. */
        budget = wk_output_budget(bytes, true);
        size_t per = budget / (2 * Q_TESTS_MAX + 2);
        out = filled(budget, 'o');
        char *name = filled(Q_TEST_NAME_MAX, 'n'), *msg = filled(WK_CHECK_MSG_LEN - 1, 'm');
        q_graded *t = calloc(Q_TESTS_MAX, sizeof *t);
        assert_non_null(t);
        for (size_t i = 0; i < Q_TESTS_MAX; i++)
            t[i] = (q_graded){ .name = name, .status = "INTERACTOR_ERROR", .has_exit_code = true,
                               .exit_code = INT64_MIN, .has_signal = true, .signal = INT64_MIN,
                               .cpu_us = UINT64_MAX, .wall_us = UINT64_MAX, .memory_bytes = UINT64_MAX,
                               .checker_message = msg, .stdout_buf = out, .stdout_len = per,
                               .stdout_truncated = true, .stderr_buf = out, .stderr_len = per };
        q_grade_result g = { .has_compile = true, .tests = t, .ntests = Q_TESTS_MAX, .passed = UINT64_MAX,
                             .total = UINT64_MAX,
                             .compile = { .status = "COMPILE_ERROR", .has_exit_code = true, .exit_code = INT64_MIN,
                                          .has_signal = true, .signal = INT64_MIN, .cpu_us = UINT64_MAX,
                                          .wall_us = UINT64_MAX, .memory_bytes = UINT64_MAX, .stdout_buf = out,
                                          .stdout_len = budget - (2 * Q_TESTS_MAX + 1) * per,
                                          .stderr_buf = out, .stderr_len = per } };
        r = largest_fields(id, worker, error, iso);
        r.stdout_buf = r.stderr_buf = "";
        r.grade = &g;
        n = encoded_size(&r);
        if (n > bytes)
            fail_msg("a grading's result of %zu bytes for a bound of %llu", n, (unsigned long long)bytes);
        free(t);
        free(name);
        free(msg);
        free(out);
    }
    free(id);
    free(worker);
    free(error);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(results_fit_their_bound),
        cmocka_unit_test_setup(zero_wall_stays_under_the_maximum, sx_test_setup),
        cmocka_unit_test_setup(outputs_share_the_budget, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
