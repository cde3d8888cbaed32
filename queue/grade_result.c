/* grade_result.c -- a grading result's fields on the wire: encoded by the
 * worker and `gradeq grade`, decoded by clients (see grade.h).
 *
 * DESIGN. Decoding fills one block sized before the first copy, as
 * result_codec.c does: the graded array (its count checked against
 * Q_TESTS_MAX first) and the groups (against Q_GROUPS_MAX), then the
 * bytes, which are distinct regions of the input plus one NUL per string.
 * Scores are decimal strings on the wire and micro-points here (points.h):
 * a score that is not such a decimal is refused, never rounded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/codec_util.h"
#include "queue/err.h"
#include "queue/grade.h"
#include "queue/prescan.h"
#include "queue/result.h"

static int put_int(q_enc *e, const char *key, bool has, int64_t v)
{
    if (q_enc_cstr(e, key) < 0)
        return -1;
    return q_enc_packed(e, has ? msgpack_pack_int64(&e->pk, v) : msgpack_pack_nil(&e->pk));
}

static int put_bin(q_enc *e, const char *key, const void *p, size_t n)
{
    return q_enc_cstr(e, key) < 0 ? -1 : q_enc_bin(e, p, n);
}

static int put_text(q_enc *e, const char *key, const char *s)
{
    if (q_enc_cstr(e, key) < 0)
        return -1;
    return s ? q_enc_cstr(e, s) : q_enc_packed(e, msgpack_pack_nil(&e->pk));
}

static int put_score(q_enc *e, const char *key, q_points p)
{
    char t[Q_POINTS_TEXT];
    if (p < 0)
        return q_fail(e->err, e->errlen, "%s: negative", key);
    return q_enc_cstr(e, key) < 0 ? -1 : q_enc_cstr(e, q_points_format(p, t));
}

/* Nine entries shared by the compile step and a test. */
#define GRADED_COMMON 9

static int put_graded(q_enc *e, const q_graded *r, bool test)
{
    if (!r->status || (!r->stdout_buf && r->stdout_len) || (!r->stderr_buf && r->stderr_len) || (test && !r->name))
        return q_fail(e->err, e->errlen, "%s: NULL status, name or buffer", test ? "tests" : "compile");
    if (q_enc_map(e, GRADED_COMMON + (test ? 5 : 1)) < 0)
        return -1;
    if (q_enc_cstr(e, "status") < 0 || q_enc_cstr(e, r->status) < 0 ||
        put_int(e, "exit_code", r->has_exit_code, r->exit_code) < 0 ||
        put_int(e, "signal", r->has_signal, r->signal) < 0)
        return -1;
    if (q_enc_uint(e, "cpu_us", r->cpu_us) < 0 || q_enc_uint(e, "wall_us", r->wall_us) < 0 ||
        q_enc_uint(e, "memory_bytes", r->memory_bytes) < 0)
        return -1;
    if (put_bin(e, "stdout", r->stdout_buf, r->stdout_len) < 0 ||
        put_bin(e, "stderr", r->stderr_buf, r->stderr_len) < 0 ||
        q_enc_bool(e, "stdout_truncated", r->stdout_truncated) < 0)
        return -1;
    if (test)
        return q_enc_cstr(e, "name") < 0 || q_enc_cstr(e, r->name) < 0 ||
                       put_text(e, "checker_message", r->checker_message) < 0 || put_text(e, "group", r->group) < 0 ||
                       put_score(e, "score", r->score) < 0 || put_score(e, "max_score", r->max_score) < 0
                   ? -1
                   : 0;
    return q_enc_bool(e, "stderr_truncated", r->stderr_truncated);
}

static int put_groups(q_enc *e, const q_grade_result *r)
{
    if (r->ngroups && !r->groups)
        return q_fail(e->err, e->errlen, "groups: NULL with %zu groups", r->ngroups);
    if (q_enc_cstr(e, "groups") < 0 || q_enc_array(e, r->ngroups) < 0)
        return -1;
    for (size_t i = 0; i < r->ngroups; i++) {
        const q_group_result *g = &r->groups[i];
        if (!g->name || !g->status)
            return q_fail(e->err, e->errlen, "groups[%zu]: NULL name or status", i);
        if (q_enc_map(e, 5) < 0 || put_text(e, "name", g->name) < 0 || put_text(e, "status", g->status) < 0 ||
            put_score(e, "score", g->score) < 0 || put_score(e, "max_score", g->max_score) < 0 ||
            put_text(e, "message", g->message) < 0)
            return -1;
    }
    return 0;
}

