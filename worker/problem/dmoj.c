/* dmoj.c -- a DMOJ problem (init.yml) read into a problem (problem.h).
 *
 * From init.yml: `archive` (a zip in the problem's folder that holds the
 * test files, read by zip.c as material of its own), `test_cases` as a
 * list: a case {in, out, points}, or a batch {batched: [{in, out}...],
 * points, dependencies: [batch numbers from 1]}, and `checker`: a name
 * (standard, identical, floats with its precision, rstripped) answered by
 * gradeq's rules, or bridged {files, lang, type: testlib} built in the
 * sandbox. `interactive` {files, lang, type: testlib} gives the
 * interactor. Tests are named by their position (1, 2, ...), batches
 * "batch N" (DMOJ's numbering); a batch scores its points times its
 * worst case (scoring min), as DMOJ does. What gradeq does not grade
 * (regex test_cases, generators, Python checker modules, other bridged
 * types) is refused, naming it. DMOJ keeps time and memory limits in its
 * site, not here: the job's (or the command line's) apply.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/text.h"
#include "worker/problem/groups.h"
#include "worker/problem/numbers.h"
#include "worker/problem/problem.h"
#include "worker/problem/yaml.h"
#include "worker/problem/zip.h"

typedef struct dcase {
    char *in, *out;          /* owned */
    int batch;               /* -1: none, else the batch's index */
    bool has_points;
    q_points points;
} dcase;

typedef struct dbatch {
    bool has_points;
    q_points points;
    size_t deps[64];
    size_t ndeps;
} dbatch;

typedef struct judge_ref {
    char files[8][Q_PATH_MAX + 1];
    size_t nfiles;
    char lang[32], type[32], name[64];
    bool given;
    double precision;        /* floats: digits */
    bool has_precision;
} judge_ref;

typedef struct dm {
    wk_problem *p;
    char archive[Q_PATH_MAX + 1];
    dcase *cases;
    size_t ncases;
    dbatch *batches;
    size_t nbatches;
    struct {                 /* the test_cases entry open */
        char *in, *out;      /* owned until moved to a case */
        bool has_points, batched;
        q_points points;
        size_t deps[64], ndeps;
        size_t first;        /* its batched cases start there */
    } e;
    judge_ref checker, interactor;
    char *err;
    size_t errlen;
} dm;

