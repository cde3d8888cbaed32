/* grade.c -- one submission graded whole (see engine.h).
 *
 * ORDER. The compile step runs once on the job's files with the compiler's
 * limits, and hands back the regular files it left in /box (bounded in
 * count and bytes before anything is copied: sbx_collect). Then each test
 * runs the program on those files plus its own (which win over a base file
 * in their way: grade_files.c), its output is checked, and
 * only the first test_output_max bytes of its stdout and stderr are kept:
 * the verdict list is never cut, the outputs always are. All the outputs
 * kept share WK_RESULT_OUTPUT_MAX: the compile step keeps at most a quarter
 * of it per stream, and each test at most an equal share of what is left
 * for the tests not yet run, so the result is bounded whatever the job
 * asks.
 *
 * A sandbox failure in any run (a test, the compile step, the checker)
 * ends the grading as WK_GRADE_SANDBOX_ERROR: the worker retries the whole
 * job, as for a single run. A checker that fails is CHECKER_ERROR for that
 * test, never the program's fault.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/engine/checker.h"
#include "worker/engine/compile_cache.h"
#include "worker/engine/engine.h"
#include "worker/engine/grade_files.h"
#include "worker/engine/interact.h"
#include "worker/lang/apply.h"

_Static_assert(sizeof(sbx_limits) == Q_LIM_COUNT * sizeof(uint64_t), "sbx_limits is in Q_LIM_ order");

void wk_compile_limits_default(sbx_limits *l)
{
    *l = (sbx_limits){ .cpu_ms = 10000, .wall_ms = 30000, .memory_bytes = 512ull << 20,
                       .stdout_bytes = 64u << 10, .stderr_bytes = 64u << 10, .processes = 64,
                       .file_bytes = 256ull << 20, .open_files = 256 };
}

static const char *const extra_statuses[] = { WK_ST_WRONG_ANSWER, WK_ST_CHECKER_ERROR, WK_ST_COMPILE_ERROR, WK_ST_SKIPPED,
                                              WK_ST_INTERACTOR_ERROR };
_Static_assert(SBX_SANDBOX_ERROR + 1 + 5 == WK_GRADE_STATUSES, "every graded status has a metric");

const char *wk_grade_status_name(int i)
{
    if (i >= 0 && i <= SBX_SANDBOX_ERROR)
        return sbx_status_name((sbx_status)i);
    return i > SBX_SANDBOX_ERROR && i < WK_GRADE_STATUSES ? extra_statuses[i - SBX_SANDBOX_ERROR - 1] : NULL;
}

int wk_grade_status_index(const char *status)
{
    for (int i = 0; i < WK_GRADE_STATUSES; i++)
        if (strcmp(wk_grade_status_name(i), status) == 0)
            return i;
    return -1;
}

static uint64_t *lim(sbx_limits *l, int i)
{
    return (uint64_t *)(void *)l + i;
}

/* A CPU override without a wall one moves the wall with it. */
sbx_limits wk_test_limits(const wk_grade_plan *p, const q_test *t)
{
    sbx_limits l = p->limits, max = p->max;
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if (t->extra.limits_present & (1u << i))
            *lim(&l, i) = t->extra.limits[i] < *lim(&max, i) ? t->extra.limits[i] : *lim(&max, i);
    if ((t->extra.limits_present & (1u << Q_LIM_CPU_MS)) && !(t->extra.limits_present & (1u << Q_LIM_WALL_MS)))
        l.wall_ms = 3 * l.cpu_ms < max.wall_ms ? 3 * l.cpu_ms : max.wall_ms;
    if (p->lang)
        wk_lang_limits(p->lang, &l, &max);
    return l;
}

static char *keep(const char *p, size_t n, size_t max, size_t *len)
{
    *len = n < max ? n : max;
    char *c = malloc(*len + 1);
    if (c && *len)
        memcpy(c, p, *len);
    return c;
}

/* Copies how r ended into g, its outputs cut to max. -1: out of memory. */
static int record(q_graded *g, const sbx_result *r, size_t max)
{
    g->status = sbx_status_name(r->status);
    g->has_exit_code = r->exit_code >= 0;
    g->exit_code = r->exit_code;
    g->has_signal = r->signal != 0;
    g->signal = r->signal;
    g->cpu_us = r->cpu_us;
    g->wall_us = r->wall_us;
    g->memory_bytes = r->memory_bytes;
    g->stdout_buf = keep(r->stdout_buf, r->stdout_len, max, &g->stdout_len);
    g->stderr_buf = keep(r->stderr_buf, r->stderr_len, max, &g->stderr_len);
    g->stdout_truncated = r->stdout_truncated || r->stdout_len > max;
    g->stderr_truncated = r->stderr_truncated || r->stderr_len > max;
    return g->stdout_buf && g->stderr_buf ? 0 : -1;
}

