/* score.c -- order, skipping and scores of a grading's groups (score.h).
 *
 * Arithmetic is on micro-points in 64 bits, scaled through 128-bit
 * products (q_points_muldiv): a fraction is kept as numerator and
 * denominator, never as a double, so a score is the same on every
 * machine. The order is a depth-first walk of the dependencies with an
 * explicit stack (a group depends only on groups before it, so the walk
 * ends), each group entered once: linear in the groups and dependencies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/engine/engine.h"
#include "worker/engine/score.h"

void wk_score_free(wk_score *s)
{
    free(s->order);
    free(s->group_of);
    free(s->points);
    free(s->started);
    free(s->skip);
    free(s->stopped_at);
    memset(s, 0, sizeof *s);
}

/* Appends group k's tests to the order after the groups it depends on
 * that are not there yet. stack has room for every group. */
static void schedule(wk_score *s, size_t k, size_t *n, bool *entered, size_t (*stack)[2])
{
    const q_grade *g = s->g;
    size_t top = 0;
    entered[k] = true;
    stack[top][0] = k;
    stack[top++][1] = 0;
    while (top) {
        size_t grp = stack[top - 1][0], *next = &stack[top - 1][1];
        if (*next < g->groups[grp].ndepends) {
            size_t d = g->groups[grp].depends_on[(*next)++];
            if (!entered[d]) {
                entered[d] = true;
                stack[top][0] = d;
                stack[top++][1] = 0;
            }
            continue;
        }
        for (size_t i = 0; i < g->groups[grp].ntests; i++)
            s->order[(*n)++] = g->groups[grp].tests[i];
        top--;
    }
}

int wk_score_init(wk_score *s, const q_grade *g)
{
    size_t nt = g->ntests, ng = g->ngroups;
    memset(s, 0, sizeof *s);
    s->g = g;
    s->order = calloc(nt + 1, sizeof *s->order);
    s->group_of = calloc(nt + 1, sizeof *s->group_of);
    s->points = calloc(nt + 1, sizeof *s->points);
    s->started = calloc(ng + 1, sizeof *s->started);
    s->skip = calloc(ng + 1, sizeof *s->skip);
    s->stopped_at = calloc(ng + 1, sizeof *s->stopped_at);
    bool *entered = calloc(ng + 1, sizeof *entered);
    size_t(*stack)[2] = calloc(ng + 1, sizeof *stack);
    if (!s->order || !s->group_of || !s->points || !s->started || !s->skip || !s->stopped_at || !entered ||
        !stack) {
        free(entered);
        free(stack);
        wk_score_free(s);
        return -1;
    }
    for (size_t t = 0; t < nt; t++)
        s->group_of[t] = -1;
    for (size_t k = 0; k < ng; k++) {
        s->stopped_at[k] = -1;
        for (size_t i = 0; i < g->groups[k].ntests; i++)
            s->group_of[g->groups[k].tests[i]] = (int)k;
    }
    size_t n = 0;
    for (size_t t = 0; t < nt; t++) {
        s->points[t] = q_test_points(g, &g->tests[t], s->group_of[t] >= 0);
        if (s->group_of[t] < 0)
            s->order[n++] = t;
        else if (!entered[s->group_of[t]])
            schedule(s, (size_t)s->group_of[t], &n, entered, stack);
    }
    free(entered);
    free(stack);
    return 0;
}

static bool ok(const q_graded *t)
{
    return t->status && strcmp(t->status, "OK") == 0;
}

/* Every test of group k OK. */
static bool group_passed(const wk_score *s, size_t k, const q_graded *tests)
{
    const q_group *gr = &s->g->groups[k];
    for (size_t i = 0; i < gr->ntests; i++)
        if (!ok(&tests[gr->tests[i]]))
            return false;
    return true;
}

bool wk_score_skip(wk_score *s, size_t t, const q_graded *tests, int first_failed, char msg[WK_SCORE_MSG_LEN])
{
    const q_grade *g = s->g;
    int k = s->group_of[t];
    if (k >= 0 && !s->started[k]) {
        s->started[k] = true;
        const q_group *gr = &g->groups[k];
        for (size_t i = 0; i < gr->ndepends && !s->skip[k][0]; i++) {
            size_t d = gr->depends_on[i];
            if (!group_passed(s, d, tests))
                snprintf(s->skip[k], sizeof s->skip[k], "depends on %s (%s)", g->groups[d].name,
                         s->skip[d][0] ? "skipped" : "failed");
        }
    }
    if (k >= 0 && s->skip[k][0]) {
        snprintf(msg, WK_SCORE_MSG_LEN, "%s", s->skip[k]);
        return true;
    }
    if (k >= 0 && s->stopped_at[k] >= 0) {
        snprintf(msg, WK_SCORE_MSG_LEN, "stopped: test %s failed", g->tests[s->stopped_at[k]].name);
        return true;
    }
    if (first_failed >= 0) {
        snprintf(msg, WK_SCORE_MSG_LEN, "stopped: test %s failed", g->tests[first_failed].name);
        return true;
    }
    return false;
}

