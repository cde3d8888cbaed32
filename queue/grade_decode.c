/* grade_decode.c -- the grading fields of a job (see grade.h), decoded from
 * the job's top-level map once its id is known.
 *
 * Invariants: as job_decode.c's. The tests array's count is checked against
 * Q_TESTS_MAX before the array is allocated; every test is released by
 * q_grade_free whatever point decoding reached (ntests counts the tests
 * begun); names are checked before they are copied; bytes from the job
 * reach error lines only through q_quote.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/codec_util.h"
#include "queue/grade.h"
#include "queue/job_decode.h"
#include "queue/prescan.h"

enum { G_TESTS, G_COMPILE, G_CHECKER, G_STOP, G_LANGUAGE, G_SOURCE, G_GROUPS, G_ARGV, G_PROBLEM, G_PFILES, G_KEYS };
static const char *const grade_keys[G_KEYS] = {
    "tests", "compile", "checker", "stop_on_failure", "language", "source", "groups", "argv", "problem",
    "problem_files",
};

enum { T_NAME, T_STDIN, T_EXPECTED, T_LIMITS, T_FILES, T_POINTS, T_KEYS };
static const char *const test_keys[T_KEYS] = { "name", "stdin", "expected", "limits", "files", "points" };

static const char *const check_names[] = { "lines", "exact", "tokens", "float", "program", "testlib" };
static const char *const std_names[Q_STD_COUNT] = {
    "acmp", "dcmp", "fcmp", "hcmp", "icmp", "lcmp", "ncmp", "nyesno",
    "rcmp", "rcmp4", "rcmp6", "rcmp9", "rncmp", "uncmp", "wcmp", "yesno",
};

const char *q_std_checker_name(q_std_checker k)
{
    return (unsigned)k < Q_STD_COUNT ? std_names[k] : "?";
}

int q_std_checker_find(const char *s, size_t n)
{
    for (int k = 0; k < Q_STD_COUNT; k++)
        if (strlen(std_names[k]) == n && memcmp(std_names[k], s, n) == 0)
            return k;
    return -1;
}
static const char *const conventions[] = { "testlib", "cms", "kattis" };

const char *q_check_name(q_check_kind k)
{
    return (unsigned)k < sizeof check_names / sizeof check_names[0] ? check_names[k] : "?";
}

const char *q_convention_name(q_check_convention c)
{
    return (unsigned)c < sizeof conventions / sizeof conventions[0] ? conventions[c] : "?";
}

static int decode_name(const msgpack_object *o, size_t i, const char *pre, q_test *t, q_job_dec *d)
{
    char q[Q_QUOTE_LEN], pos[24];
    const char *p;
    size_t n;

    if (!o) {
        snprintf(pos, sizeof pos, "%zu", i + 1);
        p = pos;
        n = strlen(pos);
    } else {
        if (!q_bytes(o, &p, &n))
            return DFAIL(d, "%sname: not a string", pre);
        if (n == 0 || n > Q_TEST_NAME_MAX)
            return DFAIL(d, "%sname: %zu bytes, not 1..%d", pre, n, Q_TEST_NAME_MAX);
        for (size_t k = 0; k < n; k++)
            if (p[k] < 0x20 || p[k] > 0x7e)
                return DFAIL(d, "%sname: %s: byte %zu is not printable ASCII", pre, q_quote(q, p, n), k);
        t->named = true;
    }
    t->name = q_dup_bytes(p, n);
    return t->name ? 0 : q_job_oom(d, pre, "name");
}

static int decode_test(const msgpack_object *o, size_t i, q_test *t, q_job_dec *d)
{
    const msgpack_object *v[T_KEYS];
    char pre[32];
    const char *p;
    unsigned dups;

    snprintf(pre, sizeof pre, "tests[%zu].", i);
    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "tests[%zu]: not a map", i);
    dups = q_map_fields(&o->via.map, test_keys, T_KEYS, v);
    q_nil_absent(v, T_KEYS);
    if (dups)
        return DFAIL(d, "tests[%zu]: duplicate key \"%s\"", i, test_keys[__builtin_ctz(dups)]);
    if (decode_name(v[T_NAME], i, pre, t, d) < 0)
        return -1;
    if (v[T_STDIN]) {
        if (!q_bytes(v[T_STDIN], &p, &t->stdin_len))
            return DFAIL(d, "%sstdin: not bytes (str or bin)", pre);
        t->stdin_data = p;
    }
    if (v[T_EXPECTED]) {
        if (!q_bytes(v[T_EXPECTED], &p, &t->expected_len))
            return DFAIL(d, "%sexpected: not bytes (str or bin)", pre);
        t->expected = p;
    }
    if (v[T_POINTS]) {
        if (q_decode_points(v[T_POINTS], pre, "points", &t->points, d) < 0)
            return -1;
        t->has_points = true;
    }
    if (q_job_decode_files(v[T_FILES], pre, &t->extra, d) < 0)
        return -1;
    return q_job_decode_limits(v[T_LIMITS], pre, &t->extra, d);
}

static int decode_tests(const msgpack_object *o, q_grade *g, q_job_dec *d)
{
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return DFAIL(d, "tests: not an array");
    if (o->via.array.size == 0 || o->via.array.size > Q_TESTS_MAX)
        return DFAIL(d, "tests: %u tests, not 1..%d", (unsigned)o->via.array.size, Q_TESTS_MAX);
    g->tests = calloc(o->via.array.size, sizeof *g->tests);
    if (!g->tests)
        return q_job_oom(d, "", "tests");
    for (size_t i = 0; i < o->via.array.size; i++) {
        g->ntests = i + 1;
        if (decode_test(&o->via.array.ptr[i], i, &g->tests[i], d) < 0)
            return -1;
    }
    return 0;
}

static int decode_compile(const msgpack_object *o, q_grade *g, q_job_dec *d)
{
    const msgpack_object *files;

    if (o->type == MSGPACK_OBJECT_MAP && q_map_fields(&o->via.map, (const char *const[]){ "files" }, 1, &files) == 0 &&
        files)
        return DFAIL(d, "compile.files: not allowed (the compile step sees the job's files)");
    g->has_compile = true;
    return q_job_decode_prog_map(o, "compile", "compile.", &g->compile, d);
}

static int decode_checker(const msgpack_object *o, q_grade *g, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    const msgpack_object *eps, *conv;
    const char *p;
    size_t n;

    if (q_bytes(o, &p, &n)) {
        for (int k = Q_CHECK_LINES; k <= Q_CHECK_TOKENS; k++)
            if (strlen(check_names[k]) == n && memcmp(check_names[k], p, n) == 0) {
                g->checker = (q_check_kind)k;
                return 0;
            }
        if (n > 8 && memcmp(p, "testlib:", 8) == 0 && q_std_checker_find(p + 8, n - 8) >= 0) {
            g->checker = Q_CHECK_TESTLIB;
            g->std = (q_std_checker)q_std_checker_find(p + 8, n - 8);
            return 0;
        }
        return DFAIL(d, "checker: %s: not exact, lines, tokens, testlib:NAME (a standard checker), "
                     "{\"float\": EPS} or a program map", q_quote(q, p, n));
    }
    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "checker: neither a name nor a map");
    if (q_map_fields(&o->via.map, (const char *const[]){ "float" }, 1, &eps) != 0)
        return DFAIL(d, "checker: duplicate key \"float\"");
    if (eps) {
        if (o->via.map.size != 1)
            return DFAIL(d, "checker: {\"float\": EPS} takes no other key");
        if (eps->type == MSGPACK_OBJECT_FLOAT32 || eps->type == MSGPACK_OBJECT_FLOAT64)
            g->eps = eps->via.f64;
        else if (eps->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
            g->eps = (double)eps->via.u64;
        else
            return DFAIL(d, "checker.float: not a number");
        if (!(g->eps >= 0) || isinf(g->eps))
            return DFAIL(d, "checker.float: not a finite number >= 0");
        g->checker = Q_CHECK_FLOAT;
        return 0;
    }
    g->checker = Q_CHECK_PROGRAM;
    if (q_map_fields(&o->via.map, (const char *const[]){ "convention" }, 1, &conv) != 0)
        return DFAIL(d, "checker: duplicate key \"convention\"");
    if (conv && conv->type != MSGPACK_OBJECT_NIL) {
        if (!q_bytes(conv, &p, &n))
            return DFAIL(d, "checker.convention: not a string");
        int k = Q_CONV_KATTIS;
        while (k >= 0 && !(strlen(conventions[k]) == n && memcmp(conventions[k], p, n) == 0))
            k--;
        if (k < 0)
            return DFAIL(d, "checker.convention: %s: not testlib, cms or kattis", q_quote(q, p, n));
        g->convention = (q_check_convention)k;
    }
    return q_job_decode_prog_map(o, "checker", "checker.", &g->checker_prog, d);
}

static int decode_language(const msgpack_object *const *v, q_grade *g, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    const char *p;
    size_t n;

    if (!v[G_LANGUAGE]) {
        if (v[G_SOURCE])
            return DFAIL(d, "source: needs language");
        if (!v[G_ARGV])
            return DFAIL(d, "argv: missing (tests need argv or language)");
        return 0;
    }
    if (v[G_ARGV] || v[G_COMPILE])
        return DFAIL(d, "language: cannot be given with %s (the preset gives it)", v[G_ARGV] ? "argv" : "compile");
    if (!q_bytes(v[G_LANGUAGE], &p, &n))
        return DFAIL(d, "language: not a string");
    if (n == 0 || n > Q_LANGUAGE_MAX)
        return DFAIL(d, "language: %zu bytes, not 1..%d", n, Q_LANGUAGE_MAX);
    for (size_t k = 0; k < n; k++)
        if (p[k] < 0x21 || p[k] > 0x7e)
            return DFAIL(d, "language: %s: byte %zu is not a visible ASCII character", q_quote(q, p, n), k);
    if (!v[G_SOURCE])
        return DFAIL(d, "source: missing (language needs it)");
    if (!q_bytes(v[G_SOURCE], &p, &g->source_len))
        return DFAIL(d, "source: not bytes (str or bin)");
    g->source = p;
    q_bytes(v[G_LANGUAGE], &p, &n);
    g->language = q_dup_bytes(p, n);
    return g->language ? 0 : q_job_oom(d, "", "language");
}

int q_grade_decode(const msgpack_object *root, q_job *j, q_job_dec *d)
{
    const msgpack_object *v[G_KEYS];
    unsigned dups = q_map_fields(&root->via.map, grade_keys, G_KEYS, v);
    q_grade *g;

    q_nil_absent(v, G_KEYS);
    if (dups)
        return DFAIL(d, "job: duplicate key \"%s\"", grade_keys[__builtin_ctz(dups)]);
    bool problem = v[G_PROBLEM] || v[G_PFILES];
    if (!v[G_TESTS] && !problem) {
        for (int k = G_COMPILE; k < G_ARGV; k++)
            if (v[k])
                return DFAIL(d, "%s: needs tests", grade_keys[k]);
        return 0;
    }
    if (problem)
        for (int k = G_TESTS; k < G_ARGV; k++)
            if (v[k] && (k == G_TESTS || k == G_GROUPS || k == G_CHECKER))
                return DFAIL(d, "%s: not with a problem (the problem gives it)", grade_keys[k]);
    g = calloc(1, sizeof *g);
    if (!g)
        return q_job_oom(d, "", "tests");
    j->grade = g;
    if (decode_language(v, g, d) < 0)
        return -1;
    if (problem ? q_grade_decode_problem(v[G_PROBLEM], v[G_PFILES], g, d) < 0 : decode_tests(v[G_TESTS], g, d) < 0)
        return -1;
    if (v[G_GROUPS] && q_grade_decode_groups(v[G_GROUPS], g, d) < 0)
        return -1;
    if (v[G_COMPILE] && decode_compile(v[G_COMPILE], g, d) < 0)
        return -1;
    if (v[G_CHECKER] && decode_checker(v[G_CHECKER], g, d) < 0)
        return -1;
    if (v[G_STOP]) {
        if (v[G_STOP]->type != MSGPACK_OBJECT_BOOLEAN)
            return DFAIL(d, "stop_on_failure: not a boolean");
        g->stop_on_failure = v[G_STOP]->via.boolean;
    }
    return 0;
}

void q_grade_free(q_grade *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->ntests; i++) {
        free(g->tests[i].name);
        q_prog_free(&g->tests[i].extra);
    }
    free(g->tests);
    q_grade_free_groups(g);
    q_prog_free(&g->compile);
    q_prog_free(&g->checker_prog);
    q_prog_free(&g->problem_files);
    free(g->problem);
    free(g->language);
    free(g);
}
