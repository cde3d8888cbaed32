/* cli_scores.c -- the points and groups of a grading from the command
 * line: --points NAME=X and --group 'name=N points=X scoring=R
 * tests=A,B,C..D depends_on=G,H stop_on_failure' (grade_cli.h).
 *
 * The job's rules hold (grade.h): the tests are the folder's, each named
 * once; a test in one group at most; dependencies on groups given before.
 * A numeric range A..B takes every test whose name is a number from A to
 * B (leading zeros aside: "01".."10"), in the folder's order. Values from
 * the command line reach messages only as the user typed them, on the
 * user's own terminal.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/words.h"
#include "worker/cli/grade_cli.h"
#include "worker/lang/languages.h"

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static long test_index(const wk_cli_grade *g, const char *name, size_t n)
{
    for (size_t i = 0; i < g->ntests; i++)
        if (strlen(g->tests[i].name) == n && memcmp(g->tests[i].name, name, n) == 0)
            return (long)i;
    return -1;
}

/* The value of an all-digits s[0..n) (at most 18 digits), else -1. */
static long long number(const char *s, size_t n)
{
    long long v = 0;
    if (!n || n > 18)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

int wk_cli_points(wk_cli_grade *g, char *err, size_t errlen)
{
    for (size_t k = 0; k < g->npoints; k++) {
        const char *a = g->points_args[k], *eq = strchr(a, '=');
        long t = eq ? test_index(g, a, (size_t)(eq - a)) : -1;
        if (!eq)
            return fail(err, errlen, "--points %s: needs NAME=POINTS", a);
        if (t < 0)
            return fail(err, errlen, "--points %s: no test of that name in %s", a, g->tests_dir);
        if (q_points_parse(eq + 1, strlen(eq + 1), false, &g->tests[t].points) < 0)
            return fail(err, errlen, "--points %s: not a number in 0..1000000000 with at most 6 decimals", a);
        g->tests[t].has_points = true;
    }
    return 0;
}

/* Adds test t to group gr, once. */
static int add_test(wk_cli_grade *g, q_group *gr, long t, unsigned char *taken, const char *spec, char *err,
                    size_t errlen)
{
    if (taken[t])
        return fail(err, errlen, "--group %s: test %s is in a group already", spec, g->tests[t].name);
    taken[t] = 1;
    gr->tests[gr->ntests++] = (size_t)t;
    return 0;
}

/* tests=A,B,C..D */
static int group_tests(wk_cli_grade *g, q_group *gr, char *list, unsigned char *taken, const char *spec, char *err,
                       size_t errlen)
{
    for (char *item = list, *next; item; item = next) {
        next = strchr(item, ',');
        size_t n = next ? (size_t)(next - item) : strlen(item);
        next = next ? next + 1 : NULL;
        const char *dots = memmem(item, n, "..", 2);
        long long lo = dots ? number(item, (size_t)(dots - item)) : -1;
        long long hi = dots ? number(dots + 2, n - (size_t)(dots - item) - 2) : -1;
        if (lo >= 0 && hi >= 0) {
            size_t before = gr->ntests;
            for (size_t t = 0; t < g->ntests; t++) {
                long long v = number(g->tests[t].name, strlen(g->tests[t].name));
                if (v >= lo && v <= hi && add_test(g, gr, (long)t, taken, spec, err, errlen) < 0)
                    return -1;
            }
            if (gr->ntests == before) {
                item[n] = 0;
                return fail(err, errlen, "--group %s: no test in %s", spec, item);
            }
            continue;
        }
        long t = test_index(g, item, n);
        if (t < 0) {
            item[n] = 0;
            return fail(err, errlen, "--group %s: no test %s", spec, item);
        }
        if (add_test(g, gr, t, taken, spec, err, errlen) < 0)
            return -1;
    }
    return gr->ntests ? 0 : fail(err, errlen, "--group %s: tests=NAME,... missing", spec);
}

/* depends_on=G,H: groups given before this one. */
static int group_depends(wk_cli_grade *g, size_t k, char *list, const char *spec, char *err, size_t errlen)
{
    q_group *gr = &g->groups[k];
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
        size_t d = 0;
        while (d < k && strcmp(g->groups[d].name, item) != 0)
            d++;
        if (d == k)
            return fail(err, errlen, "--group %s: depends on %s, not a group given before it", spec, item);
        for (size_t m = 0; m < gr->ndepends; m++)
            if (gr->depends_on[m] == d)
                return fail(err, errlen, "--group %s: depends on %s twice", spec, item);
        gr->depends_on[gr->ndepends++] = d;
    }
    return 0;
}

