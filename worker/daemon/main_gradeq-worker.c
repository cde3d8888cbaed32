/* main_gradeq-worker.c -- the daemon: configuration, start-up checks,
 * signals, shutdown. Only this thread handles signals (the others start
 * with them blocked), and only this file exits.
 *
 * SIGTERM, SIGINT, SIGHUP or SIGQUIT once: drain (take no job, finish and
 * publish the running ones, exit 0). Twice: abort (kill the running
 * sandboxes, acknowledge nothing: their entries go to another worker;
 * exit 1). None of them kills the worker outright: each is taken here.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "worker/engine/compile_cache.h"
#include "worker/daemon/config.h"
#include "worker/common/log.h"
#include "worker/daemon/worker.h"

static wk_worker w;

/* Start-up's connection: like wk_connect, but the wait between tries is a
 * wait for SIGTERM/SIGINT (blocked, and this is the thread that takes
 * them), so a worker that cannot reach Redis still stops when told. */
static q_conn *connect_at_start(const sigset_t *sigs, char *err, size_t errlen)
{
    q_conn_opts o = { .client_name = "setup", .stop = &w.hard };
    long delay_ms = 100;
    for (int tries = 0;; tries++) {
        q_conn *c = q_conn_open(&w.addr, &o, err, errlen);
        if (c)
            return c;
        wk_redis_failed(&w, "start-up", err);
        struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000 };
        int sig = sigtimedwait(sigs, NULL, &ts);
        if (sig > 0) {
            snprintf(err, errlen, "%s before Redis could be reached", strsignal(sig));
            return NULL;
        }
        delay_ms = delay_ms < 2000 ? delay_ms * 2 : 2000;
    }
}

/* The self-tests run in a thread of their own, so that this thread can
 * still take a signal: one ends them (their boxes cancelled) and the
 * start. */
typedef struct check_run {
    char err[512];
    int rc;
    atomic_bool done;
} check_run;

static void *check_thread(void *arg)
{
    check_run *c = arg;
    c->rc = wk_grade_check(&w, c->err, sizeof c->err);
    atomic_store(&c->done, true);
    return NULL;
}

static int check_languages(const sigset_t *sigs, char *err, size_t errlen)
{
    static check_run c;
    pthread_t t;
    if (pthread_create(&t, NULL, check_thread, &c) != 0)
        return snprintf(err, errlen, "cannot start the self-tests' thread"), -1;
    struct timespec tick = { 0, 100 * 1000000 };
    while (!atomic_load(&c.done)) {
        int sig = sigtimedwait(sigs, NULL, &tick);
        if (sig > 0 && !atomic_exchange(&w.check_stop, 1))
            wk_log(WK_LOG_INFO, "%s: stopping the language self-tests", strsignal(sig));
    }
    pthread_join(t, NULL);
    /* A signal taken here is the start's to obey, even when the checks
     * were already done. */
    if (c.rc == 0 && atomic_load(&w.check_stop))
        return snprintf(err, errlen, "stopped during the language self-tests"), -1;
    if (c.rc < 0)
        snprintf(err, errlen, "%s", c.err);
    return c.rc;
}

static int setup(const sigset_t *sigs, char *err, size_t errlen)
{
    if (wk_grade_setup(&w, err, errlen) < 0)
        return -1;
    sbx_host_options ho = { .require_isolation = w.cfg.require_isolation };
    char serr[SBX_HOST_ERR_LEN];
    if (wk_langs_host_open(&w.langs, &ho, &w.host, serr, sizeof serr) < 0)
        return snprintf(err, errlen, "sandbox: %s (--require-isolation no runs without it)", serr), -1;
    wk_log(WK_LOG_INFO, "sandbox: %s", sbx_host_describe(w.host));
    if (check_languages(sigs, err, errlen) < 0)
        return -1;
    q_conn *c = connect_at_start(sigs, err, errlen);
    if (!c)
        return -1;
    int rc = q_group_ensure(c, w.cfg.prefix, err, errlen);
    q_conn_close(c);
    return rc;
}

