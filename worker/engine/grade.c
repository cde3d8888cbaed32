/* grade.c -- one submission graded whole (see engine.h).
 *
 * ORDER. The compile step runs once on the job's files with the compiler's
 * limits, and hands back the regular files it left in /box (bounded in
 * count and bytes before anything is copied: sbx_collect). Then each test
 * runs the program on those files plus its own (which win over a base file
 * in their way: grade_files.c), its output is checked, and
 * only the first test_output_max bytes of its stdout and stderr are kept:
 * the verdict list is never cut, the outputs always are. All the outputs
 * kept share the plan's output_max: the compile step keeps at most a
 * quarter of it per stream, and each test at most an equal share of what
 * is left for the tests not yet run, so the result is bounded whatever the
 * job asks.
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
#include "worker/engine/judge.h"
#include "worker/engine/std_checkers.h"
#include "worker/engine/score.h"
#include "worker/lang/apply.h"

_Static_assert(sizeof(sbx_limits) == Q_LIM_COUNT * sizeof(uint64_t), "sbx_limits is in Q_LIM_ order");

void wk_compile_limits_default(sbx_limits *l)
{
    *l = (sbx_limits){ .cpu_ms = 10000, .wall_ms = 30000, .memory_bytes = 512ull << 20,
                       .stdout_bytes = 64u << 10, .stderr_bytes = 64u << 10, .processes = 64,
                       .file_bytes = 256ull << 20, .open_files = 256 };
}

size_t wk_output_budget(uint64_t result_bytes, bool grading)
{
    size_t fixed = grading ? WK_GRADE_FIXED_MAX : WK_RESULT_FIXED_MAX;
    return result_bytes > fixed ? (size_t)(result_bytes - fixed) : 0;
}

static const char *const extra_statuses[] = { WK_ST_WRONG_ANSWER, WK_ST_CHECKER_ERROR, WK_ST_COMPILE_ERROR, WK_ST_SKIPPED,
                                              WK_ST_INTERACTOR_ERROR, WK_ST_PARTIAL };
_Static_assert(SBX_SANDBOX_ERROR + 1 + 6 == WK_GRADE_STATUSES, "every graded status has a metric");

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

/* The plan's limits with the test's overrides, clamped to the maxima; a
 * CPU override without a wall one moves the wall with it, and so does a
 * wall of 0 (the sandbox's 3x cpu, which would pass the maximum); then
 * what the language preset adds (its time factor). */
