/* test_grade_score.c -- the order, the skipping and the arithmetic of a
 * grading's groups (worker/engine/score.c), on verdicts set by hand.
 *
 * The order brings a group in whole at its first test, after the groups it
 * depends on; a group whose dependency failed is skipped with the reason;
 * stop_on_failure skips the rest of a group only; each rule (all, min, sum,
 * product) gives its exact decimal score, rounded half up to 1e-6; tests
 * in no group count alone; defaults give each test 1 point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queue/grade.h"
#include "worker/engine/engine.h"
#include "worker/engine/score.h"

#define P(x) ((q_points)((x) * Q_POINTS_ONE))

static q_test tests[8];
static q_group groups[4];
static q_grade grade;
static q_graded graded[8];
static char names[8][8];

/* n tests named t0.., no groups. */
static void setup_tests(size_t n)
{
    memset(tests, 0, sizeof tests);
    memset(groups, 0, sizeof groups);
    memset(graded, 0, sizeof graded);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "t%zu", i);
        tests[i].name = names[i];
        graded[i].name = names[i];
    }
    grade = (q_grade){ .tests = tests, .ntests = n };
}

/* Runs the plan with the verdicts in `st` (one per test, by index; a
 * PARTIAL's score in `partial`): what was skipped is recorded as SKIPPED
 * with its message. Returns the order as "t2 t0 ...". */
static char order_seen[128];
static char msgs[8][WK_SCORE_MSG_LEN];
static void run(const char *const *st, const q_points *partial, q_group_result *gres, q_points *score,
                q_points *max)
{
    wk_score s;
    assert_int_equal(wk_score_init(&s, &grade), 0);
    order_seen[0] = 0;
    int first = -1;
    for (size_t n = 0; n < grade.ntests; n++) {
        size_t t = s.order[n];
        strcat(order_seen, names[t]);
        strcat(order_seen, " ");
        if (wk_score_skip(&s, t, graded, grade.stop_on_failure ? first : -1, msgs[t])) {
            graded[t].status = WK_ST_SKIPPED;
            graded[t].checker_message = msgs[t];
            wk_score_after(&s, t, graded);
            continue;
        }
        graded[t].status = st[t];
        graded[t].score = partial ? partial[t] : 0;
        if (strcmp(st[t], "OK") != 0 && first < 0)
            first = (int)t;
        wk_score_after(&s, t, graded);
    }
    wk_score_finish(&s, graded, gres, score, max);
    if (gres)
        for (size_t k = 0; k < grade.ngroups; k++)
            if (gres[k].message) /* copied out, as grade.c does: s is freed below */
                gres[k].message = strcpy(msgs[7 - k], gres[k].message);
    wk_score_free(&s);
}

static void test_no_groups_counts_passed(void **state)
{
    (void)state;
    setup_tests(4);
    const char *st[] = { "OK", "WRONG_ANSWER", "OK", "TIME_LIMIT" };
    q_points score, max;
    run(st, NULL, NULL, &score, &max);
    assert_string_equal(order_seen, "t0 t1 t2 t3 ");
    assert_int_equal(score, P(2));
    assert_int_equal(max, P(4));
    assert_int_equal(graded[0].score, P(1));
    assert_int_equal(graded[1].score, 0);
}

static void test_points_and_partial(void **state)
{
    (void)state;
    setup_tests(3);
    tests[0] = (q_test){ .name = names[0], .has_points = true, .points = 12500000 };
    tests[1].has_points = tests[2].has_points = true;
    tests[1].points = P(10);
    tests[2].points = P(0.1);
    const char *st[] = { "OK", WK_ST_PARTIAL, "OK" };
    q_points part[] = { 0, 3333333, 0 };
    q_points score, max;
    run(st, part, NULL, &score, &max);
    assert_int_equal(max, 22600000);          /* 12.5 + 10 + 0.1, exactly */
    assert_int_equal(score, 12500000 + 3333333 + 100000);
    assert_int_equal(graded[1].max_score, P(10));
    assert_int_equal(graded[1].score, 3333333);
}

