/* grade_groups.c -- a grading job's groups (subtasks) on the wire, both
 * ways, and the points of its tests (see grade.h).
 *
 * A group names its tests and its dependencies by name. Names are looked
 * up by binary search in an index sorted once, so a hostile job listing a
 * million names costs a million logarithmic lookups, never a quadratic
 * scan. Counts are checked against Q_TESTS_MAX and Q_GROUPS_MAX before an
 * array is allocated; every group is released by q_grade_free whatever
 * point decoding reached (ngroups counts the groups begun).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/codec_util.h"
#include "queue/grade.h"
#include "queue/job_decode.h"
#include "queue/prescan.h"

static const char *const scoring_names[] = { "all", "min", "sum", "product" };

const char *q_scoring_name(q_scoring s)
{
    return (unsigned)s < sizeof scoring_names / sizeof scoring_names[0] ? scoring_names[s] : "?";
}

q_points q_test_points(const q_grade *g, const q_test *t, bool in_group)
{
    if (t->has_points)
        return t->points;
    return g->ngroups && !in_group ? 0 : Q_POINTS_ONE;
}

int q_decode_points(const msgpack_object *o, const char *pre, const char *key, q_points *out, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    const char *p;
    size_t n;
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        if (o->via.u64 > (uint64_t)(Q_POINTS_MAX / Q_POINTS_ONE))
            return DFAIL(d, "%s%s: over %lld", pre, key, (long long)(Q_POINTS_MAX / Q_POINTS_ONE));
        *out = (q_points)o->via.u64 * Q_POINTS_ONE;
        return 0;
    }
    if (o->type == MSGPACK_OBJECT_FLOAT32 || o->type == MSGPACK_OBJECT_FLOAT64) {
        if (q_points_from_double(o->via.f64, out) < 0)
            return DFAIL(d, "%s%s: not a finite number in 0..%lld", pre, key,
                         (long long)(Q_POINTS_MAX / Q_POINTS_ONE));
        return 0;
    }
    if (q_bytes(o, &p, &n)) {
        if (q_points_parse(p, n, false, out) < 0)
            return DFAIL(d, "%s%s: %s: not a decimal in 0..%lld with at most 6 decimals", pre, key,
                         q_quote(q, p, n), (long long)(Q_POINTS_MAX / Q_POINTS_ONE));
        return 0;
    }
    return DFAIL(d, "%s%s: not a number >= 0", pre, key);
}

/* Indices of n names sorted by name, for lookups. */
typedef struct name_index {
    const char *const *names; /* names[i] is item i's */
    size_t *order;
    size_t n;
} name_index;

static int by_name(const void *a, const void *b, void *ctx)
{
    const name_index *x = ctx;
    return strcmp(x->names[*(const size_t *)a], x->names[*(const size_t *)b]);
}

/* s against the bytes key[0..n), which may hold anything (a NUL too), in
 * the order strcmp sorts names by. */
static int cmp_key(const char *s, const char *key, size_t n)
{
    size_t sl = strlen(s), m = sl < n ? sl : n;
    int c = memcmp(s, key, m);
    return c ? c : sl < n ? -1 : sl > n;
}

/* How many items are named key[0..n) exactly, counting to 2 at most;
 * *first is one of them. */
static size_t lookup(const name_index *x, const char *key, size_t n, size_t *first)
{
    size_t lo = 0, hi = x->n, count = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_key(x->names[x->order[mid]], key, n) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < x->n && count < 2 && cmp_key(x->names[x->order[lo]], key, n) == 0; lo++)
        if (!count++)
            *first = x->order[lo];
    return count;
}

static int index_init(name_index *x, const char **names, size_t n)
{
    x->names = names;
    x->n = n;
    x->order = malloc((n + 1) * sizeof *x->order);
    if (!x->order)
        return -1;
    for (size_t i = 0; i < n; i++)
        x->order[i] = i;
    qsort_r(x->order, n, sizeof *x->order, by_name, x);
    return 0;
}

