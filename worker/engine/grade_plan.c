/* grade_plan.c -- a grading job (decoded, or built by `gradeq grade`)
 * becomes a wk_grade_plan; a wk_graded becomes a wire result.
 *
 * Limits, for each of the program, the compile step and the checker: the
 * defaults (the sandbox's; the compiler's for the compile step), then the
 * language preset's, then the job's, each clamped to the worker's maxima.
 * A preset's time factor and its runtime's processes come on top, per run
 * (grade.c). Its commands are tried here with the compile step's and each
 * test's limits, so that a placeholder those limits break is the job's
 * BAD_JOB, not a failure in the middle of the grading.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/convert.h"
#include "worker/engine/grade_files.h"
#include "worker/engine/grade_plan.h"
#include "worker/lang/apply.h"

/* What runs is what the decoder checked (job.h's Q_EXEC_ rules), but for a
 * language preset's commands, which run with the job's env: a command is
 * at most its buffer, and with an env within Q_EXEC_BYTES_MAX it still
 * fits the sandbox, so no job is refused there. */
_Static_assert(Q_EXEC_BYTES_MAX + sizeof(((wk_lang *)0)->compile_buf) <= SBX_EXEC_BYTES_MAX &&
                   sizeof(((wk_lang *)0)->run_buf) == sizeof(((wk_lang *)0)->compile_buf),
               "a preset's command with a job's env fits the sandbox's exec request");

static uint64_t *lim(sbx_limits *l, int i)
{
    return (uint64_t *)(void *)l + i;
}

static uint64_t limv(const sbx_limits *l, int i)
{
    return ((const uint64_t *)(const void *)l)[i];
}

static sbx_limits limits(const sbx_limits *def, const uint64_t *preset, unsigned preset_given, const q_prog *job,
                         const sbx_limits *max)
{
    sbx_limits l = *def;
    for (int i = 0; i < Q_LIM_COUNT; i++) {
        if (preset_given & (1u << i))
            *lim(&l, i) = preset[i];
        if (job->limits_present & (1u << i))
            *lim(&l, i) = job->limits[i];
        if (*lim(&l, i) > limv(max, i))
            *lim(&l, i) = limv(max, i);
    }
    if (!l.wall_ms)
        l.wall_ms = 3 * l.cpu_ms < max->wall_ms ? 3 * l.cpu_ms : max->wall_ms;
    return l;
}

static int positive(const sbx_limits *l, const char *what, char *err, size_t errlen)
{
    if (!l->cpu_ms || !l->memory_bytes || !l->processes || !l->open_files)
        return snprintf(err, errlen, "%slimits: cpu_ms, memory_bytes, processes and open_files must be positive",
                        what), -1;
    return 0;
}

/* -1 with err when one of p's files clashes with a path the worker places
 * itself (grade_files.h): the job is refused, never a sandbox error. */
static int clash(const q_prog *p, const char *what, const char *path, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->nfiles; i++)
        if (wk_path_clash(p->files[i].name, path))
            return snprintf(err, errlen, "%sfiles: a file clashes with \"%s\", which the worker places", what, path),
                   -1;
    return 0;
}

/* The job's bytes stay as they are for the plan's life: each file is
 * numbered, so that a box keeping it from the last test does not read it
 * again to compare. */
static sbx_file *files_of(const q_prog *p, size_t extra)
{
    sbx_file *f = calloc(p->nfiles + extra + 1, sizeof *f);
    for (size_t i = 0; f && i < p->nfiles; i++)
        f[i] = (sbx_file){ p->files[i].name, p->files[i].data, p->files[i].len, true, sbx_content_id() };
    return f;
}

/* The checker program: its argv gets the three names its convention
 * reads (judge.h), its files three free slots for them. */
static int checker(const q_grade *g, const sbx_limits *max, wk_grade_plan *p, wk_plan_store *st, char *err,
                   size_t errlen)
{
    static const char *const names[][3] = { [Q_CONV_TESTLIB] = { "input", "output", "answer" },
                                            [Q_CONV_CMS] = { "input", "answer", "output" },
                                            [Q_CONV_KATTIS] = { "input", "answer", "feedback" } };
    const q_prog *c = &g->checker_prog;
    sbx_limits def;
    sbx_limits_default(&def);
    if (clash(c, "checker.", "input", err, errlen) < 0 || clash(c, "checker.", "output", err, errlen) < 0 ||
        clash(c, "checker.", "answer", err, errlen) < 0 || clash(c, "checker.", "feedback", err, errlen) < 0)
        return -1;
    p->checker.limits = limits(&def, NULL, 0, c, max);
    st->checker_argv = calloc(c->argc + 4, sizeof *st->checker_argv);
    st->checker_files = files_of(c, 3);
    if (!st->checker_argv || !st->checker_files)
        return snprintf(err, errlen, "checker: out of memory"), -1;
    for (size_t i = 0; i < c->argc; i++)
        st->checker_argv[i] = c->argv[i];
    for (size_t i = 0; i < 3; i++)
        st->checker_argv[c->argc + i] = names[g->convention][i];
    p->checker.argv = st->checker_argv;
    p->checker.files = st->checker_files;
    p->checker.nfiles = c->nfiles;
    return positive(&p->checker.limits, "checker.", err, errlen);
}