sbx_limits wk_test_limits(const wk_grade_plan *p, const q_test *t)
{
    sbx_limits l = p->limits, max = p->max;
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if (t->extra.limits_present & (1u << i))
            *lim(&l, i) = t->extra.limits[i] < *lim(&max, i) ? t->extra.limits[i] : *lim(&max, i);
    if (((t->extra.limits_present & (1u << Q_LIM_CPU_MS)) && !(t->extra.limits_present & (1u << Q_LIM_WALL_MS))) ||
        !l.wall_ms)
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
    } else if (record(&out->res.compile, &r, p->output_max / 4) < 0) {
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

/* Checks out[0..outlen), what a test's program (or its interactor) left,
 * against the test worth max points: its status, score and message. -1:
 * sandbox error. */
static int check(sbx_host *host, sbx_box **cbox, const wk_grade_plan *p, const q_test *t, const void *output,
                 size_t outlen, q_points max, q_graded *g, char *msg, wk_graded *out)
{
    const q_grade *gr = p->g;
    if (gr->checker == Q_CHECK_TESTLIB) {
        int v = wk_check_std(gr->std, output, outlen, t->expected, t->expected_len, msg);
        g->status = v == WK_CHECK_ACCEPTED ? "OK" : v == WK_CHECK_REJECTED ? WK_ST_WRONG_ANSWER : WK_ST_CHECKER_ERROR;
        g->checker_message = msg[0] ? msg : NULL;
        return 0;
    }
    if (gr->checker != Q_CHECK_PROGRAM) {
        if (!wk_check_text(gr->checker, gr->eps, output, outlen, t->expected, t->expected_len, msg))
            g->status = WK_ST_WRONG_ANSWER;
        g->checker_message = msg[0] ? msg : NULL;
        return 0;
    }
    char err[SBX_ERR_LEN];
    if (!*cbox && sbx_box_open(host, cbox, err, sizeof err) < 0)
        return fail_run(out, "checker's box", err);
    wk_check_io io = { t->stdin_data, output, t->expected, t->stdin_len, outlen, t->expected_len };
    int v = wk_check_program(*cbox, &p->checker, gr->convention, &io, max, &g->score, msg);
    if (v < 0)
        return fail_run(out, "checker", msg);
    g->status = v == WK_CHECK_ACCEPTED   ? "OK"
                : v == WK_CHECK_REJECTED ? WK_ST_WRONG_ANSWER
                : v == WK_CHECK_PARTIAL  ? WK_ST_PARTIAL
                                         : WK_ST_CHECKER_ERROR;
    g->checker_message = msg[0] ? msg : NULL;
    return 0;
}

/* The file the interactor left as tout (empty when it wrote none). */
static const sbx_file *tout_of(const sbx_collect *c)
{
    static const sbx_file none = { "tout", "", 0, false };
    return c->nfiles ? &c->files[0] : &none;
}

/* A test against the interactor (in *ibox), whose files `input` (and
 * `answer`) are the test's: its verdict is the test's, or, when it ended
 * OK and there is a checker program, the checker's on what it wrote to
 * tout (Codeforces's way). -1: sandbox error. */
static int interact(sbx_host *host, sbx_box *box, sbx_box **ibox, const wk_grade_plan *p, sbx_spec *s,
                    const q_test *t, size_t keep_max, q_points max, q_graded *g, char *msg, wk_graded *out)
{
    char err[SBX_ERR_LEN];
    if (!*ibox && sbx_box_open(host, ibox, err, sizeof err) < 0)
        return fail_run(out, "interactor's box", err);
    sbx_spec is = p->interactor;
    sbx_file *slot = (sbx_file *)is.files + is.nfiles;
    slot[0] = (sbx_file){ "input", t->stdin_data, t->stdin_len, false };
    is.nfiles++;
    if (t->expected) {
        slot[1] = (sbx_file){ "answer", t->expected, t->expected_len, false };
        is.nfiles++;
    }
    s->stdin_data = NULL;
    s->stdin_len = 0;
    bool judged = p->g->checker == Q_CHECK_PROGRAM || p->g->checker == Q_CHECK_TESTLIB;
    sbx_collect tout = { .max_files = 1, .only = "tout",
                         .max_bytes = is.limits.file_bytes < WK_COLLECT_BYTES ? is.limits.file_bytes
                                                                              : WK_COLLECT_BYTES };
    wk_pair pair;
    int rc = wk_run_pair(box, s, *ibox, &is,
                         &(wk_pair_opts){ .answer = t->expected != NULL, .tout = judged ? &tout : NULL }, &pair);
    if (rc == 0 && p->lang && wk_lang_oom(p->lang, &s->limits, &pair.prog)) {
        pair.prog.status = SBX_MEMORY_LIMIT;
        wk_pair_decide(&pair);
    }
    if (rc < 0) {
        fail(out, t->name, pair.message[0] ? pair.message : "sandbox error");
    } else if (record(g, &pair.prog, keep_max) < 0) {
        rc = fail_run(out, t->name, "out of memory for its output");
    } else {
        g->status = pair.status;
        if (strcmp(pair.status, WK_ST_PARTIAL) == 0) {
            g->score = pair.points < max ? pair.points : max;
            g->status = pair.points < max ? WK_ST_PARTIAL : "OK";
        }
        if (pair.message[0])
            snprintf(msg, WK_CHECK_MSG_LEN, "%s", pair.message);
        else
            wk_first_line(msg, pair.inter.stderr_buf, pair.inter.stderr_len);
        g->checker_message = msg[0] ? msg : NULL;
        if (judged && strcmp(pair.status, "OK") == 0) {
            if (tout.refused[0]) {
                g->status = WK_ST_INTERACTOR_ERROR;
                snprintf(msg, WK_CHECK_MSG_LEN, "interactor's tout: %s", tout.refused);
                g->checker_message = msg;
            } else {
                const sbx_file *f = tout_of(&tout);
                rc = check(host, ibox, p, t, f->data, f->len, max, g, msg, out);
            }
        }
    }
    sbx_collect_free(&tout);
    wk_pair_free(&pair);
    return rc < 0 ? -1 : 0;
}

/* A test alone: the program run, then its output checked. -1: sandbox
 * error. */
static int run_one(sbx_host *host, sbx_box *box, sbx_box **cbox, const wk_grade_plan *p, const sbx_spec *s,
                   const q_test *t, size_t keep_max, q_points max, q_graded *g, char *msg, wk_graded *out)
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
        rc = check(host, cbox, p, t, r.stdout_buf, r.stdout_len, max, g, msg, out);
    sbx_result_free(&r);
    return rc;
}

/* Per test: the checker's message lives beside its record. */
typedef struct test_slot {
    char msg[WK_CHECK_MSG_LEN];
} test_slot;
_Static_assert(WK_SCORE_MSG_LEN <= WK_CHECK_MSG_LEN, "a reason to skip fits a test's message");

static void skip(q_graded *g)
{
    g->status = WK_ST_SKIPPED;
    g->stdout_buf = g->stderr_buf = "";
}

/* The first test, in the job's order, that ran and was not OK. */
static int first_failure(const q_graded *tests, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(tests[i].status, "OK") != 0 && strcmp(tests[i].status, WK_ST_SKIPPED) != 0)
            return (int)i;
    return -1;
}

/* The graded result's scores and groups, once every test has a status;
 * the groups' messages are copied beside them (sc is the grading's). */
