/* grade_job.c -- a grading job in the worker: the same rules as a single
 * run (handle.c): a bad plan is BAD_JOB; a sandbox failure in any of its
 * runs leaves the entry pending for another delivery; the result is
 * published fenced, once. The heartbeat keeps the entry's lease alive for
 * the whole grading (the slot's entry is set around it). A drain stops it
 * between two tests (a grading may take far longer than the drain's
 * --max-wall-ms bound) and hands the entry back uncounted (q_release):
 * another worker grades it whole, at once, and a job drained any number of
 * times is never dead-lettered for it (a grading is never published half
 * done).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "worker/engine/compile_cache.h"
#include "worker/common/convert.h"
#include "worker/engine/grade_plan.h"
#include "worker/common/log.h"
#include "worker/common/text.h"
#include "worker/daemon/worker.h"
#include "worker/lang/selftest.h"
#include "worker/problem/problem_job.h"

int wk_grade_setup(wk_worker *w, char *err, size_t errlen)
{
    const char *path = w->cfg.languages[0] ? w->cfg.languages : NULL;
    char why[512];
    w->cache = wk_cc_new(w->cfg.compile_cache);
    if (!w->cache)
        return snprintf(err, errlen, "compile cache: out of memory"), -1;
    if (wk_langs_load(path, &w->langs, why, sizeof why) < 0) {
        if (path || w->cfg.languages_required[0])
            return snprintf(err, errlen, "languages: %s", why), -1;
        wk_log(WK_LOG_INFO, "grading: no language presets (%s)", why);
        return 0;
    }
    wk_log(WK_LOG_INFO, "grading: %zu language presets from %s", w->langs.n, w->langs.path);
    return 0;
}

static void on_checked(void *ctx, const wk_lang *l)
{
    (void)ctx;
    if (l->available)
        wk_log(WK_LOG_INFO, "language %s: %s%s%s (%.1f s)", l->name, l->version[0] ? l->version : "version unknown",
               l->checked ? ", self-test passed" : "", l->selftest_len ? "" : ", no self-test", l->check_ms / 1000.0);
}

/* Whether name is in the --languages-required list (names separated by
 * commas or blanks; "all" names every preset). */
static bool required(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ", \t");
        if ((k == n && strncmp(p, name, n) == 0) || (k == 3 && strncmp(p, "all", 3) == 0))
            return true;
        p += k;
        p += strspn(p, ", \t");
    }
    return false;
}

/* The registry's languages field: {"name":"version",...} of the presets
 * that work (names and versions are the operator's and the runtimes':
 * escaped). 64 presets of 64-byte names and 48-byte versions fit. */
static void registry_field(wk_worker *w)
{
    FILE *f = fmemopen(w->lang_json, sizeof w->lang_json, "w");
    if (!f)
        return;
    fputc('{', f);
    for (size_t i = 0, k = 0; i < w->langs.n; i++) {
        const wk_lang *l = &w->langs.v[i];
        if (!l->available)
            continue;
        fputs(k++ ? "," : "", f);
        wk_json_string(f, l->name);
        fputc(':', f);
        wk_json_string(f, l->version);
    }
    fputc('}', f);
    bool full = ferror(f) || ftell(f) >= (long)sizeof w->lang_json;
    fclose(f);
    if (full) {
        wk_log(WK_LOG_WARN, "grading: the working presets' names and versions do not fit the registry; it says {}");
        snprintf(w->lang_json, sizeof w->lang_json, "{}");
    }
}

