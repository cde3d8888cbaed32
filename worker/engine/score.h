/* score.h -- the groups of a grading: in which order its tests run, which
 * are skipped and why, and the scores (score.c).
 *
 * ORDER. Tests run in the job's order, except that the first test of a
 * group brings the whole group in (its tests in the order the group lists
 * them), preceded by every group it depends on that has not run yet. So
 * a dependency has always finished when a group starts, and a job whose
 * groups are contiguous and in order runs exactly in its own order.
 *
 * SKIPPING. A group runs only when each group it depends on had every
 * test OK; else each of its tests is SKIPPED, "depends on NAME (failed)"
 * (or "(skipped)" when that group was not run either). In a group with
 * stop_on_failure, a test that is not OK skips the rest of the group
 * ("stopped: test NAME failed"); the job's own stop_on_failure skips every
 * test after the first that is not OK.
 *
 * SCORES are micro-points (points.h). A test scores its points when OK,
 * what the checker gave when PARTIAL, else 0; its fraction is score over
 * points (a test of 0 points: 1 when OK, else 0). A group's maximum is its
 * points (default: its tests' points added); its score by its rule:
 *   all      the maximum when every test is OK, else 0
 *   min      maximum x the smallest fraction
 *   sum      maximum x (the tests' scores added / their points added)
 *   product  maximum x each fraction in turn, rounded after each
 * each rounded half up to 1e-6. The job's score adds the groups' and the
 * scores of the tests in no group.
 */
#ifndef GRADEQ_WORKER_SCORE_H
#define GRADEQ_WORKER_SCORE_H

#include <stdbool.h>
#include <stddef.h>

#include "queue/grade.h"

#define WK_SCORE_MSG_LEN 256

typedef struct wk_score {
    const q_grade *g;
    size_t *order;        /* test indices in the order they run */
    int *group_of;        /* per test: its group's index, or -1 */
    q_points *points;     /* per test: its points */
    /* Per group, while grading (the slot of its first test fills them). */
    bool *started;
    char (*skip)[WK_SCORE_MSG_LEN]; /* "" unless the group is not run */
    int *stopped_at;      /* -1, or the test that stopped the group */
} wk_score;

/* Plans g's order and points. Returns 0, or -1 (out of memory). */
int wk_score_init(wk_score *s, const q_grade *g);
void wk_score_free(wk_score *s);

/* Before test t runs, given every test run so far (tests[], their status
 * set; NULL status: not reached yet): true when it is to be SKIPPED, with
 * why in msg. Call in s->order, once per test. first_failed is the job's
 * first test that was not OK (-1 none) when the job stops on failure, else
 * -1. */
bool wk_score_skip(wk_score *s, size_t t, const q_graded *tests, int first_failed, char msg[WK_SCORE_MSG_LEN]);

/* After test t got its status (SKIPPED too): sets its own score, points
 * and group, and notes a failure that stops its group. */
void wk_score_after(wk_score *s, size_t t, q_graded *tests);

/* Fills each test's max_score and score (keeping a PARTIAL test's score,
 * which the checker set), the groups' results (groups[] has g->ngroups
 * entries; their messages point into s) and the totals. */
void wk_score_finish(const wk_score *s, q_graded *tests, q_group_result *groups, q_points *score,
                     q_points *max_score);

#endif