static void finish(wk_graded *out, const wk_score *sc)
{
    size_t ng = out->res.ngroups;
    char (*msgs)[WK_SCORE_MSG_LEN] = (void *)(out->groups_ + ng);
    wk_score_finish(sc, out->tests_, out->groups_, &out->res.score, &out->res.max_score);
    for (size_t k = 0; k < ng; k++)
        if (out->groups_[k].message)
            out->groups_[k].message = memcpy(msgs[k], out->groups_[k].message, WK_SCORE_MSG_LEN);
    out->res.groups = ng ? out->groups_ : NULL;
    out->first_failed = first_failure(out->tests_, out->res.ntests);
}

static wk_grade_rc grade_tests(sbx_host *host, sbx_box *box, sbx_box **checker_box, const wk_grade_plan *p,
                               wk_score *sc, wk_graded *out)
{
    const q_grade *g = p->g;
    test_slot *slots = (test_slot *)(void *)(out->tests_ + g->ntests);
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
            finish(out, sc);
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
    int stop_first = -1; /* the job stops on failure: its first failed test */
    uint64_t kept = out->res.compile.stdout_len + out->res.compile.stderr_len;
    for (size_t n = 0; n < g->ntests && rc == WK_GRADED; n++) {
        size_t i = sc->order[n];
        const q_test *t = &g->tests[i];
        q_graded *gt = &out->tests_[i];
        if (wk_score_skip(sc, i, out->tests_, stop_first, slots[i].msg)) {
            skip(gt);
            gt->checker_message = slots[i].msg;
            wk_score_after(sc, i, out->tests_);
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
        size_t share = (size_t)(kept < p->output_max ? p->output_max - kept : 0) / (2 * (g->ntests - n));
        size_t keep_max = p->test_output_max < share ? p->test_output_max : share;
        q_points max = sc->points[i];
        wk_lang_cmd cmd = { .env = NULL };
        char err[SBX_ERR_LEN];
        int trc = 0;
        if (p->lang && wk_lang_command(p->lang, false, &s.limits, p->env, &cmd, err, sizeof err) < 0)
            trc = fail_run(out, t->name, err); /* tried when planned: out of memory */
        s.argv = p->lang ? cmd.argv : s.argv;
        s.env = p->lang ? cmd.env : s.env;
        if (trc == 0)
            trc = p->has_interactor
                      ? interact(host, box, checker_box, p, &s, t, keep_max, max, gt, slots[i].msg, out)
                      : run_one(host, box, checker_box, p, &s, t, keep_max, max, gt, slots[i].msg, out);
        wk_lang_cmd_free(&cmd);
        kept += gt->stdout_len + gt->stderr_len;
        if (trc < 0)
            rc = WK_GRADE_SANDBOX_ERROR;
        if (rc != WK_GRADED)
            break;
        out->cpu_us = gt->cpu_us > out->cpu_us ? gt->cpu_us : out->cpu_us;
        out->wall_us = gt->wall_us > out->wall_us ? gt->wall_us : out->wall_us;
        out->memory_bytes = gt->memory_bytes > out->memory_bytes ? gt->memory_bytes : out->memory_bytes;
        if (strcmp(gt->status, "OK") == 0)
            out->res.passed++;
        else if (stop_first < 0 && g->stop_on_failure)
            stop_first = (int)i;
        wk_score_after(sc, i, out->tests_);
        if (p->on_test)
            p->on_test(p->ctx, i, gt);
    }
    free(files);
    wk_base_files_free(&bases);
    sbx_collect_free(&built);
    if (rc == WK_GRADED) {
        finish(out, sc);
        out->status = out->first_failed < 0 ? "OK" : out->tests_[out->first_failed].status;
    }
    return rc;
}

wk_grade_rc wk_grade(sbx_host *host, sbx_box *box, sbx_box **checker_box, const wk_grade_plan *p, wk_graded *out)
{
    const q_grade *g = p->g;
    memset(out, 0, sizeof *out);
    out->first_failed = -1;
    out->tests_ = calloc(g->ntests, sizeof *out->tests_ + sizeof(test_slot));
    out->groups_ = calloc(g->ngroups + 1, sizeof *out->groups_ + WK_SCORE_MSG_LEN);
    if (!out->tests_ || !out->groups_)
        return fail(out, "grading", "out of memory for the verdicts");
    out->res.tests = out->tests_;
    out->res.ntests = out->res.total = g->ntests;
    out->res.ngroups = g->ngroups;
    out->res.time_factor_milli = p->lang ? p->lang->time_factor_milli : 0;
    for (size_t i = 0; i < g->ntests; i++)
        out->tests_[i].name = g->tests[i].name;
    wk_score sc;
    if (wk_score_init(&sc, g) < 0)
        return fail(out, "grading", "out of memory for the groups");
    wk_grade_rc rc = grade_tests(host, box, checker_box, p, &sc, out);
    wk_score_free(&sc);
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
    free(g->groups_);
    free(g->compile_out_);
    free(g->compile_err_);
    memset(g, 0, sizeof *g);
}