static wk_grade_rc fail(wk_graded *out, const char *what, const char *why)
{
    snprintf(out->error, sizeof out->error, "%s: %s", what, why);
    return WK_GRADE_SANDBOX_ERROR;
}

/* fail() for the helpers that return -1. */
static int fail_run(wk_graded *out, const char *what, const char *why)
{
    fail(out, what, why);
    return -1;
}

/* The compile step once its spec is made (compile() below). */
static int run_compile(sbx_box *box, const wk_grade_plan *p, const sbx_spec *s, wk_graded *out,
                       sbx_collect *collected)
{
    if (wk_cc_get(p->cache, s, collected, &out->res.compile)) {
        out->compile_out_ = (char *)out->res.compile.stdout_buf;
        out->compile_err_ = (char *)out->res.compile.stderr_buf;
        return 0;
    }
    sbx_result r;
    sbx_run(box, s, &r);
    int rc = 0;
    if (r.status == SBX_SANDBOX_ERROR) {
        fail(out, "compile", r.error);
        rc = -1;
    } else if (record(&out->res.compile, &r, WK_RESULT_OUTPUT_MAX / 4) < 0) {
        fail(out, "compile", "out of memory for its output");
        rc = -1;
    } else if (r.status != SBX_OK) {
        rc = 1;
    } else if (collected->refused[0]) {
        snprintf(out->error, sizeof out->error, "compile left too much in /box: %s", collected->refused);
        out->res.compile.status = sbx_status_name(SBX_OUTPUT_LIMIT);
        rc = 1;
    }
    out->compile_out_ = (char *)out->res.compile.stdout_buf;
    out->compile_err_ = (char *)out->res.compile.stderr_buf;
    sbx_result_free(&r);
    if (rc != 0)
        sbx_collect_free(collected);
    else
        wk_cc_put(p->cache, s, collected, &out->res.compile);
    return rc;
}

/* The compile step: 0 compiled (*collected filled), 1 COMPILE_ERROR, -1
 * sandbox error. */
static int compile(sbx_box *box, const wk_grade_plan *p, wk_graded *out, sbx_collect *collected)
{
    *collected = (sbx_collect){ .max_files = WK_COLLECT_FILES, .max_bytes = WK_COLLECT_BYTES, .max_depth = 16 };
    sbx_spec s = { .argv = p->compile_argv, .env = p->env, .files = p->files, .nfiles = p->nfiles,
                   .limits = p->compile_limits, .collect = collected };
    out->res.has_compile = true;
    wk_lang_cmd cmd = { .env = NULL };
    if (p->lang) {
        char err[SBX_ERR_LEN];
        if (wk_lang_command(p->lang, true, &p->compile_limits, p->env, &cmd, err, sizeof err) < 0) {
            wk_lang_cmd_free(&cmd);
            return fail_run(out, "compile", err);
        }
        s.argv = cmd.argv;
        s.env = cmd.env;
    }
    int rc = run_compile(box, p, &s, out, collected);
    wk_lang_cmd_free(&cmd);
    return rc;
}

/* Checks a test that ran OK: its status and message. -1: sandbox error. */
static int check(sbx_host *host, sbx_box **cbox, const wk_grade_plan *p, const q_test *t, const sbx_result *r,
                 q_graded *g, char *msg, wk_graded *out)
{
    const q_grade *gr = p->g;
    if (gr->checker != Q_CHECK_PROGRAM) {
        if (!wk_check_text(gr->checker, gr->eps, r->stdout_buf, r->stdout_len, t->expected, t->expected_len, msg))
            g->status = WK_ST_WRONG_ANSWER;
        g->checker_message = msg[0] ? msg : NULL;
        return 0;
    }
    char err[SBX_ERR_LEN];
    if (!*cbox && sbx_box_open(host, cbox, err, sizeof err) < 0)
        return fail_run(out, "checker's box", err);
    int v = wk_check_program(*cbox, &p->checker, t->stdin_data, t->stdin_len, r->stdout_buf, r->stdout_len,
                             t->expected, t->expected_len, msg);
    if (v < 0)
        return fail_run(out, "checker", msg);
    g->status = v == WK_CHECK_ACCEPTED ? "OK" : v == WK_CHECK_REJECTED ? WK_ST_WRONG_ANSWER : WK_ST_CHECKER_ERROR;
    g->checker_message = msg[0] ? msg : NULL;
    return 0;
}

