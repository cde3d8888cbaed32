/* prepare.c -- building and running a package's code in the sandbox
 * (prepare.h).
 *
 * Every run here is the package's code and gets the sandbox's whole
 * guarantee: its own box (the caller's, reset after each run), limits,
 * no network, no host file but the system's read-only directories. A
 * failure of the package's code is the package's (1: BAD_JOB with what
 * failed), never the submission's; a failure of the sandbox is -1.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/engine/checker.h"
#include "worker/engine/engine.h"
#include "worker/problem/prepare.h"

/* A package fault (1) with its message. */
static int fault(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fault(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return 1;
}

static int sandbox_failed(char *err, size_t errlen, const char *what, const char *why)
{
    snprintf(err, errlen, "%s: %s", what, why);
    return -1;
}

static uint64_t *lim(sbx_limits *l, int i)
{
    return (uint64_t *)(void *)l + i;
}

/* The preset's limits (given bits of given[]) over base, clamped to max. */
static sbx_limits limits_of(const sbx_limits *base, const uint64_t *given, unsigned bits, const sbx_limits *max)
{
    sbx_limits l = *base;
    for (int i = 0; i < Q_LIM_COUNT; i++) {
        if (bits & (1u << i))
            *lim(&l, i) = given[i];
        uint64_t m = ((const uint64_t *)(const void *)max)[i];
        if (*lim(&l, i) > m)
            *lim(&l, i) = m;
    }
    return l;
}

static void built_free(wk_built *b)
{
    sbx_collect_free(&b->files);
    free(b->qfiles);
    memset(b, 0, sizeof *b);
}

static int as_qfiles(wk_built *b, char *err, size_t errlen)
{
    b->qfiles = calloc(b->files.nfiles + 1, sizeof *b->qfiles);
    if (!b->qfiles)
        return sandbox_failed(err, errlen, "building", "out of memory");
    for (size_t i = 0; i < b->files.nfiles; i++)
        b->qfiles[i] = (q_file){ (char *)b->files.files[i].name, b->files.files[i].data, b->files.files[i].len };
    return 0;
}

/* The source and the package's headers as files of one /box; NULL when
 * a header has the source's name (the package's fault, said in err). */
static sbx_file *source_files(const wk_problem *p, const wk_source *src, const wk_lang *lang, size_t *n,
                              const char *what, char *err, size_t errlen)
{
    sbx_file *f = calloc(p->nheaders + 2, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "%s: out of memory", what);
        return NULL;
    }
    f[0] = (sbx_file){ lang->source, src->data, src->len, false };
    *n = 1;
    for (size_t i = 0; i < p->nheaders; i++) {
        if (strcmp(p->headers[i].name, lang->source) == 0) {
            free(f);
            fault(err, errlen, "%s: a resource of the package is named %s, where its source goes", what,
                  lang->source);
            return NULL;
        }
        f[(*n)++] = (sbx_file){ p->headers[i].name, p->headers[i].data, p->headers[i].len, false };
    }
    return f;
}

/* Builds src (what names it) in e->box. 0, 1 package fault, -1. */
static int build(const wk_problem *p, const wk_source *src, const char *what, const wk_prepare_env *e, wk_built *b,
                 char *err, size_t errlen)
{
    char q[WK_MAT_QUOTE_MAX];
    const wk_lang *lang = e->langs ? wk_lang_find(e->langs, src->lang) : NULL;
    memset(b, 0, sizeof *b);
    if (!lang)
        return fault(err, errlen, "%s %s: no language preset \"%s\" to build it with here", what,
                     wk_mat_quote(q, sizeof q, src->path), src->lang);
    if (!lang->available)
        return fault(err, errlen, "%s %s: language %s: %s", what, wk_mat_quote(q, sizeof q, src->path), lang->name,
                     lang->why);
    size_t n;
    sbx_file *files = source_files(p, src, lang, &n, what, err, errlen);
    if (!files)
        return strstr(err, "out of memory") ? -1 : 1;
    b->argv = (const char *const *)lang->run_argv;
    b->files = (sbx_collect){ .max_files = WK_COLLECT_FILES, .max_bytes = WK_COLLECT_BYTES, .max_depth = 16 };
    int rc = 0;
    if (!lang->has_compile) {
        /* Run from its source: the files are the source and headers. */
        b->files.files = calloc(n + 1, sizeof *b->files.files);
        for (size_t i = 0; b->files.files && i < n; i++) {
            char *name = strdup(files[i].name), *data = malloc(files[i].len + 1);
            if (!name || !data) {
                free(name);
                free(data);
                break;
            }
            memcpy(data, files[i].data, files[i].len);
            b->files.files[b->files.nfiles++] = (sbx_file){ name, data, files[i].len, false };
        }
        rc = b->files.files && b->files.nfiles == n ? 0 : sandbox_failed(err, errlen, what, "out of memory");
    } else {
        sbx_limits cdef;
        wk_compile_limits_default(&cdef);
        sbx_spec s = { .argv = (const char *const *)lang->compile_argv, .files = files, .nfiles = n,
                       .limits = limits_of(&cdef, lang->compile_limits, lang->compile_given, &e->max),
                       .collect = &b->files };
        q_graded rec = { 0 };
        if (wk_cc_get(e->cache, &s, &b->files, &rec)) {
            free((void *)rec.stdout_buf);
            free((void *)rec.stderr_buf);
        } else {
            sbx_result r;
            sbx_run(e->box, &s, &r);
            char line[WK_CHECK_MSG_LEN];
            wk_first_line(line, r.stderr_buf, r.stderr_len);
            if (r.status == SBX_SANDBOX_ERROR)
                rc = sandbox_failed(err, errlen, what, r.error);
            else if (r.status != SBX_OK)
                rc = fault(err, errlen, "%s %s does not compile (%s)%s%s", what, wk_mat_quote(q, sizeof q, src->path),
                           sbx_status_name(r.status), line[0] ? ": " : "", line);
            else if (b->files.refused[0])
                rc = fault(err, errlen, "%s %s: its compile left too much: %s", what,
                           wk_mat_quote(q, sizeof q, src->path), b->files.refused);
            else {
                rec = (q_graded){ .status = "OK", .stdout_buf = "", .stderr_buf = "" };
                wk_cc_put(e->cache, &s, &b->files, &rec);
            }
            sbx_result_free(&r);
        }
    }
    free(files);
    if (rc == 0)
        rc = as_qfiles(b, err, errlen);
    if (rc != 0)
        built_free(b);
    return rc;
}