/* Groups: samples (0 points), A (all, 30) depends on samples, B (min, 40)
 * depends on A, and a test in no group, which is worth 0 by default. */
static void groups_abc(void)
{
    setup_tests(6);
    static size_t gs[] = { 0 }, ga[] = { 1, 2 }, gb[] = { 3, 4 }, da[] = { 0 }, db[] = { 1 };
    tests[0].has_points = true; /* sample: 0 points */
    groups[0] = (q_group){ .name = "samples", .tests = gs, .ntests = 1 };
    groups[1] = (q_group){ .name = "A", .tests = ga, .ntests = 2, .has_points = true, .points = P(30),
                           .depends_on = da, .ndepends = 1 };
    groups[2] = (q_group){ .name = "B", .tests = gb, .ntests = 2, .has_points = true, .points = P(40),
                           .scoring = Q_SCORE_MIN, .depends_on = db, .ndepends = 1 };
    grade.groups = groups;
    grade.ngroups = 3;
}

static void test_dependency_order_and_skip(void **state)
{
    (void)state;
    groups_abc();
    /* The job lists one of B's tests first (t0, B listing it second), the
     * sample second: samples and A run before B all the same. */
    static size_t gs[] = { 1 }, gb[] = { 4, 0 }, ga[] = { 2, 3 };
    tests[0].has_points = false;
    tests[1].has_points = true;
    groups[0].tests = gs;
    groups[1].tests = ga;
    groups[2].tests = gb;
    const char *st[] = { "OK", "OK", "WRONG_ANSWER", "OK", "OK", "OK" };
    q_group_result gr[3];
    q_points score, max;
    run(st, NULL, gr, &score, &max);
    assert_string_equal(order_seen, "t1 t2 t3 t4 t0 t5 ");
    assert_string_equal(graded[0].status, WK_ST_SKIPPED);
    assert_string_equal(graded[0].checker_message, "depends on A (failed)");
    assert_string_equal(gr[1].status, "WRONG_ANSWER");
    assert_int_equal(gr[1].score, 0);
    assert_int_equal(gr[1].max_score, P(30));
    assert_string_equal(gr[2].status, WK_ST_SKIPPED);
    assert_string_equal(gr[2].message, "depends on A (failed)");
    assert_int_equal(gr[2].score, 0);
    assert_string_equal(gr[0].status, "OK");
    assert_int_equal(gr[0].max_score, 0);
    assert_int_equal(max, P(70));             /* t5 in no group: 0 by default */
    assert_int_equal(score, 0);
    assert_int_equal(graded[5].max_score, 0);
    assert_string_equal(graded[0].group, "B");
    assert_null(graded[5].group);
}

static void test_skip_propagates(void **state)
{
    (void)state;
    groups_abc();
    const char *st[] = { "RUNTIME_ERROR", "OK", "OK", "OK", "OK", "OK" };
    q_group_result gr[3];
    q_points score, max;
    run(st, NULL, gr, &score, &max);
    assert_string_equal(graded[1].checker_message, "depends on samples (failed)");
    assert_string_equal(graded[3].checker_message, "depends on A (skipped)");
    assert_int_equal(score, 0);
}

static void test_min_rule(void **state)
{
    (void)state;
    groups_abc();
    const char *st[] = { "OK", "OK", "OK", WK_ST_PARTIAL, WK_ST_PARTIAL, "OK" };
    q_points part[] = { 0, 0, 0, P(0.5), P(0.25), 0 };
    q_group_result gr[3];
    q_points score, max;
    run(st, part, gr, &score, &max);
    assert_int_equal(gr[1].score, P(30));
    assert_int_equal(gr[2].score, P(10)); /* 40 x min(0.5, 0.25) */
    assert_int_equal(score, P(40));
    assert_string_equal(gr[2].status, WK_ST_PARTIAL);
}

