/* groups.c -- a package's subtasks checked and ordered (groups.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/text.h"
#include "worker/problem/groups.h"
#include "worker/problem/material.h"

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 4;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

int wk_gdef_dep(wk_gdef *d, const char *name)
{
    char *s = strdup(name);
    if (!s || grow((void **)&d->deps, &d->capdeps, d->ndeps, sizeof *d->deps) < 0) {
        free(s);
        return -1;
    }
    d->deps[d->ndeps++] = s;
    return 0;
}

int wk_gdef_test(wk_gdef *d, size_t test)
{
    if (grow((void **)&d->tests, &d->captests, d->ntests, sizeof *d->tests) < 0)
        return -1;
    d->tests[d->ntests++] = test;
    return 0;
}

void wk_gdefs_free(wk_gdef *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++) {
        free(d[i].name);
        for (size_t k = 0; k < d[i].ndeps; k++)
            free(d[i].deps[k]);
        free(d[i].deps);
        free(d[i].tests);
    }
    free(d);
}

void wk_groups_free(q_group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++) {
        free(g[i].name);
        free(g[i].tests);
        free(g[i].depends_on);
    }
    free(g);
}

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

typedef struct names {
    size_t *slot; /* index + 1, 0 empty */
    size_t mask;
    wk_gdef *defs;
} names;

static size_t *find(const names *t, const char *name)
{
    size_t i = hash(name) & t->mask;
    while (t->slot[i] && strcmp(t->defs[t->slot[i] - 1].name, name) != 0)
        i = (i + 1) & t->mask;
    return &t->slot[i];
}

static int fail(char *err, size_t errlen, const char *what, const char *group, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t errlen, const char *what, const char *group, const char *fmt, ...)
{
    char q[WK_MAT_QUOTE_MAX];
    int k = snprintf(err, errlen, "%s: group %s: ", what, wk_mat_quote(q, sizeof q, group));
    if (k >= 0 && (size_t)k < errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

int wk_groups_order(wk_gdef *defs, size_t n, const char *what, q_group **out, char *err, size_t errlen)
{
    char q[WK_MAT_QUOTE_MAX];
    *out = NULL;
    size_t cap = 4;
    while (cap < 2 * n + 2)
        cap *= 2;
    names t = { calloc(cap, sizeof(size_t)), cap - 1, defs };
    size_t *indeg = calloc(n + 1, sizeof *indeg), *queue = calloc(n + 1, sizeof *queue);
    size_t *place = calloc(n + 1, sizeof *place), *dep_of = NULL, *first = calloc(n + 2, sizeof *first);
    size_t edges = 0;
    int rc = t.slot && indeg && queue && place && first ? 0 : oom(err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!defs[i].name || !defs[i].name[0]) {
            rc = fail(err, errlen, what, "", "a group without a name");
            break;
        }
        size_t *s = find(&t, defs[i].name);
        if (*s)
            rc = fail(err, errlen, what, defs[i].name, "a name given to two groups");
        *s = i + 1;
        edges += defs[i].ndeps;
    }
    /* Edges d -> i grouped by d (first[d]..first[d+1]), counted then placed. */
    if (rc == 0 && !(dep_of = calloc(edges + 1, sizeof *dep_of)))
        rc = oom(err, errlen);
    size_t *targets = NULL;
    if (rc == 0 && !(targets = calloc(edges + 1, sizeof *targets)))
        rc = oom(err, errlen);
    for (size_t i = 0, e = 0; rc == 0 && i < n; i++) {
        for (size_t k = 0; k < defs[i].ndeps; k++, e++) {
            size_t d = *find(&t, defs[i].deps[k]);
            if (!d) {
                rc = fail(err, errlen, what, defs[i].name, "depends on %s, which is no group",
                          wk_mat_quote(q, sizeof q, defs[i].deps[k]));
                break;
            }
            if (d - 1 == i) {
                rc = fail(err, errlen, what, defs[i].name, "depends on itself");
                break;
            }
            dep_of[e] = d - 1;
            first[d - 1]++;
            indeg[i]++;
        }
    }
    if (rc < 0)
        goto done;
    /* A dependency given twice, in linear time: each group's dependencies
     * marked in place[] with the group's index + 1. */
    for (size_t i = 0, e = 0; i < n && rc == 0; i++) {
        for (size_t k = 0; k < defs[i].ndeps; k++, e++) {
            if (place[dep_of[e]] == i + 1) {
                rc = fail(err, errlen, what, defs[i].name, "depends on %s twice",
                          wk_mat_quote(q, sizeof q, defs[i].deps[k]));
                break;
            }
            place[dep_of[e]] = i + 1;
        }
    }
    if (rc < 0)
        goto done;
    size_t sum = 0;
    for (size_t d = 0; d <= n; d++) {
        size_t c = first[d];
        first[d] = sum;
        sum += c;
    }
    memset(place, 0, (n + 1) * sizeof *place);
    for (size_t i = 0, e = 0; i < n; i++)
        for (size_t k = 0; k < defs[i].ndeps; k++, e++)
            targets[first[dep_of[e]] + place[dep_of[e]]++] = i;
    /* Kahn: groups with no dependency left, in the order written. */
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (!indeg[i])
            queue[tail++] = i;
    while (head < tail) {
        size_t d = queue[head++];
        for (size_t e = first[d]; e < first[d + 1]; e++)
            if (--indeg[targets[e]] == 0)
                queue[tail++] = targets[e];
    }
    if (tail < n) {
        for (size_t i = 0; i < n; i++)
            if (indeg[i]) {
                rc = fail(err, errlen, what, defs[i].name, "in a cycle of dependencies");
                break;
            }
        goto done;
    }
    q_group *g = calloc(n + 1, sizeof *g);
    if (!g) {
        rc = oom(err, errlen);
        goto done;
    }
    for (size_t k = 0; k < n; k++)
        place[queue[k]] = k;
    for (size_t k = 0; k < n && rc == 0; k++) {
        wk_gdef *d = &defs[queue[k]];
        g[k] = (q_group){ NULL, NULL, d->ntests, d->has_points, d->points, d->scoring,
                          calloc(d->ndeps + 1, sizeof(size_t)), d->ndeps, d->stop_on_failure };
        if (!g[k].depends_on) {
            rc = oom(err, errlen);
            break;
        }
        for (size_t m = 0; m < d->ndeps; m++)
            g[k].depends_on[m] = place[*find(&t, d->deps[m]) - 1];
    }
    if (rc < 0) {
        wk_groups_free(g, n);
        goto done;
    }
    for (size_t k = 0; k < n; k++) { /* names and tests move once all are found */
        wk_gdef *d = &defs[queue[k]];
        g[k].name = d->name;
        g[k].tests = d->tests;
        d->name = NULL;
        d->tests = NULL;
        d->ntests = 0;
    }
    *out = g;
done:
    free(t.slot);
    free(indeg);
    free(queue);
    free(place);
    free(dep_of);
    free(targets);
    free(first);
    return rc;
}
