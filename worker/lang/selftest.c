/* selftest.c -- each preset proven in a real box (selftest.h).
 *
 * DESIGN. `parallel` threads, each with a box of its own, take presets
 * one at a time. For each: the version command, then the self-test as a
 * grading job of one test through the engine (the same plan, limits,
 * placeholders, environment and verdicts a submission gets), so what
 * passes here is what jobs will run. The calling thread waits for the
 * deadline (or a stop): past it, every box still running is cancelled (its
 * preset "timed out") and presets not yet started are refused as
 * unchecked.
 *
 * THREADS. Each preset is written by the one thread that took it (the
 * counter `next` hands each out once); `running` and `over` are shared
 * under `mu`; the caller reads the presets after joining every thread.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "queue/result.h"
#include "worker/common/convert.h"
#include "worker/engine/engine.h"
#include "worker/engine/grade_plan.h"
#include "worker/lang/apply.h"
#include "worker/lang/selftest.h"

#define THREADS_MAX 64

typedef struct checker {
    wk_langs *langs;
    sbx_host *host;
    const wk_check_opts *o;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next;                      /* the next preset to take */
    unsigned live;                    /* threads not yet finished */
    bool over;                        /* the deadline passed, or a stop came */
    bool stopped;                     /* it was a stop */
    sbx_box *running[THREADS_MAX];    /* each thread's box while it runs */
    char err[SBX_ERR_LEN];            /* a box that would not open */
    unsigned opened;                  /* boxes that did */
} checker;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void wk_version_of(const char *out, size_t len, char *version, size_t size)
{
    size_t first = len, flen = 0;
    version[0] = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)out[i]) || (i && isdigit((unsigned char)out[i - 1])))
            continue;
        size_t k = i, dots = 0;
        while (k < len && (isdigit((unsigned char)out[k]) || (out[k] == '.' && k + 1 < len &&
                                                              isdigit((unsigned char)out[k + 1]))))
            dots += out[k++] == '.';
        if (dots) {
            first = i;
            flen = k - i;
            break;
        }
        if (first == len) {
            first = i;
            flen = k - i;
        }
    }
    if (first < len)
        snprintf(version, size, "%.*s", (int)(flen < size ? flen : size - 1), out + first);
}

/* The first line of buf, printable ASCII only, into out. */
static void first_line(const char *buf, size_t len, char *out, size_t size)
{
    size_t n = 0, i = 0;
    while (i < len && (buf[i] == '\n' || buf[i] == '\r' || buf[i] == ' '))
        i++;
    for (; i < len && buf[i] != '\n' && n + 1 < size; i++)
        out[n++] = buf[i] >= ' ' && buf[i] < 127 ? buf[i] : '?';
    out[n] = 0;
}

static void version(sbx_box *box, wk_lang *l)
{
    if (!l->version_argv[0])
        return;
    sbx_limits lim;
    wk_compile_limits_default(&lim);
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if (l->compile_given & (1u << i))
            ((uint64_t *)(void *)&lim)[i] = l->compile_limits[i];
    wk_lang_cmd cmd;
    char err[SBX_ERR_LEN];
    if (wk_lang_command(l, l->has_compile, &lim, NULL, &cmd, err, sizeof err) == 0) {
        sbx_spec s = { .argv = (const char *const *)l->version_argv, .env = cmd.env, .limits = lim };
        sbx_result r;
        sbx_run(box, &s, &r);
        if (r.status == SBX_OK || r.status == SBX_RUNTIME_ERROR) {
            wk_version_of(r.stdout_buf, r.stdout_len, l->version, sizeof l->version);
            if (!l->version[0])
                wk_version_of(r.stderr_buf, r.stderr_len, l->version, sizeof l->version);
        }
        sbx_result_free(&r);
    }
    wk_lang_cmd_free(&cmd);
}

/* Why a self-test cut short or never run failed. */
static void ran_out(checker *c, char *why, size_t size)
{
    pthread_mutex_lock(&c->mu);
    bool stopped = c->stopped;
    pthread_mutex_unlock(&c->mu);
    if (stopped)
        snprintf(why, size, "self-test not finished: stopped");
    else
        snprintf(why, size, "self-test timed out (the self-tests' %llu s ran out)",
                 (unsigned long long)(c->o->deadline_ms / 1000));
}