size_t q_grade_result_entries(const q_grade_result *r)
{
    return r ? 5 + (r->ngroups > 0) + r->has_compile + (r->time_factor_milli != 0) : 0;
}

int q_grade_result_put(q_enc *e, const q_grade_result *r)
{
    if (!r)
        return 0;
    if (r->has_compile && (q_enc_cstr(e, "compile") < 0 || put_graded(e, &r->compile, false) < 0))
        return -1;
    if (r->ntests && !r->tests)
        return q_fail(e->err, e->errlen, "tests: NULL with %zu tests", r->ntests);
    if (q_enc_cstr(e, "tests") < 0 || q_enc_array(e, r->ntests) < 0)
        return -1;
    for (size_t i = 0; i < r->ntests; i++)
        if (put_graded(e, &r->tests[i], true) < 0)
            return -1;
    if (r->ngroups && put_groups(e, r) < 0)
        return -1;
    if (r->time_factor_milli && (q_enc_cstr(e, "time_factor") < 0 ||
                                 q_enc_packed(e, msgpack_pack_double(&e->pk, r->time_factor_milli / 1000.0)) < 0))
        return -1;
    return q_enc_uint(e, "passed", r->passed) < 0 || q_enc_uint(e, "total", r->total) < 0 ||
                   put_score(e, "score", r->score) < 0 || put_score(e, "max_score", r->max_score) < 0
               ? -1
               : 0;
}

/* Decoding. */

enum { R_STATUS, R_EXIT, R_SIGNAL, R_CPU, R_WALL, R_MEM, R_STDOUT, R_STDERR, R_STDOUT_TR, R_STDERR_TR, R_NAME,
       R_MESSAGE, R_GROUP, R_SCORE, R_MAX, R_KEYS };
static const char *const graded_keys[R_KEYS] = {
    "status", "exit_code", "signal", "cpu_us", "wall_us", "memory_bytes", "stdout", "stderr",
    "stdout_truncated", "stderr_truncated", "name", "checker_message", "group", "score", "max_score",
};

typedef struct gdec {
    char *next, *end; /* the block's free bytes */
    const char *where;
    char *err;
    size_t errlen;
} gdec;

static int gfail(gdec *d, const char *key, const char *why)
{
    return q_fail(d->err, d->errlen, "%s.%s: %s", d->where, key, why);
}

static const char *copy_out(gdec *d, const char *p, size_t n)
{
    char *s = d->next;
    if (n >= (size_t)(d->end - d->next))
        return NULL;
    memcpy(s, p, n);
    s[n] = 0;
    d->next += n + 1;
    return s;
}

static int get_text(gdec *d, const msgpack_object *o, const char *key, bool required, const char **out,
                    size_t *len)
{
    const char *p;
    size_t n;
    if (!o || o->type == MSGPACK_OBJECT_NIL)
        return required ? gfail(d, key, "missing") : 0;
    if (!q_bytes(o, &p, &n))
        return gfail(d, key, "not bytes");
    if (!len && memchr(p, 0, n))
        return gfail(d, key, "contains a NUL byte");
    *out = copy_out(d, p, n);
    if (len)
        *len = n;
    return *out ? 0 : gfail(d, key, "no room left (the block is mis-sized)");
}

static int get_num(gdec *d, const msgpack_object *o, const char *key, bool *has, int64_t *i, uint64_t *u,
                   bool *b)
{
    if (!o || o->type == MSGPACK_OBJECT_NIL)
        return 0;
    if (b) {
        if (o->type != MSGPACK_OBJECT_BOOLEAN)
            return gfail(d, key, "not a boolean");
        *b = o->via.boolean;
    } else if (u) {
        if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            return gfail(d, key, "not a non-negative integer");
        *u = o->via.u64;
    } else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER ||
               (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)) {
        *i = o->via.i64;
        *has = true;
    } else {
        return gfail(d, key, "not a 64-bit integer or nil");
    }
    return 0;
}

/* A score: a decimal string (absent or nil: 0). */
static int get_score(gdec *d, const msgpack_object *o, const char *key, q_points *out)
{
    const char *p;
    size_t n;
    if (!o || o->type == MSGPACK_OBJECT_NIL)
        return 0;
    if (!q_bytes(o, &p, &n) || q_points_parse(p, n, false, out) < 0)
        return gfail(d, key, "not a decimal string of at most 6 decimals");
    return 0;
}