/* A test's own score, its points and its group, once it has a status. */
static void own_score(const wk_score *s, size_t t, q_graded *x)
{
    x->max_score = s->points[t];
    if (ok(x))
        x->score = x->max_score;
    else if (strcmp(x->status, WK_ST_PARTIAL) != 0)
        x->score = 0;
    else if (x->score > x->max_score)
        x->score = x->max_score;
    x->group = s->group_of[t] >= 0 ? s->g->groups[s->group_of[t]].name : NULL;
}

void wk_score_after(wk_score *s, size_t t, q_graded *tests)
{
    int k = s->group_of[t];
    own_score(s, t, &tests[t]);
    if (k >= 0 && s->stopped_at[k] < 0 && s->g->groups[k].stop_on_failure && !ok(&tests[t]) &&
        strcmp(tests[t].status, WK_ST_SKIPPED) != 0)
        s->stopped_at[k] = (int)t;
}

/* A test's fraction as num / den. */
static void fraction(const q_graded *t, q_points *num, q_points *den)
{
    if (t->max_score > 0) {
        *num = t->score;
        *den = t->max_score;
    } else {
        *num = ok(t);
        *den = 1;
    }
}

static q_points group_score(const wk_score *s, size_t k, const q_graded *tests, q_points max)
{
    const q_group *gr = &s->g->groups[k];
    q_points num, den, best_num = 1, best_den = 1, sum = 0, sum_max = 0, acc = max;
    switch (gr->scoring) {
    case Q_SCORE_ALL:
        return group_passed(s, k, tests) ? max : 0;
    case Q_SCORE_MIN:
        for (size_t i = 0; i < gr->ntests; i++) {
            fraction(&tests[gr->tests[i]], &num, &den);
            if ((unsigned __int128)num * (uint64_t)best_den < (unsigned __int128)best_num * (uint64_t)den) {
                best_num = num;
                best_den = den;
            }
        }
        return q_points_muldiv(max, best_num, best_den);
    case Q_SCORE_SUM:
        for (size_t i = 0; i < gr->ntests; i++) {
            sum += tests[gr->tests[i]].score;
            sum_max += tests[gr->tests[i]].max_score;
        }
        if (!sum_max)
            return group_passed(s, k, tests) ? max : 0;
        return q_points_muldiv(max, sum, sum_max);
    case Q_SCORE_PRODUCT:
        for (size_t i = 0; i < gr->ntests; i++) {
            fraction(&tests[gr->tests[i]], &num, &den);
            acc = q_points_muldiv(acc, num, den);
        }
        return acc;
    }
    return 0;
}

/* The group's status: its first test (as it lists them) neither OK nor
 * SKIPPED; else SKIPPED when one was; else OK. */
static const char *group_status(const q_group *gr, const q_graded *tests)
{
    bool skipped = false;
    for (size_t i = 0; i < gr->ntests; i++) {
        const char *st = tests[gr->tests[i]].status;
        if (strcmp(st, WK_ST_SKIPPED) == 0)
            skipped = true;
        else if (strcmp(st, "OK") != 0)
            return st;
    }
    return skipped ? WK_ST_SKIPPED : "OK";
}

void wk_score_finish(const wk_score *s, q_graded *tests, q_group_result *groups, q_points *score,
                     q_points *max_score)
{
    const q_grade *g = s->g;
    *score = *max_score = 0;
    for (size_t t = 0; t < g->ntests; t++) {
        q_graded *x = &tests[t];
        own_score(s, t, x);
        if (s->group_of[t] < 0) {
            *score += x->score;
            *max_score += x->max_score;
        }
    }
    for (size_t k = 0; k < g->ngroups; k++) {
        const q_group *gr = &g->groups[k];
        q_points max = 0;
        if (gr->has_points)
            max = gr->points;
        else
            for (size_t i = 0; i < gr->ntests; i++)
                max += tests[gr->tests[i]].max_score;
        groups[k] = (q_group_result){ gr->name, group_status(gr, tests), group_score(s, k, tests, max), max,
                                      s->skip[k][0] ? s->skip[k] : NULL };
        *score += groups[k].score;
        *max_score += max;
    }
}