/* Why the self-test's grading refused the preset, "" when it passed. */
static void verdict(checker *c, const wk_graded *g, wk_grade_rc rc, char *why, size_t size)
{
    char line[96] = "";
    const q_graded *t = &g->res.tests[0];
    why[0] = 0;
    if (rc != WK_GRADED) {
        bool cancelled = strstr(g->error, "cancelled") != NULL;
        pthread_mutex_lock(&c->mu);
        bool over = c->over;
        pthread_mutex_unlock(&c->mu);
        if (cancelled && over)
            ran_out(c, why, size);
        else
            snprintf(why, size, "self-test: sandbox error: %.100s", g->error);
    } else if (strcmp(g->status, WK_ST_COMPILE_ERROR) == 0) {
        const q_graded *k = &g->res.compile;
        first_line(k->stderr_len ? k->stderr_buf : k->stdout_buf, k->stderr_len ? k->stderr_len : k->stdout_len, line,
                   sizeof line);
        snprintf(why, size, "self-test: compile failed (%s%s%s)", k->status, line[0] ? ": " : "", line);
    } else if (strcmp(t->status, "OK") == 0) {
        return;
    } else if (strcmp(t->status, WK_ST_WRONG_ANSWER) == 0) {
        first_line(t->stdout_buf, t->stdout_len, line, sizeof line);
        snprintf(why, size, "self-test: wrong output \"%s\"", line);
    } else if (strcmp(t->status, "TIME_LIMIT") == 0 || strcmp(t->status, "WALL_TIME_LIMIT") == 0) {
        snprintf(why, size, "self-test timed out (%s)", t->status);
    } else if (strcmp(t->status, "EXEC_ERROR") == 0) {
        snprintf(why, size, "self-test: exec refused (EXEC_ERROR)");
    } else {
        first_line(t->stderr_buf, t->stderr_len, line, sizeof line);
        snprintf(why, size, "self-test: %s%s%s", t->status, line[0] ? ": " : "", line);
    }
}

static void selftest(checker *c, sbx_box *box, wk_lang *l)
{
    char why[sizeof l->why] = "", err[Q_ERR_LEN];
    q_test test = { .name = "self-test", .stdin_data = WK_SELFTEST_INPUT, .stdin_len = strlen(WK_SELFTEST_INPUT),
                    .expected = WK_SELFTEST_INPUT, .expected_len = strlen(WK_SELFTEST_INPUT) };
    q_grade g = { .tests = &test, .ntests = 1, .checker = Q_CHECK_LINES, .language = l->name,
                  .source = l->selftest, .source_len = l->selftest_len };
    q_job j = { .grade = &g };
    wk_grade_plan plan;
    wk_plan_store st;
    sbx_limits max;
    wk_limits_most(&max);
    if (wk_grade_plan_from_job(&j, c->langs, c->o->max ? c->o->max : &max, 4096,
                               wk_output_budget(Q_RESULT_BYTES_MAX, true), &plan, &st, err, sizeof err) < 0) {
        snprintf(why, sizeof why, "self-test: %.120s", err);
    } else {
        sbx_box *cbox = NULL;
        wk_graded out;
        wk_grade_rc rc = wk_grade(c->host, box, &cbox, &plan, &out);
        verdict(c, &out, rc, why, sizeof why);
        wk_graded_free(&out);
        sbx_box_close(cbox);
    }
    wk_plan_store_free(&st);
    l->checked = true;
    if (why[0]) {
        l->available = false;
        memcpy(l->why, why, sizeof l->why);
    }
}

typedef struct worker_arg {
    checker *c;
    unsigned index;
} worker_arg;