static int get_graded(gdec *d, const msgpack_object *o, q_graded *r, bool test)
{
    const msgpack_object *v[R_KEYS];
    if (o->type != MSGPACK_OBJECT_MAP)
        return q_fail(d->err, d->errlen, "%s: not a map", d->where);
    if (q_map_fields(&o->via.map, graded_keys, R_KEYS, v))
        return q_fail(d->err, d->errlen, "%s: a key given twice", d->where);
    if (get_text(d, v[R_STATUS], "status", true, &r->status, NULL) < 0 ||
        get_num(d, v[R_EXIT], "exit_code", &r->has_exit_code, &r->exit_code, NULL, NULL) < 0 ||
        get_num(d, v[R_SIGNAL], "signal", &r->has_signal, &r->signal, NULL, NULL) < 0 ||
        get_num(d, v[R_CPU], "cpu_us", NULL, NULL, &r->cpu_us, NULL) < 0 ||
        get_num(d, v[R_WALL], "wall_us", NULL, NULL, &r->wall_us, NULL) < 0 ||
        get_num(d, v[R_MEM], "memory_bytes", NULL, NULL, &r->memory_bytes, NULL) < 0)
        return -1;
    if (get_text(d, v[R_STDOUT], "stdout", false, (const char **)&r->stdout_buf, &r->stdout_len) < 0 ||
        get_text(d, v[R_STDERR], "stderr", false, (const char **)&r->stderr_buf, &r->stderr_len) < 0 ||
        get_num(d, v[R_STDOUT_TR], "stdout_truncated", NULL, NULL, NULL, &r->stdout_truncated) < 0 ||
        get_num(d, v[R_STDERR_TR], "stderr_truncated", NULL, NULL, NULL, &r->stderr_truncated) < 0)
        return -1;
    if (!test)
        return 0;
    return get_text(d, v[R_NAME], "name", true, &r->name, NULL) < 0 ||
                   get_text(d, v[R_MESSAGE], "checker_message", false, &r->checker_message, NULL) < 0 ||
                   get_text(d, v[R_GROUP], "group", false, &r->group, NULL) < 0 ||
                   get_score(d, v[R_SCORE], "score", &r->score) < 0 ||
                   get_score(d, v[R_MAX], "max_score", &r->max_score) < 0
               ? -1
               : 0;
}

enum { GK_NAME, GK_STATUS, GK_SCORE, GK_MAX, GK_MESSAGE, GK_KEYS };
static const char *const group_keys[GK_KEYS] = { "name", "status", "score", "max_score", "message" };

static int get_group(gdec *d, const msgpack_object *o, q_group_result *g)
{
    const msgpack_object *v[GK_KEYS];
    if (o->type != MSGPACK_OBJECT_MAP)
        return q_fail(d->err, d->errlen, "%s: not a map", d->where);
    if (q_map_fields(&o->via.map, group_keys, GK_KEYS, v))
        return q_fail(d->err, d->errlen, "%s: a key given twice", d->where);
    return get_text(d, v[GK_NAME], "name", true, &g->name, NULL) < 0 ||
                   get_text(d, v[GK_STATUS], "status", true, &g->status, NULL) < 0 ||
                   get_score(d, v[GK_SCORE], "score", &g->score) < 0 ||
                   get_score(d, v[GK_MAX], "max_score", &g->max_score) < 0 ||
                   get_text(d, v[GK_MESSAGE], "message", false, &g->message, NULL) < 0
               ? -1
               : 0;
}

enum { X_COMPILE, X_TESTS, X_GROUPS, X_PASSED, X_TOTAL, X_SCORE, X_MAX, X_FACTOR, X_KEYS };
static const char *const result_grade_keys[X_KEYS] = { "compile", "tests", "groups", "passed", "total", "score",
                                                       "max_score", "time_factor" };

/* A time factor: a number above 0 and at most 100, kept in thousandths. */
static int get_factor(const msgpack_object *o, uint32_t *milli, char *err, size_t errlen)
{
    if (!o || o->type == MSGPACK_OBJECT_NIL)
        return 0;
    double f = o->type == MSGPACK_OBJECT_FLOAT64 || o->type == MSGPACK_OBJECT_FLOAT32 ? o->via.f64
               : o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= 100 ? (double)o->via.u64
                                                                              : -1;
    if (!(f > 0 && f <= 100))
        return q_fail(err, errlen, "time_factor: not a number above 0 and at most 100");
    *milli = (uint32_t)(f * 1000 + 0.5);
    if (!*milli)
        *milli = 1;
    return 0;
}

