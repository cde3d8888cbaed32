/* test_grade_judge.c -- testlib's exit codes and points lines, as the
 * engine reads them from a checker's or an interactor's ending (judge.c):
 * every code of the table, the points of quitp and quitpi, and points
 * lines that are not quite (too large, not numbers, negative) refused
 * rather than guessed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "worker/engine/judge.h"

static q_points pts(const char *line)
{
    q_points p = -1;
    return wk_testlib_points(line, strlen(line), &p) < 0 ? -1 : p;
}

static void test_points_lines(void **state)
{
    (void)state;
    assert_int_equal(pts("points 0.5 half"), 500000);
    assert_int_equal(pts("points 3"), 3 * Q_POINTS_ONE);
    assert_int_equal(pts("points 3.0 ja=10.0000 pa=7.0000"), 3 * Q_POINTS_ONE);
    assert_int_equal(pts("points 0.3333333333 x"), 333333);
    assert_int_equal(pts("points points_info=0.25 quarter"), 250000);
    assert_int_equal(pts("points 7\r\n"), 7 * Q_POINTS_ONE);
    assert_int_equal(pts("points 1\nsecond line"), Q_POINTS_ONE);
    assert_int_equal(pts("points 1000000"), 1000000 * Q_POINTS_ONE); /* testlib's own cap */
    assert_int_equal(pts("points points_info=pa=1,ja=2 d=1"), -1);     /* info for a scorer */
    assert_int_equal(pts("points -1"), -1);
    assert_int_equal(pts("points 1e999999999"), -1);
    assert_int_equal(pts("points 99999999999999999999"), -1);
    assert_int_equal(pts("points nan"), -1);
    assert_int_equal(pts("points "), -1);
    assert_int_equal(pts("points"), -1);
    assert_int_equal(pts("ok 5"), -1);
    assert_int_equal(pts("\npoints 5"), -1); /* the first line only */
    q_points p;
    assert_int_equal(wk_testlib_points(NULL, 0, &p), -1);
}

static wk_judge_verdict verdict(sbx_status st, int code, const char *err, q_points *p)
{
    sbx_result r = { .status = st, .exit_code = code, .stderr_buf = (char *)err, .stderr_len = err ? strlen(err) : 0 };
    return wk_testlib_verdict(&r, p);
}

static void test_exit_codes(void **state)
{
    (void)state;
    q_points p = 0;
    assert_int_equal(verdict(SBX_OK, 0, "ok", &p), WK_JUDGE_ACCEPTED);
    assert_int_equal(verdict(SBX_RUNTIME_ERROR, 1, "wrong answer", &p), WK_JUDGE_REJECTED);
    assert_int_equal(verdict(SBX_RUNTIME_ERROR, 2, "wrong output format", &p), WK_JUDGE_REJECTED);
    assert_int_equal(verdict(SBX_RUNTIME_ERROR, 8, "unexpected eof", &p), WK_JUDGE_REJECTED);
    assert_int_equal(verdict(SBX_RUNTIME_ERROR, 3, "FAIL", &p), WK_JUDGE_FAILED);
    assert_int_equal(verdict(SBX_RUNTIME_ERROR, 4, "", &p), WK_JUDGE_FAILED);
    assert_int_equal(verdict(SBX_RUNTIME_ERROR, 7, "points 0.5", &p), WK_JUDGE_POINTS);
    assert_int_equal(p, 500000);
    assert_int_equal(verdict(SBX_RUNTIME_ERROR, 7, "points x", &p), WK_JUDGE_FAILED);
    assert_int_equal(verdict(SBX_RUNTIME_ERROR, 7, NULL, &p), WK_JUDGE_FAILED);
    assert_int_equal(verdict(SBX_SIGNALED, -1, "", &p), WK_JUDGE_FAILED);
    assert_int_equal(verdict(SBX_TIME_LIMIT, -1, "", &p), WK_JUDGE_FAILED);
    assert_int_equal(verdict(SBX_MEMORY_LIMIT, -1, "", &p), WK_JUDGE_FAILED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_lines),
        cmocka_unit_test(test_exit_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