/* A test against the interactor (in *ibox), whose file `input` is the
 * test's stdin: its verdict is the test's. -1: sandbox error. */
static int interact(sbx_host *host, sbx_box *box, sbx_box **ibox, const wk_grade_plan *p, sbx_spec *s,
                    const q_test *t, size_t keep_max, q_graded *g, char *msg, wk_graded *out)
{
    char err[SBX_ERR_LEN];
    if (!*ibox && sbx_box_open(host, ibox, err, sizeof err) < 0)
        return fail_run(out, "interactor's box", err);
    sbx_spec is = p->interactor;
    ((sbx_file *)is.files)[is.nfiles - 1] = (sbx_file){ "input", t->stdin_data, t->stdin_len, false };
    s->stdin_data = NULL;
    s->stdin_len = 0;
    wk_pair pair;
    int rc = wk_run_pair(box, s, *ibox, &is, 0, &pair);
    if (rc == 0 && p->lang && wk_lang_oom(p->lang, &s->limits, &pair.prog)) {
        pair.prog.status = SBX_MEMORY_LIMIT;
        wk_pair_decide(&pair);
    }
    if (rc < 0)
        fail(out, t->name, pair.message[0] ? pair.message : "sandbox error");
    else if (record(g, &pair.prog, keep_max) < 0)
        rc = fail_run(out, t->name, "out of memory for its output");
    else {
        g->status = pair.status;
        if (pair.message[0])
            snprintf(msg, WK_CHECK_MSG_LEN, "%s", pair.message);
        else
            wk_first_line(msg, pair.inter.stderr_buf, pair.inter.stderr_len);
        g->checker_message = msg[0] ? msg : NULL;
    }
    wk_pair_free(&pair);
    return rc < 0 ? -1 : 0;
}

/* A test alone: the program run, then its output checked. -1: sandbox
 * error. */
static int run_one(sbx_host *host, sbx_box *box, sbx_box **cbox, const wk_grade_plan *p, const sbx_spec *s,
                   const q_test *t, size_t keep_max, q_graded *g, char *msg, wk_graded *out)
{
    sbx_result r;
    int rc = 0;
    sbx_run(box, s, &r);
    if (p->lang && wk_lang_oom(p->lang, &s->limits, &r))
        r.status = SBX_MEMORY_LIMIT;
    if (r.status == SBX_SANDBOX_ERROR)
        rc = fail_run(out, t->name, r.error);
    else if (record(g, &r, keep_max) < 0)
        rc = fail_run(out, t->name, "out of memory for its output");
    else if (r.status == SBX_OK)
        rc = check(host, cbox, p, t, &r, g, msg, out);
    sbx_result_free(&r);
    return rc;
}

/* Per test: the checker's message lives beside its record. */
typedef struct test_slot {
    char msg[WK_CHECK_MSG_LEN];
} test_slot;

static void skip(q_graded *g)
{
    g->status = WK_ST_SKIPPED;
    g->stdout_buf = g->stderr_buf = "";
}