/* Each command the preset will run for this job expands. */
static int try_language(const wk_lang *lang, const wk_grade_plan *p, char *err, size_t errlen)
{
    wk_lang_cmd cmd;
    if (lang->has_compile) {
        int rc = wk_lang_command(lang, true, &p->compile_limits, p->env, &cmd, err, errlen);
        wk_lang_cmd_free(&cmd);
        if (rc < 0)
            return -1;
    }
    for (size_t i = 0; i < p->g->ntests; i++) {
        sbx_limits l = wk_test_limits(p, &p->g->tests[i]);
        int rc = wk_lang_command(lang, false, &l, p->env, &cmd, err, errlen);
        wk_lang_cmd_free(&cmd);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int wk_grade_plan_from_job(const q_job *j, const wk_langs *langs, const sbx_limits *max, size_t test_output_max,
                           size_t output_max, wk_grade_plan *p, wk_plan_store *st, char *err, size_t errlen)
{
    const q_grade *g = j->grade;
    const wk_lang *lang = NULL;
    memset(p, 0, sizeof *p);
    memset(st, 0, sizeof *st);
    if (g->language) {
        lang = langs ? wk_lang_find(langs, g->language) : NULL;
        if (!lang)
            return snprintf(err, errlen, "language: \"%s\" is not a language of this worker", g->language), -1;
        if (!lang->available)
            return snprintf(err, errlen, "language: %s: %s", lang->name, lang->why), -1;
    }
    sbx_limits def;
    sbx_limits_default(&def);
    p->limits = limits(&def, lang ? lang->limits : NULL, lang ? lang->limits_given : 0, &j->prog, max);
    p->max = *max;
    if (positive(&p->limits, "", err, errlen) < 0)
        return -1;
    if (lang && clash(&j->prog, "", lang->source, err, errlen) < 0)
        return -1;
    st->files = files_of(&j->prog, 1);
    if (!st->files)
        return snprintf(err, errlen, "files: out of memory"), -1;
    p->files = st->files;
    p->nfiles = j->prog.nfiles;
    if (lang)
        st->files[p->nfiles++] = (sbx_file){ lang->source, g->source, g->source_len, false };
    p->argv = lang ? (const char *const *)lang->run_argv : (const char *const *)j->prog.argv;
    p->env = (const char *const *)j->env;
    p->lang = lang;
    if ((lang && lang->has_compile) || g->has_compile) {
        sbx_limits cdef;
        wk_compile_limits_default(&cdef);
        p->compile_argv = lang ? (const char *const *)lang->compile_argv : (const char *const *)g->compile.argv;
        p->compile_limits = limits(&cdef, lang ? lang->compile_limits : NULL, lang ? lang->compile_given : 0,
                                   &g->compile, max);
        if (positive(&p->compile_limits, "compile.", err, errlen) < 0)
            return -1;
    }
    if (j->has_interactor) {
        if (g->checker != Q_CHECK_LINES && g->checker != Q_CHECK_PROGRAM && g->checker != Q_CHECK_TESTLIB)
            return snprintf(err, errlen, "checker: with an interactor only a program or testlib:NAME, which "
                                         "judges what the interactor wrote to tout"), -1;
        if (clash(&j->interactor, "interactor.", "input", err, errlen) < 0 ||
            clash(&j->interactor, "interactor.", "tout", err, errlen) < 0 ||
            clash(&j->interactor, "interactor.", "answer", err, errlen) < 0)
            return -1;
        sbx_file *unused;
        if (wk_spec_from_prog(&j->interactor, max, NULL, &p->interactor, &unused, err, errlen) < 0)
            return -1;
        free(unused);
        st->inter_files = files_of(&j->interactor, 2);
        if (!st->inter_files)
            return snprintf(err, errlen, "interactor: out of memory"), -1;
        p->interactor.files = st->inter_files;
        p->has_interactor = true;
    }
    p->g = g;
    p->test_output_max = test_output_max;
    p->output_max = output_max;
    if (lang && try_language(lang, p, err, errlen) < 0)
        return -1;
    return g->checker == Q_CHECK_PROGRAM ? checker(g, max, p, st, err, errlen) : 0;
}

void wk_plan_store_free(wk_plan_store *st)
{
    free(st->files);
    free(st->checker_argv);
    free(st->checker_files);
    free(st->inter_files);
    memset(st, 0, sizeof *st);
}

void wk_graded_to_wire(const wk_graded *g, const char *id, const char *worker, uint64_t attempt, unsigned isolation,
                       const char **names, q_result *out)
{
    memset(out, 0, sizeof *out);
    out->id = id;
    out->worker = worker;
    out->attempt = attempt;
    out->status = g->status;
    const q_graded *f = g->first_failed >= 0 ? &g->res.tests[g->first_failed]
                        : g->res.has_compile && strcmp(g->status, "OK") != 0 ? &g->res.compile
                                                                            : NULL;
    if (f) {
        out->has_exit_code = f->has_exit_code;
        out->exit_code = f->exit_code;
        out->has_signal = f->has_signal;
        out->signal = f->signal;
    }
    out->stdout_buf = out->stderr_buf = "";
    out->cpu_us = g->cpu_us;
    out->wall_us = g->wall_us;
    out->memory_bytes = g->memory_bytes;
    out->error = g->error[0] ? g->error : NULL;
    out->nisolation = sbx_isolation_names(isolation, names, WK_ISO_MAX);
    out->isolation = names;
    out->grade = &g->res;
}