static int decode_grade(const msgpack_object *root, size_t len, q_grade_result *out, char *err, size_t errlen)
{
    const msgpack_object *v[X_KEYS];
    char where[32];
    if (root->type != MSGPACK_OBJECT_MAP)
        return q_fail(err, errlen, "result: not a map");
    if (q_map_fields(&root->via.map, result_grade_keys, X_KEYS, v))
        return q_fail(err, errlen, "result: a grading key given twice");
    if (!v[X_TESTS])
        return 0;
    if (v[X_TESTS]->type != MSGPACK_OBJECT_ARRAY)
        return q_fail(err, errlen, "tests: not an array");
    size_t n = v[X_TESTS]->via.array.size, ng = 0;
    if (n > Q_TESTS_MAX)
        return q_fail(err, errlen, "tests: %zu tests, more than %d", n, Q_TESTS_MAX);
    if (v[X_GROUPS] && v[X_GROUPS]->type != MSGPACK_OBJECT_NIL) {
        if (v[X_GROUPS]->type != MSGPACK_OBJECT_ARRAY)
            return q_fail(err, errlen, "groups: not an array");
        ng = v[X_GROUPS]->via.array.size;
        if (ng > Q_GROUPS_MAX)
            return q_fail(err, errlen, "groups: %zu groups, more than %d", ng, Q_GROUPS_MAX);
    }
    /* Per graded run: the NULs of status, name, message, group, stdout and
     * stderr; per group: of name, status and message. */
    size_t head = (n + 1) * sizeof(q_graded) + ng * sizeof(q_group_result);
    size_t cap = head + len + 6 * (n + 1) + 3 * ng + 16;
    char *block = malloc(cap);
    if (!block)
        return q_fail(err, errlen, "result: out of memory for %zu bytes", cap);
    memset(block, 0, head);
    out->priv = block;
    q_graded *tests = (q_graded *)(void *)block;
    q_group_result *groups = (q_group_result *)(void *)(block + (n + 1) * sizeof(q_graded));
    gdec d = { block + head, block + cap, "compile", err, errlen };
    if (v[X_COMPILE]) {
        out->has_compile = true;
        if (get_graded(&d, v[X_COMPILE], &out->compile, false) < 0)
            return -1;
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(where, sizeof where, "tests[%zu]", i);
        d.where = where;
        if (get_graded(&d, &v[X_TESTS]->via.array.ptr[i], &tests[i], true) < 0)
            return -1;
    }
    for (size_t i = 0; i < ng; i++) {
        snprintf(where, sizeof where, "groups[%zu]", i);
        d.where = where;
        if (get_group(&d, &v[X_GROUPS]->via.array.ptr[i], &groups[i]) < 0)
            return -1;
    }
    out->tests = tests;
    out->ntests = n;
    out->groups = ng ? groups : NULL;
    out->ngroups = ng;
    d.where = "result";
    if (get_num(&d, v[X_PASSED], "passed", NULL, NULL, &out->passed, NULL) < 0 ||
        get_num(&d, v[X_TOTAL], "total", NULL, NULL, &out->total, NULL) < 0 ||
        get_score(&d, v[X_SCORE], "score", &out->score) < 0 ||
        get_score(&d, v[X_MAX], "max_score", &out->max_score) < 0 ||
        get_factor(v[X_FACTOR], &out->time_factor_milli, err, errlen) < 0)
        return -1;
    return 1;
}

int q_grade_result_decode(const void *buf, size_t len, q_grade_result *out, char *err, size_t errlen)
{
    msgpack_unpacked up;
    memset(out, 0, sizeof *out);
    int rc = q_unpack_result(buf, len, &up, err, errlen);
    if (rc == 0)
        rc = decode_grade(&up.data, len, out, err, errlen);
    msgpack_unpacked_destroy(&up);
    if (rc < 0)
        q_grade_result_free(out);
    return rc;
}

void q_grade_result_free(q_grade_result *r)
{
    free(r->priv);
    memset(r, 0, sizeof *r);
}