wk_grade_rc wk_grade(sbx_host *host, sbx_box *box, sbx_box **checker_box, const wk_grade_plan *p, wk_graded *out)
{
    const q_grade *g = p->g;
    memset(out, 0, sizeof *out);
    out->first_failed = -1;
    out->tests_ = calloc(g->ntests, sizeof *out->tests_ + sizeof(test_slot));
    if (!out->tests_)
        return fail(out, "grading", "out of memory for the verdicts");
    test_slot *slots = (test_slot *)(void *)(out->tests_ + g->ntests);
    out->res.tests = out->tests_;
    out->res.ntests = out->res.total = g->ntests;
    out->res.time_factor_milli = p->lang ? p->lang->time_factor_milli : 0;
    for (size_t i = 0; i < g->ntests; i++)
        out->tests_[i].name = g->tests[i].name;

    sbx_collect built = { 0 };
    const sbx_file *base = p->files;
    size_t nbase = p->nfiles;
    if (p->compile_argv) {
        int rc = compile(box, p, out, &built);
        if (rc < 0)
            return WK_GRADE_SANDBOX_ERROR;
        if (rc > 0) {
            out->status = WK_ST_COMPILE_ERROR;
            for (size_t i = 0; i < g->ntests; i++)
                skip(&out->tests_[i]);
            return WK_GRADED;
        }
        base = built.files;
        nbase = built.nfiles;
    }
    size_t most = 0;
    for (size_t i = 0; i < g->ntests; i++)
        most = g->tests[i].extra.nfiles > most ? g->tests[i].extra.nfiles : most;
    sbx_file *files = calloc(nbase + most + 1, sizeof *files);
    wk_base_files bases;
    if (!files || wk_base_files_init(&bases, base, nbase) < 0) {
        free(files);
        sbx_collect_free(&built);
        return fail(out, "grading", "out of memory for the files");
    }

    wk_grade_rc rc = WK_GRADED;
    bool stopping = false;
    uint64_t kept = out->res.compile.stdout_len + out->res.compile.stderr_len;
    for (size_t i = 0; i < g->ntests && rc == WK_GRADED; i++) {
        const q_test *t = &g->tests[i];
        q_graded *gt = &out->tests_[i];
        if (stopping) {
            skip(gt);
            if (p->on_test)
                p->on_test(p->ctx, i, gt);
            continue;
        }
        if (p->stop && atomic_load(p->stop)) {
            rc = WK_GRADE_STOPPED;
            break;
        }
        sbx_spec s = { .argv = p->argv, .env = p->env, .files = files, .nfiles = wk_test_files(&bases, &t->extra, files),
                       .stdin_data = t->stdin_data, .stdin_len = t->stdin_len, .limits = wk_test_limits(p, t) };
        /* Each stream's share of what the tests not yet run may keep. */
        size_t share = (size_t)(WK_RESULT_OUTPUT_MAX - kept) / (2 * (g->ntests - i));
        size_t keep_max = p->test_output_max < share ? p->test_output_max : share;
        wk_lang_cmd cmd = { .env = NULL };
        char err[SBX_ERR_LEN];
        int trc = 0;
        if (p->lang && wk_lang_command(p->lang, false, &s.limits, p->env, &cmd, err, sizeof err) < 0)
            trc = fail_run(out, t->name, err); /* tried when planned: out of memory */
        s.argv = p->lang ? cmd.argv : s.argv;
        s.env = p->lang ? cmd.env : s.env;
        if (trc == 0)
            trc = p->has_interactor ? interact(host, box, checker_box, p, &s, t, keep_max, gt, slots[i].msg, out)
                                    : run_one(host, box, checker_box, p, &s, t, keep_max, gt, slots[i].msg, out);
        wk_lang_cmd_free(&cmd);
        kept += gt->stdout_len + gt->stderr_len;
        if (trc < 0)
            rc = WK_GRADE_SANDBOX_ERROR;
        if (rc != WK_GRADED)
            break;
        out->cpu_us = gt->cpu_us > out->cpu_us ? gt->cpu_us : out->cpu_us;
        out->wall_us = gt->wall_us > out->wall_us ? gt->wall_us : out->wall_us;
        out->memory_bytes = gt->memory_bytes > out->memory_bytes ? gt->memory_bytes : out->memory_bytes;
        if (strcmp(gt->status, "OK") == 0) {
            out->res.passed++;
        } else if (out->first_failed < 0) {
            out->first_failed = (int)i;
            stopping = g->stop_on_failure;
        }
        if (p->on_test)
            p->on_test(p->ctx, i, gt);
    }
    free(files);
    wk_base_files_free(&bases);
    sbx_collect_free(&built);
    if (rc == WK_GRADED)
        out->status = out->first_failed < 0 ? "OK" : out->tests_[out->first_failed].status;
    return rc;
}

void wk_graded_free(wk_graded *g)
{
    for (size_t i = 0; g->tests_ && i < g->res.ntests; i++) {
        if (strcmp(g->tests_[i].status ? g->tests_[i].status : "", WK_ST_SKIPPED) != 0) {
            free((void *)g->tests_[i].stdout_buf);
            free((void *)g->tests_[i].stderr_buf);
        }
    }
    free(g->tests_);
    free(g->compile_out_);
    free(g->compile_err_);
    memset(g, 0, sizeof *g);
}