static int fail(dm *d, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(dm *d, size_t line, const char *fmt, ...)
{
    int n = snprintf(d->err, d->errlen, "%s/init.yml, line %zu: ", wk_mat_name(d->p->m), line);
    if (n >= 0 && (size_t)n < d->errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(d->err + n, d->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool key_is(const wk_yaml_ev *ev, int depth, const char *key)
{
    return ev->depth == depth && ev->key && strcmp(ev->key, key) == 0;
}

static int path_of(dm *d, const wk_yaml_ev *ev, char *out, size_t size)
{
    char why[128], q[WK_MAT_QUOTE_MAX];
    if (ev->type != WK_YAML_SCALAR || ev->null)
        return fail(d, ev->line, "%s: not a path", ev->key ? ev->key : "files");
    if (ev->len >= size || wk_mat_path_check(ev->value, why, sizeof why) < 0)
        return fail(d, ev->line, "%s %s: %s", ev->key ? ev->key : "files", wk_mat_quote(q, sizeof q, ev->value),
                    ev->len >= size ? "too long" : why);
    snprintf(out, size, "%s", ev->value);
    return 0;
}

static int points(dm *d, const wk_yaml_ev *ev, q_points *out)
{
    char q[WK_MAT_QUOTE_MAX];
    if (ev->type != WK_YAML_SCALAR || ev->null || q_points_parse(ev->value, ev->len, false, out) < 0)
        return fail(d, ev->line, "points %s %s", ev->type == WK_YAML_SCALAR && !ev->null ?
                                 wk_mat_quote(q, sizeof q, ev->value) : "", ev->type == WK_YAML_SCALAR &&
                                 !ev->null && ev->value[0] == '-' ? "is negative" :
                                 "is not a number of points (digits, at most six decimals, at most 1000000000)");
    return 0;
}

static dcase *new_case(dm *d, const wk_yaml_ev *ev, int batch)
{
    if (d->ncases == Q_TESTS_MAX) {
        fail(d, ev->line, "more than %d test cases", Q_TESTS_MAX);
        return NULL;
    }
    dcase *c = &d->cases[d->ncases++];
    c->batch = batch;
    return c;
}

/* A judge's {files, lang, type} (bridged checker args, interactive). */
static int judge_field(dm *d, judge_ref *j, const wk_yaml_ev *ev, const char *key)
{
    if (strcmp(key, "files") == 0) {
        if (ev->type != WK_YAML_SCALAR)
            return 0; /* a list: its entries come with key NULL */
        if (j->nfiles == 8)
            return fail(d, ev->line, "more than 8 files");
        return path_of(d, ev, j->files[j->nfiles++], sizeof j->files[0]);
    }
    char *dst = strcmp(key, "lang") == 0 ? j->lang : strcmp(key, "type") == 0 ? j->type : NULL;
    if (dst) {
        if (ev->type != WK_YAML_SCALAR || ev->len >= sizeof j->lang)
            return fail(d, ev->line, "%s: not a short string", key);
        snprintf(dst, sizeof j->lang, "%s", ev->value);
    }
    return 0;
}

static int checker_event(dm *d, const wk_yaml_ev *ev)
{
    judge_ref *j = &d->checker;
    char q[WK_MAT_QUOTE_MAX];
    if (ev->depth == 1) {
        j->given = true;
        if (ev->type == WK_YAML_SCALAR && (ev->null || ev->len >= sizeof j->name))
            return fail(d, ev->line, "checker: not a checker's name");
        if (ev->type == WK_YAML_SCALAR)
            snprintf(j->name, sizeof j->name, "%s", ev->value);
        return ev->type == WK_YAML_SEQ ? fail(d, ev->line, "checker: a list") : 0;
    }
    if (ev->depth == 2 && key_is(ev, 2, "name") && ev->type == WK_YAML_SCALAR && ev->len < sizeof j->name)
        snprintf(j->name, sizeof j->name, "%s", ev->value);
    if (ev->depth == 3 && ev->keys[2] && strcmp(ev->keys[2], "args") == 0 && ev->key) {
        if (strcmp(ev->key, "precision") == 0) {
            uint64_t v;
            const char *why = ev->type == WK_YAML_SCALAR ? wk_num_uint(ev->value, ev->len, 18, &v) : "is not one";
            if (why)
                return fail(d, ev->line, "checker precision %s %s (0..18)",
                            ev->type == WK_YAML_SCALAR ? wk_mat_quote(q, sizeof q, ev->value) : "", why);
            j->precision = (double)v;
            j->has_precision = true;
            return 0;
        }
        return judge_field(d, j, ev, ev->key);
    }
    if (ev->depth == 4 && ev->keys[3] && strcmp(ev->keys[3], "files") == 0 && ev->type == WK_YAML_SCALAR)
        return judge_field(d, j, ev, "files");
    return 0;
}

/* An in or out path into *slot (given once). */
static int case_path(dm *d, const wk_yaml_ev *ev, char **slot)
{
    char path[Q_PATH_MAX + 1];
    if (*slot)
        return fail(d, ev->line, "%s given twice", ev->key);
    if (path_of(d, ev, path, sizeof path) < 0)
        return -1;
    return (*slot = strdup(path)) ? 0 : fail(d, ev->line, "out of memory");
}

/* An entry of test_cases is a case or a batch, which is known only when
 * it ends (points may come before batched): its keys wait in d->e. */
static int entry_end(dm *d, const wk_yaml_ev *ev)
{
    if (!d->e.batched) {
        if (!d->e.in || !d->e.out)
            return fail(d, ev->line, "test_cases[%zu]: a case needs in and out", ev->index);
        dcase *c = new_case(d, ev, -1);
        if (!c)
            return -1;
        c->in = d->e.in;
        c->out = d->e.out;
        c->has_points = d->e.has_points;
        c->points = d->e.points;
    } else {
        if (d->e.in || d->e.out)
            return fail(d, ev->line, "test_cases[%zu]: a batch with its own in or out", ev->index);
        if (d->nbatches == Q_GROUPS_MAX)
            return fail(d, ev->line, "more than %d batches", Q_GROUPS_MAX);
        if (d->e.first == d->ncases)
            return fail(d, ev->line, "test_cases[%zu]: an empty batch", ev->index);
        dbatch *b = &d->batches[d->nbatches];
        b->has_points = d->e.has_points;
        b->points = d->e.points;
        memcpy(b->deps, d->e.deps, sizeof b->deps);
        b->ndeps = d->e.ndeps;
        for (size_t i = d->e.first; i < d->ncases; i++)
            d->cases[i].batch = (int)d->nbatches;
        d->nbatches++;
    }
    memset(&d->e, 0, sizeof d->e);
    return 0;
}

static int case_event(dm *d, const wk_yaml_ev *ev)
{
    /* depth 2: a test_cases entry; 3: its keys; 4: batched entries and
     * dependencies; 5: the batched entries' keys. */
    if (ev->depth == 2) {
        if (ev->type == WK_YAML_END)
            return entry_end(d, ev);
        if (ev->type != WK_YAML_MAP)
            return fail(d, ev->line, "test_cases[%zu]: not a mapping", ev->index);
        memset(&d->e, 0, sizeof d->e);
        d->e.first = d->ncases;
        return 0;
    }
    if (ev->depth == 3 && ev->key) {
        const char *k = ev->key;
        if (strcmp(k, "batched") == 0)
            return ev->type == WK_YAML_SEQ ? (d->e.batched = true, 0) : fail(d, ev->line, "batched: not a list");
        if (strcmp(k, "generator") == 0 || strcmp(k, "generator_args") == 0)
            return fail(d, ev->line, "a generated test case: DMOJ generators are not run (list the files)");
        if (strcmp(k, "in") == 0 || strcmp(k, "out") == 0)
            return case_path(d, ev, k[0] == 'i' ? &d->e.in : &d->e.out);
        if (strcmp(k, "points") == 0)
            return d->e.has_points ? fail(d, ev->line, "points given twice")
                                   : (d->e.has_points = true, points(d, ev, &d->e.points));
        return 0;
    }
    if (ev->depth == 4 && ev->keys[3] && strcmp(ev->keys[3], "dependencies") == 0 && ev->type == WK_YAML_SCALAR) {
        uint64_t n;
        const char *why = wk_num_uint(ev->value, ev->len, Q_GROUPS_MAX, &n);
        if (why || n == 0)
            return fail(d, ev->line, "dependencies: %s", why ? why : "batches are numbered from 1");
        if (d->e.ndeps == 64)
            return fail(d, ev->line, "more than 64 dependencies");
        d->e.deps[d->e.ndeps++] = (size_t)n;
        return 0;
    }
    if (ev->depth == 4 && ev->keys[3] && strcmp(ev->keys[3], "batched") == 0) {
        if (ev->type == WK_YAML_MAP)
            return new_case(d, ev, -1) ? 0 : -1;
        return ev->type == WK_YAML_END ? 0 : fail(d, ev->line, "batched[%zu]: not a mapping", ev->index);
    }
    if (ev->depth == 5 && ev->keys[3] && strcmp(ev->keys[3], "batched") == 0 && ev->key) {
        dcase *c = &d->cases[d->ncases - 1];
        if (strcmp(ev->key, "batched") == 0)
            return fail(d, ev->line, "nested batches");
        if (strcmp(ev->key, "points") == 0)
            return fail(d, ev->line, "points of a case in a batch (the batch has the points)");
        if (strcmp(ev->key, "in") == 0 || strcmp(ev->key, "out") == 0)
            return case_path(d, ev, ev->key[0] == 'i' ? &c->in : &c->out);
    }
    return 0;
}

static int on_event(void *ctx, const wk_yaml_ev *ev, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    dm *d = ctx;
    if (ev->depth == 0 && ev->type != WK_YAML_MAP && ev->type != WK_YAML_END)
        return fail(d, ev->line, "not a mapping of keys");
    const char *top = ev->depth >= 1 ? ev->keys[1] : NULL;
    if (!top)
        return 0;
    if (key_is(ev, 1, "archive"))
        return path_of(d, ev, d->archive, sizeof d->archive);
    if (key_is(ev, 1, "test_cases") && ev->type != WK_YAML_SEQ)
        return fail(d, ev->line, "test_cases: %s", ev->type == WK_YAML_MAP ? "regex test cases are not read (list "
                                                                                 "each case)" : "not a list");
    if (strcmp(top, "test_cases") == 0 && ev->depth >= 2)
        return case_event(d, ev);
    if (strcmp(top, "checker") == 0)
        return checker_event(d, ev);
    if (strcmp(top, "interactive") == 0) {
        if (ev->depth == 1)
            return d->interactor.given = true, ev->type == WK_YAML_MAP ? 0 : fail(d, ev->line, "interactive: not a mapping");
        if (ev->depth == 2 && ev->key)
            return judge_field(d, &d->interactor, ev, ev->key);
        if (ev->depth == 3 && ev->keys[2] && strcmp(ev->keys[2], "files") == 0 && ev->type == WK_YAML_SCALAR)
            return judge_field(d, &d->interactor, ev, "files");
    }
    if (key_is(ev, 1, "generator") || key_is(ev, 1, "graders"))
        return fail(d, ev->line, "%s: not read by gradeq", ev->key);
    return 0;
}

/* 10^-k, exactly as a decimal reads it (for k up to 18). */
static double pow10_neg(unsigned k)
{
    double v = 1;
    while (k--)
        v /= 10;
    return v;
}

static int refuse(dm *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(dm *d, const char *fmt, ...)
{
    int n = snprintf(d->err, d->errlen, "%s/init.yml: ", wk_mat_name(d->p->m));
    if (n >= 0 && (size_t)n < d->errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(d->err + n, d->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The archive the test files are in: material of its own. */
static int open_archive(dm *d)
{
    wk_problem *p = d->p;
    const void *buf;
    size_t len;
    char q[WK_MAT_QUOTE_MAX];
    int rc = wk_mat_read(p->m, d->archive, &buf, &len, d->err, d->errlen);
    if (rc > 0)
        return refuse(d, "archive %s is missing", wk_mat_quote(q, sizeof q, d->archive));
    if (rc < 0)
        return -1;
    wk_zip *z = calloc(1, sizeof *z);
    if (!z)
        return refuse(d, "out of memory");
    p->data_archive = z;
    if (wk_zip_read(buf, len, d->archive, WK_MAT_BYTES_DEFAULT, z, d->err, d->errlen) < 0)
        return -1;
    return wk_mat_open_mem(z->files, z->n, d->archive, NULL, &p->data, d->err, d->errlen);
}

static int read_file(dm *d, const char *path, const void **data, size_t *len)
{
    char q[WK_MAT_QUOTE_MAX];
    wk_mat *m = d->p->data ? d->p->data : d->p->m;
    int rc = wk_mat_read(m, path, data, len, d->err, d->errlen);
    if (rc > 0)
        return refuse(d, "%s is missing%s", wk_mat_quote(q, sizeof q, path), d->p->data ? " from the archive" : "");
    return rc;
}

static int read_tests(dm *d)
{
    wk_problem *p = d->p;
    if (d->ncases == 0)
        return refuse(d, "no test_cases");
    if (wk_problem_tests(p, d->ncases, d->err, d->errlen) < 0)
        return -1;
    for (size_t i = 0; i < d->ncases; i++) {
        char name[24];
        q_test *t = &p->tests[i];
        snprintf(name, sizeof name, "%zu", i + 1);
        if (!(t->name = strdup(name)))
            return refuse(d, "out of memory");
        t->named = true;
        if (!d->cases[i].in || !d->cases[i].out)
            return refuse(d, "test case %zu needs in and out", i + 1);
        if (read_file(d, d->cases[i].in, &t->stdin_data, &t->stdin_len) < 0 ||
            read_file(d, d->cases[i].out, &t->expected, &t->expected_len) < 0)
            return -1;
        t->has_points = d->cases[i].has_points;
        t->points = d->cases[i].points;
    }
    if (!d->nbatches)
        return 0;
    wk_gdef *g = calloc(d->nbatches, sizeof *g);
    int rc = g ? 0 : refuse(d, "out of memory");
    for (size_t b = 0; rc == 0 && b < d->nbatches; b++) {
        char name[32];
        snprintf(name, sizeof name, "batch %zu", b + 1);
        g[b] = (wk_gdef){ .name = strdup(name), .has_points = d->batches[b].has_points,
                          .points = d->batches[b].points, .scoring = Q_SCORE_MIN };
        if (!g[b].name)
            rc = refuse(d, "out of memory");
        for (size_t k = 0; rc == 0 && k < d->batches[b].ndeps; k++) {
            snprintf(name, sizeof name, "batch %zu", d->batches[b].deps[k]);
            if (wk_gdef_dep(&g[b], name) < 0)
                rc = refuse(d, "out of memory");
        }
    }
    for (size_t i = 0; rc == 0 && i < d->ncases; i++)
        if (d->cases[i].batch >= 0 && wk_gdef_test(&g[d->cases[i].batch], i) < 0)
            rc = refuse(d, "out of memory");
    char what[WK_MAT_QUOTE_MAX + 16];
    snprintf(what, sizeof what, "%s/init.yml", wk_mat_name(p->m));
    if (rc == 0 && wk_groups_order(g, d->nbatches, what, &p->groups, d->err, d->errlen) == 0)
        p->ngroups = d->nbatches;
    else
        rc = -1;
    wk_gdefs_free(g, d->nbatches);
    return rc;
}

/* A bridged judge: its first file the source, the rest beside it. */
static int bridged(dm *d, const judge_ref *j, const char *what, wk_source *out)
{
    wk_problem *p = d->p;
    char q[WK_MAT_QUOTE_MAX];
    if (strcmp(j->type, "testlib") != 0)
        return refuse(d, "%s of type %s: only testlib judges are read", what,
                      j->type[0] ? wk_mat_quote(q, sizeof q, j->type) : "default");
    if (!j->nfiles)
        return refuse(d, "%s: no files", what);
    for (size_t i = 1; i < j->nfiles; i++) {
        const char *base = strrchr(j->files[i], '/') ? strrchr(j->files[i], '/') + 1 : j->files[i];
        const void *data;
        size_t len;
        if (p->nheaders == WK_PROBLEM_HEADERS)
            return refuse(d, "more than %d files beside the judges", WK_PROBLEM_HEADERS);
        int rc = wk_mat_read(p->m, j->files[i], &data, &len, d->err, d->errlen);
        if (rc != 0)
            return rc > 0 ? refuse(d, "%s is missing", wk_mat_quote(q, sizeof q, j->files[i])) : -1;
        if (!(p->headers[p->nheaders].name = strdup(base)))
            return refuse(d, "out of memory");
        p->headers[p->nheaders].data = data;
        p->headers[p->nheaders++].len = len;
    }
    return wk_problem_source(p, j->files[0], j->lang[0] ? j->lang : NULL, out, d->err, d->errlen);
}

static int read_judges(dm *d)
{
    wk_problem *p = d->p;
    const judge_ref *c = &d->checker;
    char q[WK_MAT_QUOTE_MAX];
    const char *name = c->given && c->name[0] ? c->name : "standard";
    if (strcmp(name, "standard") == 0)
        p->checker = Q_CHECK_TOKENS;
    else if (strcmp(name, "identical") == 0)
        p->checker = Q_CHECK_EXACT;
    else if (strcmp(name, "rstripped") == 0)
        p->checker = Q_CHECK_LINES;
    else if (strcmp(name, "floats") == 0) {
        p->checker = Q_CHECK_FLOAT;
        p->eps = pow10_neg(c->has_precision ? (unsigned)c->precision : 6);
    } else if (strcmp(name, "bridged") == 0) {
        p->checker = Q_CHECK_PROGRAM;
        p->convention = Q_CONV_TESTLIB;
        if (bridged(d, c, "checker", &p->checker_src) < 0)
            return -1;
    } else if (strchr(name, '.'))
        return refuse(d, "checker %s: a Python checker module (DMOJ runs it in its own process) is not read",
                      wk_mat_quote(q, sizeof q, name));
    else
        return refuse(d, "checker %s: not one gradeq has (standard, identical, rstripped, floats, bridged)",
                      wk_mat_quote(q, sizeof q, name));
    if (d->interactor.given && bridged(d, &d->interactor, "interactive", &p->interactor_src) < 0)
        return -1;
    return 0;
}

int wk_dmoj_read(wk_problem *p, char *err, size_t errlen)
{
    const void *y;
    size_t len;
    p->format = WK_FMT_DMOJ;
    int rc = wk_mat_read(p->m, "init.yml", &y, &len, err, errlen);
    if (rc != 0)
        return rc > 0 ? (snprintf(err, errlen, "%s: no init.yml", wk_mat_name(p->m)), -1) : -1;
    dm *d = calloc(1, sizeof *d);
    if (d)
        d->cases = calloc(Q_TESTS_MAX, sizeof *d->cases), d->batches = calloc(Q_GROUPS_MAX, sizeof *d->batches);
    if (!d || !d->cases || !d->batches) {
        if (d)
            free(d->cases), free(d->batches);
        free(d);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    char perr[512] = "";
    d->p = p;
    d->err = perr;
    d->errlen = sizeof perr;
    rc = wk_yaml_parse(y, len, on_event, d, perr, sizeof perr);
    d->err = err;
    d->errlen = errlen;
    if (rc < 0 && strstr(perr, "/init.yml"))
        snprintf(err, errlen, "%s", perr);
    else if (rc < 0)
        refuse(d, "%s", perr);
    if (rc == 0 && d->archive[0])
        rc = open_archive(d);
    if (rc == 0)
        rc = read_tests(d);
    if (rc == 0)
        rc = read_judges(d);
    for (size_t i = 0; i < d->ncases; i++)
        free(d->cases[i].in), free(d->cases[i].out);
    free(d->e.in);
    free(d->e.out);
    free(d->cases);
    free(d->batches);
    free(d);
    return rc;
}