static void test_stop_on_failure_in_group(void **state)
{
    (void)state;
    groups_abc();
    groups[1].stop_on_failure = true;
    const char *st[] = { "OK", "TIME_LIMIT", "OK", "OK", "OK", "WRONG_ANSWER" };
    q_group_result gr[3];
    q_points score, max;
    run(st, NULL, gr, &score, &max);
    assert_string_equal(graded[2].status, WK_ST_SKIPPED);
    assert_string_equal(graded[2].checker_message, "stopped: test t1 failed");
    /* The test in no group still ran: only the group stopped. */
    assert_string_equal(graded[5].status, "WRONG_ANSWER");
    assert_string_equal(gr[1].status, "TIME_LIMIT");
}

static void test_job_stop_on_failure(void **state)
{
    (void)state;
    setup_tests(3);
    grade.stop_on_failure = true;
    const char *st[] = { "WRONG_ANSWER", "OK", "OK" };
    q_points score, max;
    run(st, NULL, NULL, &score, &max);
    assert_string_equal(graded[2].checker_message, "stopped: test t0 failed");
    assert_int_equal(score, 0);
    assert_int_equal(max, P(3));
}

/* One group over three tests of 1, 2 and 3 points, scored by each rule. */
static q_points one_group(q_scoring rule, bool points30, const q_points *part, const char *const *st)
{
    setup_tests(3);
    static size_t all3[] = { 0, 1, 2 };
    for (int i = 0; i < 3; i++) {
        tests[i].has_points = true;
        tests[i].points = P(i + 1);
    }
    groups[0] = (q_group){ .name = "g", .tests = all3, .ntests = 3, .scoring = rule, .has_points = points30,
                           .points = P(30) };
    grade.groups = groups;
    grade.ngroups = 1;
    q_group_result gr[1];
    q_points score, max;
    run(st, part, gr, &score, &max);
    assert_int_equal(max, points30 ? P(30) : P(6));
    assert_int_equal(score, gr[0].score);
    return score;
}

static void test_rules(void **state)
{
    (void)state;
    const char *st[] = { "OK", WK_ST_PARTIAL, WK_ST_PARTIAL };
    q_points part[] = { 0, P(1), P(1) }; /* fractions 1, 1/2, 1/3 */
    assert_int_equal(one_group(Q_SCORE_ALL, true, part, st), 0);
    assert_int_equal(one_group(Q_SCORE_MIN, true, part, st), P(10));
    assert_int_equal(one_group(Q_SCORE_SUM, false, part, st), P(3));     /* 1 + 1 + 1 */
    assert_int_equal(one_group(Q_SCORE_SUM, true, part, st), P(15));     /* 30 x 3/6 */
    assert_int_equal(one_group(Q_SCORE_PRODUCT, true, part, st), P(5));  /* 30 x 1 x 1/2 x 1/3 */
    q_points thirds[] = { P(1) / 3, P(2) / 3, P(1) };                    /* 333333, 666666, 1000000 */
    const char *pst[] = { WK_ST_PARTIAL, WK_ST_PARTIAL, WK_ST_PARTIAL };
    /* min: 30 x 333333/1000000 = 9.99999 exactly, no float error. */
    assert_int_equal(one_group(Q_SCORE_MIN, true, thirds, pst), 9999990);
    /* product: 30 x 0.333333 = 9.99999, x 0.333333 = 3.333326666667 -> 3.333327,
     * x 1/3 = 1.111109 */
    assert_int_equal(one_group(Q_SCORE_PRODUCT, true, thirds, pst), 1111109);
    const char *ok[] = { "OK", "OK", "OK" };
    assert_int_equal(one_group(Q_SCORE_ALL, false, NULL, ok), P(6));
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_no_groups_counts_passed), cmocka_unit_test(test_points_and_partial),
        cmocka_unit_test(test_dependency_order_and_skip), cmocka_unit_test(test_skip_propagates),
        cmocka_unit_test(test_min_rule),                cmocka_unit_test(test_stop_on_failure_in_group),
        cmocka_unit_test(test_job_stop_on_failure),     cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