/* Adds item i (its name set) to an index with room for it. */
static void index_add(name_index *x, size_t i)
{
    size_t at = x->n;
    while (at > 0 && strcmp(x->names[x->order[at - 1]], x->names[i]) > 0)
        at--;
    memmove(x->order + at + 1, x->order + at, (x->n - at) * sizeof *x->order);
    x->order[at] = i;
    x->n++;
}

enum { GR_NAME, GR_TESTS, GR_POINTS, GR_SCORING, GR_DEPENDS, GR_STOP, GR_KEYS };
static const char *const group_keys[GR_KEYS] = { "name", "tests", "points", "scoring", "depends_on",
                                                 "stop_on_failure" };

typedef struct groups_dec {
    q_grade *g;
    q_job_dec *d;
    name_index tests;     /* every test by name */
    const char **gnames;  /* the groups' names, as decoded */
    name_index groups;    /* the groups before the one being decoded */
    unsigned char *owner; /* per test: 1 when a group holds it */
} groups_dec;

static int decode_group_name(const msgpack_object *o, size_t i, q_group *gr, groups_dec *x)
{
    char q[Q_QUOTE_LEN], pre[32], pos[24];
    const char *p;
    size_t n, at;
    snprintf(pre, sizeof pre, "groups[%zu].", i);
    if (!o) {
        snprintf(pos, sizeof pos, "%zu", i + 1);
        p = pos;
        n = strlen(pos);
    } else {
        if (!q_bytes(o, &p, &n))
            return DFAIL(x->d, "%sname: not a string", pre);
        if (n == 0 || n > Q_TEST_NAME_MAX)
            return DFAIL(x->d, "%sname: %zu bytes, not 1..%d", pre, n, Q_TEST_NAME_MAX);
        for (size_t k = 0; k < n; k++)
            if (p[k] < 0x20 || p[k] > 0x7e)
                return DFAIL(x->d, "%sname: %s: byte %zu is not printable ASCII", pre, q_quote(q, p, n), k);
    }
    if (lookup(&x->groups, p, n, &at))
        return DFAIL(x->d, "%sname: %s: the name of groups[%zu] too", pre, q_quote(q, p, n), at);
    gr->name = q_dup_bytes(p, n);
    return gr->name ? 0 : q_job_oom(x->d, pre, "name");
}

static int decode_group_tests(const msgpack_object *o, size_t i, q_group *gr, groups_dec *x)
{
    char q[Q_QUOTE_LEN];
    const char *p;
    size_t n, at;
    if (!o)
        return DFAIL(x->d, "groups[%zu].tests: missing", i);
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return DFAIL(x->d, "groups[%zu].tests: not an array", i);
    if (o->via.array.size == 0 || o->via.array.size > x->g->ntests)
        return DFAIL(x->d, "groups[%zu].tests: %u names, not 1..%zu (the tests)", i, (unsigned)o->via.array.size,
                     x->g->ntests);
    gr->tests = calloc(o->via.array.size, sizeof *gr->tests);
    if (!gr->tests)
        return q_job_oom(x->d, "groups.", "tests");
    for (size_t k = 0; k < o->via.array.size; k++) {
        if (!q_bytes(&o->via.array.ptr[k], &p, &n))
            return DFAIL(x->d, "groups[%zu].tests[%zu]: not a string", i, k);
        size_t count = lookup(&x->tests, p, n, &at);
        if (count != 1)
            return DFAIL(x->d, "groups[%zu].tests[%zu]: %s: %s", i, k, q_quote(q, p, n),
                         count ? "the name of several tests" : "no test has this name");
        if (x->owner[at])
            return DFAIL(x->d, "groups[%zu].tests[%zu]: %s: already in a group", i, k, q_quote(q, p, n));
        x->owner[at] = 1;
        gr->tests[gr->ntests++] = at;
    }
    return 0;
}