int wk_grade_check(wk_worker *w, char *err, size_t errlen)
{
    for (const char *p = w->cfg.languages_required; *p;) {
        size_t k = strcspn(p, ", \t");
        char name[Q_LANGUAGE_MAX + 1];
        snprintf(name, sizeof name, "%.*s", (int)(k < sizeof name ? k : sizeof name - 1), p);
        if (k && strcmp(name, "all") != 0 && !wk_lang_find(&w->langs, name))
            return snprintf(err, errlen, "--languages-required: no preset %s in %s", name, w->langs.path), -1;
        p += k;
        p += strspn(p, ", \t");
    }
    wk_check_opts o = { .parallel = w->cfg.threads, .deadline_ms = w->cfg.self_test_s * 1000,
                        .selftest = w->cfg.self_test, .max = &w->cfg.max, .on_done = on_checked,
                        .stop = &w->check_stop };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (w->langs.n && wk_langs_check(&w->langs, w->host, &o, err, errlen) < 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (atomic_load(&w->check_stop))
        return snprintf(err, errlen, "stopped during the language self-tests"), -1;
    size_t ok = 0;
    for (size_t i = 0; i < w->langs.n; i++) {
        const wk_lang *l = &w->langs.v[i];
        ok += l->available;
        if (!l->available)
            wk_log(WK_LOG_WARN, "language %s refused: %s", l->name, l->why);
        if (!l->available && required(w->cfg.languages_required, l->name))
            return snprintf(err, errlen, "language %s is required (--languages-required) but refused: %s", l->name,
                            l->why), -1;
    }
    if (w->langs.n)
        wk_log(WK_LOG_INFO, "grading: %zu of %zu language presets work (checked in %.1f s)", ok, w->langs.n,
               (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    registry_field(w);
    return 0;
}

static void observe(wk_worker *w, const wk_graded *g)
{
    int k = wk_grade_status_index(g->status);
    if (k >= 0)
        atomic_fetch_add(&w->metrics.grade_jobs[k], 1);
    for (size_t i = 0; i < g->res.ntests; i++) {
        k = wk_grade_status_index(g->res.tests[i].status);
        if (k >= 0)
            atomic_fetch_add(&w->metrics.grade_tests[k], 1);
        wk_hist_observe(&w->metrics.duration, g->res.tests[i].wall_us);
    }
}

/* A job that names a problem: the problem read and its code run in the
 * slot's box first. 0 with *jp the job to grade; 1 answered BAD_JOB; -1 a
 * sandbox error, left for redelivery. */
static int problem_job(wk_slot *s, const q_entry *e, q_job *job, wk_problem_run *r, q_job **jp)
{
    wk_worker *w = s->w;
    char err[Q_ERR_LEN];
    wk_prepare_env env = { .box = s->box, .langs = w->langs.n ? &w->langs : NULL, .cache = w->cache,
                           .max = w->cfg.max };
    wk_slot_begin(s, e);
    int rc = wk_problem_run_open(job, w->cfg.problems, w->cfg.allow_hardlinks, &env, r, err, sizeof err);
    wk_slot_end(s);
    if (rc == 0) {
        *jp = &r->j;
        return 0;
    }
    if (rc < 0) {
        atomic_fetch_add(&w->metrics.sandbox_errors, 1);
        wk_log(WK_LOG_ERROR, "job %s (entry %s): sandbox error while preparing its problem, left for redelivery: %s",
               job->id, e->id, err);
        return -1;
    }
    wk_log(WK_LOG_INFO, "job %s: bad problem: %s", job->id, err);
    if (wk_answer(s, e, job->id, "BAD_JOB", err, NULL))
        wk_count(w, WK_BAD_JOB);
    return 1;
}

void wk_grade_job(wk_slot *s, const q_entry *e, q_job *job)
{
    wk_worker *w = s->w;
    char err[Q_ERR_LEN];
    wk_grade_plan plan;
    wk_plan_store st = { 0 };
    wk_problem_run pr = { 0 };
    if (wk_job_has_problem(job) && problem_job(s, e, job, &pr, &job) != 0) {
        wk_problem_run_free(&pr);
        return;
    }
    if (wk_grade_plan_from_job(job, w->langs.n ? &w->langs : NULL, &w->cfg.max, (size_t)w->cfg.test_output_max,
                               wk_output_budget(w->cfg.max_result_bytes, true),
                               &plan, &st, err, sizeof err) < 0) {
        wk_log(WK_LOG_INFO, "job %s: bad job: %s", job->id, err);
        if (wk_answer(s, e, job->id, "BAD_JOB", err, NULL))
            wk_count(w, WK_BAD_JOB);
        wk_plan_store_free(&st);
        wk_problem_run_free(&pr);
        return;
    }
    plan.stop = &w->stop;
    plan.cache = w->cache;
    wk_slot_begin(s, e);
    /* The checker's or interactor's box is the slot's own, opened here so
     * that an abort reaches it (wk_slot_ibox); the grading never opens one. */
    char serr[SBX_ERR_LEN];
    sbx_box *second = NULL;
    if ((plan.has_interactor || plan.g->checker == Q_CHECK_PROGRAM) && !(second = wk_slot_ibox(s, serr, sizeof serr))) {
        wk_slot_end(s);
        atomic_fetch_add(&w->metrics.sandbox_errors, 1);
        wk_log(WK_LOG_ERROR, "job %s (entry %s, attempt %lld): sandbox error while grading, left for redelivery: "
                             "the checker's or interactor's box: %s", job->id, e->id, e->attempt, serr);
        wk_plan_store_free(&st);
        return;
    }
    wk_graded out;
    wk_grade_rc rc = wk_grade(w->host, s->box, &second, &plan, &out);
    wk_slot_end(s);
    if (rc == WK_GRADE_SANDBOX_ERROR) {
        atomic_fetch_add(&w->metrics.sandbox_errors, 1);
        wk_log(atomic_load(&w->hard) ? WK_LOG_INFO : WK_LOG_ERROR,
               "job %s (entry %s, attempt %lld): sandbox error while grading, left for redelivery: %s", job->id,
               e->id, e->attempt, out.error);
    } else if (rc == WK_GRADE_STOPPED) {
        int r = q_release(s->conn, w->cfg.prefix, s->consumer, e->id, (long long)w->cfg.claim_idle_ms, err,
                          sizeof err);
        if (r == 1)
            wk_log(WK_LOG_INFO, "job %s (entry %s): grading stopped by the drain, handed back to another worker "
                                "(this delivery not counted)", job->id, e->id);
        else
            wk_log(WK_LOG_WARN, "job %s (entry %s): grading stopped by the drain, left pending for another worker "
                                "after --claim-idle-ms: %s", job->id, e->id,
                   r == 0 ? "another worker took it meanwhile" : err);
    } else if (atomic_load(&s->lost)) {
        wk_log(WK_LOG_WARN, "job %s: another worker took entry %s while it ran; result dropped", job->id, e->id);
    } else {
        const char *names[WK_ISO_MAX];
        q_result res;
        wk_graded_to_wire(&out, job->id, w->cfg.name, (uint64_t)e->attempt, sbx_host_isolation(w->host), names,
                          &res);
        wk_log(WK_LOG_DEBUG, "job %s: %s, %llu/%llu passed", job->id, res.status,
               (unsigned long long)out.res.passed, (unsigned long long)out.res.total);
        if (wk_deliver(s, e, &res, NULL)) {
            observe(w, &out);
            atomic_fetch_add(&w->done, 1);
        }
    }
    wk_graded_free(&out);
    wk_plan_store_free(&st);
    wk_problem_run_free(&pr);
}
