/* polygon.c -- a Polygon package (problem.xml, as Codeforces exports it)
 * read into a problem (problem.h).
 *
 * From problem.xml: the testset named "tests" (time and memory limits,
 * the test count, the input and answer path patterns, each test's method,
 * generator command, points and group, the groups with their points
 * policy and dependencies), the checker (a testlib std:: one answered by
 * a built-in, else its source), the interactor, the main solution, the
 * generators among the executables, and the resources placed beside a
 * judge's source when it is compiled (testlib.h). Everything else
 * (statements, validators, stresses, tags) is left unread.
 *
 * Every path problem.xml names is checked by the material's rule and read
 * through it; patterns are expanded by pattern.c; numbers by numbers.c and
 * points.h. A test whose input is missing is generated only when it is a
 * generated test whose generator the package has; a missing answer is made
 * by the main solution, which the package must then have.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/words.h"
#include "worker/common/text.h"
#include "worker/problem/groups.h"
#include "worker/problem/numbers.h"
#include "worker/problem/pattern.h"
#include "worker/problem/problem.h"
#include "worker/problem/xml.h"

#define NAME_MAX_ Q_TEST_NAME_MAX

typedef struct ptest_def {
    char *group;         /* owned; NULL: none */
    char *cmd;           /* owned; NULL: none */
    bool generated;
    bool has_points;
    q_points points;
} ptest_def;

typedef struct source_ref {
    char *path, *type;   /* owned */
} source_ref;

typedef struct pg {
    wk_problem *p;
    int testsets;         /* testsets seen; the one named "tests" is read */
    bool in_tests;        /* inside it */
    bool found_tests;
    bool has_time, has_memory, has_count;
    uint64_t count;
    char *in_pattern, *ans_pattern;
    ptest_def *tests;
    size_t ntests;
    wk_gdef *groups;
    size_t ngroups;
    bool in_groups;
    source_ref resources[WK_PROBLEM_HEADERS];
    size_t nresources;
    source_ref gens[WK_PROBLEM_GENS];
    size_t ngens;
    char *checker_name;
    bool has_checker;
    source_ref checker, interactor, main;
    char *solution_tag;   /* of the <solution> open */
    char *err;
    size_t errlen;
} pg;