static int decode_depends(const msgpack_object *o, size_t i, q_group *gr, groups_dec *x)
{
    char q[Q_QUOTE_LEN];
    const char *p;
    size_t n, at;
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return DFAIL(x->d, "groups[%zu].depends_on: not an array", i);
    if (o->via.array.size > i)
        return DFAIL(x->d, "groups[%zu].depends_on: %u names, more than the %zu groups before it", i,
                     (unsigned)o->via.array.size, i);
    gr->depends_on = calloc(o->via.array.size + 1, sizeof *gr->depends_on);
    if (!gr->depends_on)
        return q_job_oom(x->d, "groups.", "depends_on");
    for (size_t k = 0; k < o->via.array.size; k++) {
        if (!q_bytes(&o->via.array.ptr[k], &p, &n))
            return DFAIL(x->d, "groups[%zu].depends_on[%zu]: not a string", i, k);
        if (!lookup(&x->groups, p, n, &at))
            return DFAIL(x->d, "groups[%zu].depends_on[%zu]: %s: not a group before this one", i, k,
                         q_quote(q, p, n));
        for (size_t m = 0; m < gr->ndepends; m++)
            if (gr->depends_on[m] == at)
                return DFAIL(x->d, "groups[%zu].depends_on[%zu]: %s: given twice", i, k, q_quote(q, p, n));
        gr->depends_on[gr->ndepends++] = at;
    }
    return 0;
}

static int decode_scoring(const msgpack_object *o, size_t i, q_group *gr, groups_dec *x)
{
    char q[Q_QUOTE_LEN];
    const char *p;
    size_t n;
    if (!q_bytes(o, &p, &n))
        return DFAIL(x->d, "groups[%zu].scoring: not a string", i);
    for (size_t k = 0; k < sizeof scoring_names / sizeof scoring_names[0]; k++)
        if (strlen(scoring_names[k]) == n && memcmp(scoring_names[k], p, n) == 0) {
            gr->scoring = (q_scoring)k;
            return 0;
        }
    return DFAIL(x->d, "groups[%zu].scoring: %s: not all, min, sum or product", i, q_quote(q, p, n));
}

static int decode_group(const msgpack_object *o, size_t i, q_group *gr, groups_dec *x)
{
    const msgpack_object *v[GR_KEYS];
    char pre[32];
    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(x->d, "groups[%zu]: not a map", i);
    unsigned dups = q_map_fields(&o->via.map, group_keys, GR_KEYS, v);
    q_nil_absent(v, GR_KEYS);
    if (dups)
        return DFAIL(x->d, "groups[%zu]: duplicate key \"%s\"", i, group_keys[__builtin_ctz(dups)]);
    if (decode_group_name(v[GR_NAME], i, gr, x) < 0 || decode_group_tests(v[GR_TESTS], i, gr, x) < 0)
        return -1;
    snprintf(pre, sizeof pre, "groups[%zu].", i);
    if (v[GR_POINTS]) {
        if (q_decode_points(v[GR_POINTS], pre, "points", &gr->points, x->d) < 0)
            return -1;
        gr->has_points = true;
    }
    if (v[GR_SCORING] && decode_scoring(v[GR_SCORING], i, gr, x) < 0)
        return -1;
    if (v[GR_DEPENDS] && decode_depends(v[GR_DEPENDS], i, gr, x) < 0)
        return -1;
    if (v[GR_STOP]) {
        if (v[GR_STOP]->type != MSGPACK_OBJECT_BOOLEAN)
            return DFAIL(x->d, "groups[%zu].stop_on_failure: not a boolean", i);
        gr->stop_on_failure = v[GR_STOP]->via.boolean;
    }
    return 0;
}