int main(int argc, char **argv)
{
    char err[SBX_HOST_ERR_LEN + 128];
    w.metrics_fd = -1;
    int rc = wk_config_load(&w.cfg, argc, argv, err, sizeof err);
    /* Configuration errors exit 2: the unit's RestartPreventExitStatus. */
    if (rc == 0 && q_redis_url_parse(w.cfg.redis, &w.addr, err, sizeof err) < 0)
        rc = -1;
    if (rc < 0) {
        fprintf(stderr, "gradeq-worker: %s\n", err);
        return 2;
    }
    if (rc > 0) { /* --help or --version printed */
        if (fflush(stdout) == 0 && !ferror(stdout))
            return 0;
        fprintf(stderr, "gradeq-worker: its output could not be written (stdout: %s)\n", strerror(errno));
        return 1;
    }
    wk_log_setup(w.cfg.log_json, w.cfg.log_level);
    /* Outputs of up to the caps pass through here as a few large buffers:
     * mmap them, so that each goes back to the kernel when freed instead of
     * staying in a thread's heap (glibc would otherwise raise this
     * threshold after the first large free). */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    /* Signals are this thread's alone; a dropped Redis socket must be an
     * error return, not SIGPIPE. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigaddset(&sigs, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    w.started = time(NULL);
    if (setup(&sigs, err, sizeof err) < 0 || wk_pool_start(&w, err, sizeof err) < 0 || wk_heartbeat_start(&w) < 0) {
        wk_log(WK_LOG_ERROR, "cannot start: %s", err);
        atomic_store(&w.stop, 1);
        atomic_store(&w.hard, 1);
        wk_pool_cancel(&w);
        wk_pool_join(&w);
        sbx_host_close(w.host);
        return 1;
    }
    /* Only now, the slots' boxes open, does the line say what jobs get:
     * the first box's zygote is what found whether namespaces hold. */
    wk_log(WK_LOG_INFO, "sandbox: %s", sbx_host_describe(w.host));
    if (w.cfg.metrics_addr[0] && wk_metrics_start(&w, w.cfg.metrics_addr, err, sizeof err) < 0)
        wk_log(WK_LOG_ERROR, "metrics: %s (jobs still run)", err);
    char where[300];
    if (w.addr.is_unix)
        snprintf(where, sizeof where, "unix:%s db %d", w.addr.path, w.addr.db);
    else
        snprintf(where, sizeof where, "%s:%d db %d", w.addr.host, w.addr.port, w.addr.db);
    /* Never the URL itself: it may hold the password. */
    wk_log(WK_LOG_INFO, "worker %s: %u threads on Redis %s%s%s, prefix %s%s%s", w.cfg.name, w.cfg.threads, where,
           w.addr.user[0] ? " as " : "", w.addr.user, w.cfg.prefix, w.metrics_fd >= 0 ? ", metrics on " : "",
           w.metrics_fd >= 0 ? w.cfg.metrics_addr : "");
    struct timespec tick = { 0, 200 * 1000000 };
    while (wk_pool_running(&w)) {
        int sig = sigtimedwait(&sigs, NULL, &tick);
        if (sig < 0)
            continue;
        if (!atomic_exchange(&w.stop, 1)) {
            wk_log(WK_LOG_INFO, "%s: draining (%u running); again to abort", strsignal(sig), atomic_load(&w.busy));
        } else if (!atomic_exchange(&w.hard, 1)) {
            wk_log(WK_LOG_WARN, "%s: aborting, running jobs are left to other workers", strsignal(sig));
            wk_pool_cancel(&w);
        }
    }
    /* The heartbeat and the metrics read the slots: they go before the
     * slots are freed. */
    wk_heartbeat_stop(&w);
    wk_metrics_stop(&w);
    wk_pool_join(&w);
    sbx_host_close(w.host);
    wk_langs_free(&w.langs);
    wk_cc_free(w.cache);
    wk_log(WK_LOG_INFO, "worker %s stopped after %llu jobs", w.cfg.name, (unsigned long long)atomic_load(&w.done));
    return atomic_load(&w.hard) ? 1 : 0;
}