static int fail(pg *g, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(pg *g, size_t line, const char *fmt, ...)
{
    int k = snprintf(g->err, g->errlen, "%s/problem.xml, line %zu: ", wk_mat_name(g->p->m), line);
    if (k >= 0 && (size_t)k < g->errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(g->err + k, g->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool at(const wk_xml_ev *ev, int depth, const char *const *names)
{
    if (ev->depth != depth)
        return false;
    for (int i = 0; i < depth; i++)
        if (strcmp(ev->path[i], names[i]) != 0)
            return false;
    return true;
}

#define AT(ev, ...) at(ev, (int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)), \
                       (const char *const[]){ __VA_ARGS__ })

/* A name the job takes for a test or a group: printable ASCII, short. */
static const char *name_why(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > NAME_MAX_)
        return "is empty or over 128 bytes";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return "is not printable ASCII";
    return NULL;
}

static int dup_to(pg *g, char **slot, const char *v, size_t line)
{
    char *s = strdup(v);
    if (!s)
        return fail(g, line, "out of memory");
    free(*slot);
    *slot = s;
    return 0;
}

static int set_source(pg *g, source_ref *r, const wk_xml_ev *ev, const char *what)
{
    const char *path = wk_xml_attr_get(ev, "path"), *type = wk_xml_attr_get(ev, "type");
    char why[128], q[WK_MAT_QUOTE_MAX];
    if (!path)
        return fail(g, ev->line, "%s: <source> without a path", what);
    if (wk_mat_path_check(path, why, sizeof why) < 0)
        return fail(g, ev->line, "%s: source path %s: %s", what, wk_mat_quote(q, sizeof q, path), why);
    if (dup_to(g, &r->path, path, ev->line) < 0 || dup_to(g, &r->type, type ? type : "", ev->line) < 0)
        return -1;
    return 0;
}

static int points_of(pg *g, const char *v, size_t line, const char *what, q_points *out)
{
    char q[WK_MAT_QUOTE_MAX];
    if (q_points_parse(v, strlen(v), false, out) < 0)
        return fail(g, line, "%s: points \"%s\" %s", what, wk_mat_quote(q, sizeof q, v),
                    v[0] == '-' ? "is negative" : "is not a number of points (digits, at most six decimals, "
                                                  "at most 1000000000)");
    return 0;
}

static int on_test(pg *g, const wk_xml_ev *ev)
{
    if (g->ntests == Q_TESTS_MAX)
        return fail(g, ev->line, "more than %d tests", Q_TESTS_MAX);
    ptest_def *t = &g->tests[g->ntests++];
    const char *method = wk_xml_attr_get(ev, "method"), *cmd = wk_xml_attr_get(ev, "cmd"),
               *points = wk_xml_attr_get(ev, "points"), *group = wk_xml_attr_get(ev, "group");
    char what[32], q[WK_MAT_QUOTE_MAX];
    snprintf(what, sizeof what, "test %zu", g->ntests);
    t->generated = method && strcmp(method, "generated") == 0;
    if (cmd && dup_to(g, &t->cmd, cmd, ev->line) < 0)
        return -1;
    if (points) {
        if (points_of(g, points, ev->line, what, &t->points) < 0)
            return -1;
        t->has_points = true;
    }
    if (group && *group) {
        if (name_why(group))
            return fail(g, ev->line, "%s: group name %s %s", what, wk_mat_quote(q, sizeof q, group), name_why(group));
        if (dup_to(g, &t->group, group, ev->line) < 0)
            return -1;
    }
    return 0;
}

static int on_group(pg *g, const wk_xml_ev *ev)
{
    char q[WK_MAT_QUOTE_MAX];
    if (g->ngroups == Q_GROUPS_MAX)
        return fail(g, ev->line, "more than %d groups", Q_GROUPS_MAX);
    const char *name = wk_xml_attr_get(ev, "name"), *points = wk_xml_attr_get(ev, "points"),
               *policy = wk_xml_attr_get(ev, "points-policy");
    if (!name || name_why(name))
        return fail(g, ev->line, "a group whose name %s%s", name ? wk_mat_quote(q, sizeof q, name) : "is missing",
                    name ? name_why(name) : "");
    for (size_t k = 0; k < g->ngroups; k++)
        if (strcmp(g->groups[k].name, name) == 0)
            return fail(g, ev->line, "group %s: a name given to two groups", wk_mat_quote(q, sizeof q, name));
    wk_gdef *d = &g->groups[g->ngroups++];
    if (dup_to(g, &d->name, name, ev->line) < 0)
        return -1;
    if (points) {
        char what[NAME_MAX_ + 16];
        snprintf(what, sizeof what, "group %s", name);
        if (points_of(g, points, ev->line, what, &d->points) < 0)
            return -1;
        d->has_points = true;
    }
    if (!policy || strcmp(policy, "complete-group") == 0)
        d->scoring = Q_SCORE_ALL;
    else if (strcmp(policy, "each-test") == 0)
        d->scoring = Q_SCORE_SUM;
    else
        return fail(g, ev->line, "group %s: points-policy %s is neither complete-group nor each-test", name,
                    wk_mat_quote(q, sizeof q, policy));
    return 0;
}

static int limit(pg *g, const wk_xml_ev *ev, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
    char q[WK_MAT_QUOTE_MAX];
    const char *why = wk_num_uint(ev->text, ev->text_len, max, out);
    if (!why && *out < min)
        why = "is too small";
    if (why)
        return fail(g, ev->line, "%s \"%s\" %s (%llu..%llu)", what, wk_mat_quote(q, sizeof q, ev->text), why,
                    (unsigned long long)min, (unsigned long long)max);
    return 0;
}

static int testset_end(pg *g, const wk_xml_ev *ev)
{
    const char *n = ev->name;
    char why[128], q[WK_MAT_QUOTE_MAX];
    if (strcmp(n, "time-limit") == 0) {
        g->has_time = true;
        return limit(g, ev, "time-limit", 1, WK_PROBLEM_MAX_MS, &g->p->cpu_ms);
    }
    if (strcmp(n, "memory-limit") == 0) {
        g->has_memory = true;
        return limit(g, ev, "memory-limit", 1u << 20, 64ull << 30, &g->p->memory_bytes);
    }
    if (strcmp(n, "test-count") == 0) {
        g->has_count = true;
        return limit(g, ev, "test-count", 1, Q_TESTS_MAX, &g->count);
    }
    if (strcmp(n, "input-path-pattern") == 0 || strcmp(n, "answer-path-pattern") == 0) {
        const char *bad = wk_pattern_check(ev->text);
        char probe[Q_PATH_MAX + 1];
        if (bad)
            return fail(g, ev->line, "%s %s %s", n, wk_mat_quote(q, sizeof q, ev->text), bad);
        if (wk_pattern_expand(ev->text, Q_TESTS_MAX, probe, sizeof probe) < 0 ||
            wk_mat_path_check(probe, why, sizeof why) < 0)
            return fail(g, ev->line, "%s %s: %s", n, wk_mat_quote(q, sizeof q, ev->text), "a path no test may have");
        return dup_to(g, n[0] == 'i' ? &g->in_pattern : &g->ans_pattern, ev->text, ev->line);
    }
    return 0;
}

static int on_start(pg *g, const wk_xml_ev *ev)
{
    if (AT(ev, "problem", "judging", "testset")) {
        const char *name = wk_xml_attr_get(ev, "name");
        g->testsets++;
        g->in_tests = name && strcmp(name, "tests") == 0;
        if (g->in_tests && g->found_tests)
            return fail(g, ev->line, "two testsets named tests");
        g->found_tests |= g->in_tests;
        return 0;
    }
    if (g->in_tests && AT(ev, "problem", "judging", "testset", "tests", "test"))
        return on_test(g, ev);
    if (g->in_tests && AT(ev, "problem", "judging", "testset", "groups", "group"))
        return on_group(g, ev);
    if (g->in_tests && AT(ev, "problem", "judging", "testset", "groups", "group", "dependencies", "dependency")) {
        const char *dep = wk_xml_attr_get(ev, "group");
        if (!dep)
            return fail(g, ev->line, "a dependency without a group");
        return wk_gdef_dep(&g->groups[g->ngroups - 1], dep) < 0 ? fail(g, ev->line, "out of memory") : 0;
    }
    if (AT(ev, "problem", "files", "resources", "file")) {
        const char *path = wk_xml_attr_get(ev, "path");
        if (!path)
            return fail(g, ev->line, "a resource without a path");
        if (g->nresources == WK_PROBLEM_HEADERS)
            return fail(g, ev->line, "more than %d resources", WK_PROBLEM_HEADERS);
        return set_source(g, &g->resources[g->nresources++], ev, "resource");
    }
    if (AT(ev, "problem", "files", "executables", "executable", "source")) {
        if (g->ngens == WK_PROBLEM_GENS)
            return fail(g, ev->line, "more than %d executables", WK_PROBLEM_GENS);
        return set_source(g, &g->gens[g->ngens++], ev, "executable");
    }
    if (AT(ev, "problem", "assets", "checker")) {
        const char *name = wk_xml_attr_get(ev, "name");
        g->has_checker = true;
        return name ? dup_to(g, &g->checker_name, name, ev->line) : 0;
    }
    if (AT(ev, "problem", "assets", "checker", "source"))
        return set_source(g, &g->checker, ev, "checker");
    if (AT(ev, "problem", "assets", "interactor", "source"))
        return set_source(g, &g->interactor, ev, "interactor");
    if (AT(ev, "problem", "assets", "solutions", "solution")) {
        const char *tag = wk_xml_attr_get(ev, "tag");
        return dup_to(g, &g->solution_tag, tag ? tag : "", ev->line);
    }
    if (AT(ev, "problem", "assets", "solutions", "solution", "source") && g->solution_tag &&
        strcmp(g->solution_tag, "main") == 0) {
        if (g->main.path)
            return fail(g, ev->line, "two main solutions");
        return set_source(g, &g->main, ev, "main solution");
    }
    return 0;
}

static int on_event(void *ctx, const wk_xml_ev *ev, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    pg *g = ctx;
    if (ev->type == WK_XML_START)
        return on_start(g, ev);
    if (g->in_tests && ev->depth == 4 && AT(ev, "problem", "judging", "testset", ev->name))
        return testset_end(g, ev);
    if (AT(ev, "problem", "judging", "testset"))
        g->in_tests = false;
    return 0;
}

static void free_pg(pg *g)
{
    for (size_t i = 0; i < g->ntests; i++) {
        free(g->tests[i].group);
        free(g->tests[i].cmd);
    }
    free(g->tests);
    wk_gdefs_free(g->groups, g->ngroups);
    source_ref *refs[] = { &g->checker, &g->interactor, &g->main };
    for (size_t i = 0; i < 3; i++)
        free(refs[i]->path), free(refs[i]->type);
    for (size_t i = 0; i < g->nresources; i++)
        free(g->resources[i].path), free(g->resources[i].type);
    for (size_t i = 0; i < g->ngens; i++)
        free(g->gens[i].path), free(g->gens[i].type);
    free(g->in_pattern);
    free(g->ans_pattern);
    free(g->checker_name);
    free(g->solution_tag);
}

/* "problem.xml: " then why, for what is found after the parse. */
static int refuse(pg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(pg *g, const char *fmt, ...)
{
    int k = snprintf(g->err, g->errlen, "%s/problem.xml: ", wk_mat_name(g->p->m));
    if (k >= 0 && (size_t)k < g->errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(g->err + k, g->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Test i's input (or answer) at pattern's path: 0 read, 1 missing, -1. */
static int test_file(pg *g, const char *pattern, size_t i, const void **data, size_t *len)
{
    char path[Q_PATH_MAX + 1];
    if (wk_pattern_expand(pattern, i + 1, path, sizeof path) < 0)
        return refuse(g, "test %zu: its path does not fit %d bytes", i + 1, Q_PATH_MAX);
    return wk_mat_read(g->p->m, path, data, len, g->err, g->errlen);
}

/* The generator a test's command line names, and its arguments. */
static int generator(pg *g, size_t i, wk_ptest *pt)
{
    char buf[4096], *argv[WK_PROBLEM_ARGS + 2], why[96], q[WK_MAT_QUOTE_MAX];
    const char *cmd = g->tests[i].cmd;
    int n = wk_split_words(cmd, buf, sizeof buf, argv, WK_PROBLEM_ARGS + 1, why, sizeof why);
    if (n < 0)
        return refuse(g, "test %zu: generator command %s: %s", i + 1, wk_mat_quote(q, sizeof q, cmd), why);
    for (int k = 1; k < n; k++)
        if (strpbrk(argv[k], "<>|") && strlen(argv[k]) <= 2)
            return refuse(g, "test %zu: generator command %s: a redirection (gradeq runs generators with no "
                          "shell: the generator's stdout is the test)", i + 1, wk_mat_quote(q, sizeof q, cmd));
    wk_problem *p = g->p;
    for (size_t k = 0; k < g->ngens; k++) {
        const char *path = g->gens[k].path, *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        const char *dot = strrchr(base, '.');
        size_t bl = dot ? (size_t)(dot - base) : strlen(base);
        if (strlen(argv[0]) != bl || strncmp(argv[0], base, bl) != 0)
            continue;
        size_t at = 0;
        while (at < p->ngens && strcmp(p->gen_names[at], argv[0]) != 0)
            at++;
        if (at == p->ngens) {
            if (wk_problem_source(p, path, g->gens[k].type, &p->gens[at], g->err, g->errlen) < 0)
                return -1;
            if (!(p->gen_names[at] = strdup(argv[0])))
                return refuse(g, "out of memory");
            p->ngens++;
        }
        pt->gen = (int)at;
        for (int a = 1; a < n; a++)
            if (!(pt->args[pt->nargs++] = strdup(argv[a])))
                return refuse(g, "out of memory");
        return 0;
    }
    return refuse(g, "test %zu is generated by %s, which is not among the package's executables", i + 1,
                  wk_mat_quote(q, sizeof q, argv[0]));
}

static int read_tests(pg *g)
{
    wk_problem *p = g->p;
    if (!g->found_tests)
        return refuse(g, "no testset named tests");
    if (!g->has_time)
        return refuse(g, "the tests testset has no time-limit");
    if (!g->in_pattern || !g->ans_pattern)
        return refuse(g, "the tests testset has no %s", g->in_pattern ? "answer-path-pattern" : "input-path-pattern");
    if (g->has_count && g->count != g->ntests)
        return refuse(g, "test-count is %llu but %zu tests are listed", (unsigned long long)g->count, g->ntests);
    if (wk_problem_tests(p, g->ntests, g->err, g->errlen) < 0)
        return -1;
    bool need_main = false;
    for (size_t i = 0; i < g->ntests; i++) {
        char name[24];
        snprintf(name, sizeof name, "%zu", i + 1);
        q_test *t = &p->tests[i];
        if (!(t->name = strdup(name)))
            return refuse(g, "out of memory");
        t->named = true;
        t->has_points = g->tests[i].has_points;
        t->points = g->tests[i].points;
        int rc = test_file(g, g->in_pattern, i, &t->stdin_data, &t->stdin_len);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            if (!g->tests[i].generated || !g->tests[i].cmd)
                return refuse(g, "test %zu: its input is missing and it is not a generated test", i + 1);
            if (generator(g, i, &p->ptests[i]) < 0)
                return -1;
        }
        rc = test_file(g, g->ans_pattern, i, &t->expected, &t->expected_len);
        if (rc < 0)
            return -1;
        p->ptests[i].needs_answer = rc > 0 && !g->interactor.path;
        need_main |= p->ptests[i].needs_answer;
    }
    if (need_main && !g->main.path)
        return refuse(g, "answers are missing and the package has no main solution to make them");
    if (need_main && wk_problem_source(p, g->main.path, g->main.type, &p->main_src, g->err, g->errlen) < 0)
        return -1;
    return 0;
}

/* Groups as problem.xml has them; a group named only by tests (older
 * packages) is each-test. */
static int read_groups(pg *g)
{
    char q[WK_MAT_QUOTE_MAX];
    size_t declared = g->ngroups;
    for (size_t i = 0; i < g->ntests; i++) {
        const char *name = g->tests[i].group;
        if (!name)
            continue;
        size_t k = 0;
        while (k < g->ngroups && strcmp(g->groups[k].name, name) != 0)
            k++;
        if (k == g->ngroups) {
            if (declared)
                return refuse(g, "test %zu is in group %s, which <groups> does not have", i + 1,
                              wk_mat_quote(q, sizeof q, name));
            wk_gdef *d = &g->groups[g->ngroups++];
            d->scoring = Q_SCORE_SUM;
            if (!(d->name = strdup(name)))
                return refuse(g, "out of memory");
        }
        if (wk_gdef_test(&g->groups[k], i) < 0)
            return refuse(g, "out of memory");
    }
    for (size_t k = 0; k < g->ngroups; k++)
        if (g->groups[k].ntests == 0)
            return refuse(g, "group %s has no tests", wk_mat_quote(q, sizeof q, g->groups[k].name));
    char what[WK_MAT_QUOTE_MAX + 16];
    snprintf(what, sizeof what, "%s/problem.xml", wk_mat_name(g->p->m));
    return wk_groups_order(g->groups, g->ngroups, what, &g->p->groups, g->err, g->errlen) < 0
               ? -1 : (g->p->ngroups = g->ngroups, 0);
}

static int read_judges(pg *g)
{
    wk_problem *p = g->p;
    char q[WK_MAT_QUOTE_MAX];
    const char *name = g->checker_name;
    int std = -1;
    if (name && strncmp(name, "std::", 5) == 0 && strlen(name) > 9 && strcmp(name + strlen(name) - 4, ".cpp") == 0)
        std = q_std_checker_find(name + 5, strlen(name) - 9);
    if (std >= 0) {
        p->checker = Q_CHECK_TESTLIB;
        p->std = (q_std_checker)std;
    } else if (g->checker.path) {
        p->checker = Q_CHECK_PROGRAM;
        p->convention = Q_CONV_TESTLIB;
        if (wk_problem_source(p, g->checker.path, g->checker.type, &p->checker_src, g->err, g->errlen) < 0)
            return -1;
    } else if (name) {
        return refuse(g, "checker %s is no standard checker gradeq has, and the package gives no source for it",
                      wk_mat_quote(q, sizeof q, name));
    } else {
        return refuse(g, "no checker");
    }
    if (g->interactor.path &&
        wk_problem_source(p, g->interactor.path, g->interactor.type, &p->interactor_src, g->err, g->errlen) < 0)
        return -1;
    if (!p->checker_src.path && !p->interactor_src.path && !p->main_src.path && !p->ngens)
        return 0;
    /* Something is built: the resources go beside its source. */
    for (size_t i = 0; i < g->nresources; i++) {
        const char *path = g->resources[i].path, *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        for (size_t k = 0; k < p->nheaders; k++)
            if (strcmp(p->headers[k].name, base) == 0)
                return refuse(g, "two resources named %s", wk_mat_quote(q, sizeof q, base));
        const void *data;
        size_t len;
        int rc = wk_mat_read(p->m, path, &data, &len, g->err, g->errlen);
        if (rc > 0)
            return refuse(g, "resource %s is missing", wk_mat_quote(q, sizeof q, path));
        if (rc < 0)
            return -1;
        if (!(p->headers[p->nheaders].name = strdup(base)))
            return refuse(g, "out of memory");
        p->headers[p->nheaders].data = data;
        p->headers[p->nheaders++].len = len;
    }
    return 0;
}

int wk_polygon_read(wk_problem *p, char *err, size_t errlen)
{
    const void *xml;
    size_t len;
    int rc = wk_mat_read(p->m, "problem.xml", &xml, &len, err, errlen);
    if (rc != 0)
        return rc > 0 ? (snprintf(err, errlen, "%s: no problem.xml", wk_mat_name(p->m)), -1) : -1;
    p->format = WK_FMT_POLYGON;
    pg *g = calloc(1, sizeof *g);
    if (g)
        g->tests = calloc(Q_TESTS_MAX, sizeof *g->tests), g->groups = calloc(Q_GROUPS_MAX + 1, sizeof *g->groups);
    if (!g || !g->tests || !g->groups) {
        if (g)
            free_pg(g);
        free(g);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    char perr[512] = "";
    g->p = p;
    g->err = perr; /* the callbacks' refusals, beside the parser's own */
    g->errlen = sizeof perr;
    rc = wk_xml_parse(xml, len, on_event, g, perr, sizeof perr);
    if (rc < 0 && !strstr(perr, "/problem.xml"))
        snprintf(err, errlen, "%s/problem.xml: %s", wk_mat_name(p->m), perr);
    else if (rc < 0)
        snprintf(err, errlen, "%s", perr);
    g->err = err;
    g->errlen = errlen;
    if (rc == 0)
        rc = read_tests(g);
    if (rc == 0)
        rc = read_groups(g);
    if (rc == 0)
        rc = read_judges(g);
    free_pg(g);
    free(g);
    return rc;
}