int q_grade_decode_groups(const msgpack_object *o, q_grade *g, q_job_dec *d)
{
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return DFAIL(d, "groups: not an array");
    size_t n = o->via.array.size;
    if (n == 0 || n > Q_GROUPS_MAX)
        return DFAIL(d, "groups: %zu groups, not 1..%d", n, Q_GROUPS_MAX);
    g->groups = calloc(n, sizeof *g->groups);
    groups_dec x = { g, d, { 0 }, calloc(n + 1, sizeof *x.gnames), { 0 }, calloc(g->ntests + 1, 1) };
    const char **tnames = calloc(g->ntests + 1, sizeof *tnames);
    int rc = 0;
    if (!g->groups || !x.gnames || !x.owner || !tnames) {
        rc = q_job_oom(d, "", "groups");
        goto out;
    }
    for (size_t i = 0; i < g->ntests; i++)
        tnames[i] = g->tests[i].name;
    if (index_init(&x.tests, tnames, g->ntests) < 0) {
        rc = q_job_oom(d, "", "groups");
        goto out;
    }
    x.groups = (name_index){ x.gnames, malloc(n * sizeof *x.groups.order), 0 };
    if (!x.groups.order) {
        rc = q_job_oom(d, "", "groups");
        goto out;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        g->ngroups = i + 1;
        rc = decode_group(&o->via.array.ptr[i], i, &g->groups[i], &x);
        if (rc == 0) {
            x.gnames[i] = g->groups[i].name;
            index_add(&x.groups, i);
        }
    }
out:
    free(x.tests.order);
    free(x.groups.order);
    free(x.gnames);
    free(x.owner);
    free(tnames);
    return rc;
}

void q_grade_free_groups(q_grade *g)
{
    for (size_t i = 0; i < g->ngroups; i++) {
        free(g->groups[i].name);
        free(g->groups[i].tests);
        free(g->groups[i].depends_on);
    }
    free(g->groups);
    g->groups = NULL;
    g->ngroups = 0;
}

/* Encoding. */

int q_enc_points(q_enc *e, const char *key, q_points p)
{
    char t[Q_POINTS_TEXT];
    if (q_enc_cstr(e, key) < 0)
        return -1;
    if (p % Q_POINTS_ONE == 0)
        return q_enc_packed(e, msgpack_pack_uint64(&e->pk, (uint64_t)(p / Q_POINTS_ONE)));
    return q_enc_cstr(e, q_points_format(p, t));
}

static size_t group_entries(const q_group *gr)
{
    return 2 + gr->has_points + (gr->scoring != Q_SCORE_ALL) + (gr->ndepends > 0) + gr->stop_on_failure;
}

int q_grade_put_groups(q_enc *e, const q_grade *g)
{
    if (q_enc_cstr(e, "groups") < 0 || q_enc_array(e, g->ngroups) < 0)
        return -1;
    for (size_t i = 0; i < g->ngroups; i++) {
        const q_group *gr = &g->groups[i];
        if (!gr->name || (gr->ntests && !gr->tests) || (gr->ndepends && !gr->depends_on))
            return q_fail(e->err, e->errlen, "groups[%zu]: NULL name, tests or depends_on", i);
        if (q_enc_map(e, group_entries(gr)) < 0 || q_enc_cstr(e, "name") < 0 || q_enc_cstr(e, gr->name) < 0 ||
            q_enc_cstr(e, "tests") < 0 || q_enc_array(e, gr->ntests) < 0)
            return -1;
        for (size_t k = 0; k < gr->ntests; k++) {
            if (gr->tests[k] >= g->ntests)
                return q_fail(e->err, e->errlen, "groups[%zu].tests[%zu]: no test %zu", i, k, gr->tests[k]);
            if (q_enc_cstr(e, g->tests[gr->tests[k]].name) < 0)
                return -1;
        }
        if (gr->has_points && q_enc_points(e, "points", gr->points) < 0)
            return -1;
        if (gr->scoring != Q_SCORE_ALL &&
            (q_enc_cstr(e, "scoring") < 0 || q_enc_cstr(e, q_scoring_name(gr->scoring)) < 0))
            return -1;
        if (gr->ndepends) {
            if (q_enc_cstr(e, "depends_on") < 0 || q_enc_array(e, gr->ndepends) < 0)
                return -1;
            for (size_t k = 0; k < gr->ndepends; k++) {
                if (gr->depends_on[k] >= i)
                    return q_fail(e->err, e->errlen, "groups[%zu].depends_on[%zu]: not a group before it", i, k);
                if (q_enc_cstr(e, g->groups[gr->depends_on[k]].name) < 0)
                    return -1;
            }
        }
        if (gr->stop_on_failure && q_enc_bool(e, "stop_on_failure", true) < 0)
            return -1;
    }
    return 0;
}