/* Runs b with extra arguments and stdin, its stdout into *out (malloc'd):
 * 0, 1 when it fails (what, said in err), -1. */
static int run_built(const wk_built *b, const char *const *args, size_t nargs, const void *in, size_t inlen,
                     const wk_problem *p, const wk_prepare_env *e, const char *what, char **out, size_t *outlen,
                     char *err, size_t errlen)
{
    const char *argv[WK_LANG_ARGS + WK_PROBLEM_ARGS + 1];
    size_t n = 0;
    for (; b->argv[n] && n < WK_LANG_ARGS; n++)
        argv[n] = b->argv[n];
    for (size_t i = 0; i < nargs; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    sbx_limits base;
    sbx_limits_default(&base);
    base.cpu_ms = p->cpu_ms * 4 > 10000 ? p->cpu_ms * 4 : 10000;
    base.wall_ms = 3 * base.cpu_ms;
    base.memory_bytes = p->memory_bytes > (512ull << 20) ? p->memory_bytes : 512ull << 20;
    base.stdout_bytes = WK_MADE_MAX;
    base.file_bytes = WK_MADE_MAX;
    sbx_spec s = { .argv = argv, .files = b->files.files, .nfiles = b->files.nfiles, .stdin_data = in,
                   .stdin_len = inlen, .limits = limits_of(&base, NULL, 0, &e->max) };
    sbx_result r;
    sbx_run(e->box, &s, &r);
    int rc = 0;
    char line[WK_CHECK_MSG_LEN];
    wk_first_line(line, r.stderr_buf, r.stderr_len);
    if (r.status == SBX_SANDBOX_ERROR)
        rc = sandbox_failed(err, errlen, what, r.error);
    else if (r.status != SBX_OK)
        rc = fault(err, errlen, "%s ended %s%s%s", what, sbx_status_name(r.status), line[0] ? ": " : "", line);
    else if (r.stdout_truncated)
        rc = fault(err, errlen, "%s wrote more than %u bytes", what, WK_MADE_MAX);
    else if (!(*out = malloc(r.stdout_len + 1)))
        rc = sandbox_failed(err, errlen, what, "out of memory");
    else {
        memcpy(*out, r.stdout_buf, r.stdout_len);
        *outlen = r.stdout_len;
    }
    sbx_result_free(&r);
    return rc;
}

void wk_prepared_free(wk_prepared *w)
{
    built_free(&w->checker);
    built_free(&w->interactor);
    for (size_t i = 0; w->made && i < 2 * w->ntests; i++)
        free(w->made[i]);
    free(w->made);
    free(w->tests);
    memset(w, 0, sizeof *w);
}

/* The inputs generators make. */
static int generate(const wk_problem *p, const wk_prepare_env *e, wk_prepared *w, char *err, size_t errlen)
{
    for (size_t g = 0; g < p->ngens; g++) {
        wk_built b;
        char what[160];
        snprintf(what, sizeof what, "generator %s", p->gen_names[g]);
        int rc = build(p, &p->gens[g], "generator", e, &b, err, errlen);
        for (size_t i = 0; rc == 0 && i < p->ntests; i++) {
            if (p->ptests[i].gen != (int)g)
                continue;
            char twhat[200];
            snprintf(twhat, sizeof twhat, "%s for test %s", what, p->tests[i].name);
            rc = run_built(&b, (const char *const *)p->ptests[i].args, p->ptests[i].nargs, NULL, 0, p, e, twhat,
                           &w->made[2 * i], &w->tests[i].stdin_len, err, errlen);
            w->tests[i].stdin_data = w->made[2 * i];
        }
        built_free(&b);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The answers the main solution makes. */
static int answers(const wk_problem *p, const wk_prepare_env *e, wk_prepared *w, char *err, size_t errlen)
{
    if (!p->main_src.path)
        return 0;
    wk_built b;
    int rc = build(p, &p->main_src, "main solution", e, &b, err, errlen);
    for (size_t i = 0; rc == 0 && i < p->ntests; i++) {
        if (!p->ptests[i].needs_answer)
            continue;
        char what[160];
        snprintf(what, sizeof what, "the main solution on test %s", p->tests[i].name);
        rc = run_built(&b, NULL, 0, w->tests[i].stdin_data, w->tests[i].stdin_len, p, e, what, &w->made[2 * i + 1],
                       &w->tests[i].expected_len, err, errlen);
        w->tests[i].expected = w->made[2 * i + 1];
    }
    built_free(&b);
    return rc;
}

int wk_problem_prepare(const wk_problem *p, const wk_prepare_env *e, wk_prepared *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->tests = calloc(p->ntests + 1, sizeof *w->tests);
    w->made = calloc(2 * p->ntests + 1, sizeof *w->made);
    w->ntests = p->ntests;
    if (!w->tests || !w->made) {
        wk_prepared_free(w);
        return sandbox_failed(err, errlen, "preparing the problem", "out of memory");
    }
    memcpy(w->tests, p->tests, p->ntests * sizeof *w->tests);
    int rc = generate(p, e, w, err, errlen);
    if (rc == 0)
        rc = answers(p, e, w, err, errlen);
    if (rc == 0 && p->checker == Q_CHECK_PROGRAM) {
        rc = build(p, &p->checker_src, "checker", e, &w->checker, err, errlen);
        w->has_checker = rc == 0;
    }
    if (rc == 0 && p->interactor_src.path) {
        rc = build(p, &p->interactor_src, "interactor", e, &w->interactor, err, errlen);
        w->has_interactor = rc == 0;
    }
    if (rc != 0)
        wk_prepared_free(w);
    return rc;
}

static size_t count(const char *const *argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    return n;
}

void wk_problem_job(const wk_problem *p, const wk_prepared *w, q_grade *g, q_job *j)
{
    g->tests = w->tests;
    g->ntests = w->ntests;
    g->groups = p->groups;
    g->ngroups = p->ngroups;
    g->stop_on_failure = p->stop_on_failure;
    g->checker = p->checker;
    g->eps = p->eps;
    g->std = p->std;
    if (w->has_checker) {
        g->checker_prog = (q_prog){ .argv = (char **)w->checker.argv, .argc = count(w->checker.argv),
                                    .files = w->checker.qfiles, .nfiles = w->checker.files.nfiles };
        g->convention = p->convention;
        /* A judge reads whole files: a second of CPU is not its budget. */
        g->checker_prog.limits[Q_LIM_CPU_MS] = 10000;
        g->checker_prog.limits[Q_LIM_MEMORY_BYTES] = 512ull << 20;
        g->checker_prog.limits_present = 1u << Q_LIM_CPU_MS | 1u << Q_LIM_MEMORY_BYTES;
    }
    if (w->has_interactor) {
        j->has_interactor = true;
        j->interactor = (q_prog){ .argv = (char **)w->interactor.argv, .argc = count(w->interactor.argv),
                                  .files = w->interactor.qfiles, .nfiles = w->interactor.files.nfiles };
    }
    if (p->cpu_ms && !(j->prog.limits_present & (1u << Q_LIM_CPU_MS))) {
        j->prog.limits[Q_LIM_CPU_MS] = p->cpu_ms;
        j->prog.limits_present |= 1u << Q_LIM_CPU_MS;
    }
    if (p->memory_bytes && !(j->prog.limits_present & (1u << Q_LIM_MEMORY_BYTES))) {
        j->prog.limits[Q_LIM_MEMORY_BYTES] = p->memory_bytes;
        j->prog.limits_present |= 1u << Q_LIM_MEMORY_BYTES;
    }
    if (p->output_bytes && !(j->prog.limits_present & (1u << Q_LIM_STDOUT_BYTES))) {
        j->prog.limits[Q_LIM_STDOUT_BYTES] = p->output_bytes;
        j->prog.limits_present |= 1u << Q_LIM_STDOUT_BYTES;
    }
}