static int group(wk_cli_grade *g, size_t k, unsigned char *taken, char *err, size_t errlen)
{
    static const char *const rules[] = { "all", "min", "sum", "product" };
    const char *spec = g->group_args[k];
    char buf[4096], *w[64], why[96];
    q_group *gr = &g->groups[k];
    gr->tests = calloc(g->ntests + 1, sizeof *gr->tests);
    gr->depends_on = calloc(k + 1, sizeof *gr->depends_on);
    if (!gr->tests || !gr->depends_on)
        return fail(err, errlen, "--group %s: out of memory", spec);
    if (wk_split_words(spec, buf, sizeof buf, w, 64, why, sizeof why) < 0)
        return fail(err, errlen, "--group %s: %s", spec, why);
    char *tests = NULL, *depends = NULL, pos[24];
    for (size_t i = 0; w[i]; i++) {
        char *eq = strchr(w[i], '='), *v = eq ? eq + 1 : NULL;
        if (eq)
            *eq = 0;
        if (!eq && strcmp(w[i], "stop_on_failure") == 0) {
            gr->stop_on_failure = true;
        } else if (eq && strcmp(w[i], "name") == 0 && *v) {
            free(gr->name);
            gr->name = strdup(v);
        } else if (eq && strcmp(w[i], "points") == 0) {
            if (q_points_parse(v, strlen(v), false, &gr->points) < 0)
                return fail(err, errlen, "--group %s: points=%s: not a number with at most 6 decimals", spec, v);
            gr->has_points = true;
        } else if (eq && strcmp(w[i], "scoring") == 0) {
            size_t r = 0;
            while (r < 4 && strcmp(rules[r], v) != 0)
                r++;
            if (r == 4)
                return fail(err, errlen, "--group %s: scoring=%s: not all, min, sum or product", spec, v);
            gr->scoring = (q_scoring)r;
        } else if (eq && strcmp(w[i], "tests") == 0) {
            tests = v;
        } else if (eq && strcmp(w[i], "depends_on") == 0) {
            depends = v;
        } else {
            return fail(err, errlen, "--group %s: %s: not name=, points=, scoring=, tests=, depends_on= or "
                                     "stop_on_failure", spec, w[i]);
        }
    }
    if (!gr->name) {
        snprintf(pos, sizeof pos, "%zu", k + 1);
        gr->name = strdup(pos);
    }
    if (!gr->name)
        return fail(err, errlen, "--group %s: out of memory", spec);
    for (size_t d = 0; d < k; d++)
        if (strcmp(g->groups[d].name, gr->name) == 0)
            return fail(err, errlen, "--group %s: a group named %s was given already", spec, gr->name);
    if (!tests)
        return fail(err, errlen, "--group %s: tests=NAME,... missing", spec);
    if (group_tests(g, gr, tests, taken, spec, err, errlen) < 0)
        return -1;
    return depends ? group_depends(g, k, depends, spec, err, errlen) : 0;
}

int wk_cli_groups(wk_cli_grade *g, char *err, size_t errlen)
{
    if (!g->ngroup_args)
        return 0;
    g->groups = calloc(g->ngroup_args, sizeof *g->groups);
    unsigned char *taken = calloc(g->ntests + 1, 1);
    int rc = g->groups && taken ? 0 : fail(err, errlen, "--group: out of memory");
    for (size_t k = 0; rc == 0 && k < g->ngroup_args; k++) {
        g->ngroups = k + 1;
        rc = group(g, k, taken, err, errlen);
    }
    free(taken);
    return rc;
}

void wk_cli_groups_free(wk_cli_grade *g)
{
    for (size_t k = 0; g->groups && k < g->ngroups; k++) {
        free(g->groups[k].name);
        free(g->groups[k].tests);
        free(g->groups[k].depends_on);
    }
    free(g->groups);
    g->groups = NULL;
    g->ngroups = 0;
}