static void *work(void *arg)
{
    worker_arg *a = arg;
    checker *c = a->c;
    sbx_box *box = NULL;
    char err[SBX_ERR_LEN];
    bool opened = sbx_box_open(c->host, &box, err, sizeof err) == 0;
    pthread_mutex_lock(&c->mu);
    if (opened)
        c->opened++;
    else
        snprintf(c->err, sizeof c->err, "%s", err);
    pthread_mutex_unlock(&c->mu);
    for (;;) {
        pthread_mutex_lock(&c->mu);
        size_t i = c->next < c->langs->n && !c->over && opened ? c->next++ : c->langs->n;
        if (i < c->langs->n)
            c->running[a->index] = box;
        pthread_mutex_unlock(&c->mu);
        if (i == c->langs->n)
            break;
        wk_lang *l = &c->langs->v[i];
        if (l->available && (!c->o->only || c->o->only[i])) {
            uint64_t t0 = now_ms();
            version(box, l);
            pthread_mutex_lock(&c->mu);
            bool over = c->over;
            pthread_mutex_unlock(&c->mu);
            if (c->o->selftest && l->selftest_len && !over)
                selftest(c, box, l);
            else if (c->o->selftest && l->selftest_len) {
                l->available = false;
                ran_out(c, l->why, sizeof l->why);
            }
            l->check_ms = now_ms() - t0;
            if (c->o->on_done) {
                pthread_mutex_lock(&c->mu);
                c->o->on_done(c->o->ctx, l);
                pthread_mutex_unlock(&c->mu);
            }
        }
        pthread_mutex_lock(&c->mu);
        c->running[a->index] = NULL;
        pthread_mutex_unlock(&c->mu);
    }
    sbx_box_close(box);
    pthread_mutex_lock(&c->mu);
    c->live--;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* Waits for the threads, or for the deadline or a stop request (looked at
 * every STOP_POLL_MS): then ends every run of each box in use, the one in
 * progress and those a self-test would start after it. */
#define STOP_POLL_MS 100
static void wait_all(checker *c)
{
    uint64_t end = c->o->deadline_ms ? now_ms() + c->o->deadline_ms : UINT64_MAX;
    pthread_mutex_lock(&c->mu);
    while (c->live) {
        uint64_t now = now_ms();
        if (!c->over && (now >= end || (c->o->stop && atomic_load(c->o->stop)))) {
            c->over = true;
            c->stopped = now < end;
        }
        for (unsigned i = 0; c->over && i < THREADS_MAX; i++)
            if (c->running[i])
                sbx_box_cancel_all(c->running[i]);
        uint64_t left = c->over || end - now >= STOP_POLL_MS ? STOP_POLL_MS : end - now;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)left * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    pthread_mutex_unlock(&c->mu);
}

int wk_langs_check(wk_langs *l, sbx_host *host, const wk_check_opts *o, char *err, size_t errlen)
{
    checker c = { .langs = l, .host = host, .o = o };
    unsigned n = o->parallel ? o->parallel : 1;
    if (n > THREADS_MAX)
        n = THREADS_MAX;
    if (n > l->n)
        n = (unsigned)l->n;
    if (!n)
        return 0;
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    pthread_t t[THREADS_MAX];
    worker_arg args[THREADS_MAX];
    unsigned started = 0;
    for (unsigned i = 0; i < n; i++) {
        args[i] = (worker_arg){ &c, i };
        pthread_mutex_lock(&c.mu);
        c.live++;
        pthread_mutex_unlock(&c.mu);
        if (pthread_create(&t[i], NULL, work, &args[i]) != 0) {
            pthread_mutex_lock(&c.mu);
            c.live--;
            pthread_mutex_unlock(&c.mu);
            break;
        }
        started++;
    }
    wait_all(&c);
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    int rc = 0;
    if (!c.opened) {
        snprintf(err, errlen, "no sandbox box for the self-tests: %s", c.err[0] ? c.err : "the threads could not start");
        rc = -1;
    }
    for (size_t i = c.next; rc == 0 && i < l->n; i++)
        if (l->v[i].available && o->selftest && l->v[i].selftest_len && (!o->only || o->only[i])) {
            l->v[i].available = false;
            ran_out(&c, l->v[i].why, sizeof l->v[i].why);
        }
    pthread_cond_destroy(&c.cv);
    pthread_mutex_destroy(&c.mu);
    return rc;
}
