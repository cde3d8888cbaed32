/* heartbeat.c -- one thread with its own connection keeps the worker
 * visible (P:worker:<name>, a hash with a TTL) and keeps each running job's
 * entry fresh, so that no live worker's job is ever claimed as stale.
 *
 * Entries are touched every third of --claim-idle-ms: a job's entry can
 * only go idle past the claim threshold if the touch fails three times in a
 * row, which is what a dead or cut-off worker looks like. A touch that finds
 * the entry taken marks the slot lost, and its result is dropped.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "worker/common/log.h"
#include "worker/daemon/worker.h"

#define BEAT_MS 2000

bool wk_slot_mark_lost(wk_slot *s, const char *entry)
{
    pthread_mutex_lock(&s->mu);
    bool same = strcmp(s->entry, entry) == 0;
    if (same)
        atomic_store(&s->lost, true);
    pthread_mutex_unlock(&s->mu);
    if (same)
        wk_log(WK_LOG_WARN, "entry %s was taken from %s while it ran", entry, s->consumer);
    return same;
}

/* Every running entry in one round trip per Q_TOUCH_MAX slots. */
static void touch_running(wk_worker *w, q_conn *c)
{
    char err[Q_ERR_LEN], entries[Q_TOUCH_MAX][Q_ID_LEN];
    const char *ids[Q_TOUCH_MAX], *consumers[Q_TOUCH_MAX];
    wk_slot *slots[Q_TOUCH_MAX];
    int owned[Q_TOUCH_MAX];
    for (unsigned i = 0; i < w->cfg.threads;) {
        size_t n = 0;
        for (; i < w->cfg.threads && n < Q_TOUCH_MAX; i++) {
            wk_slot *s = &w->slots[i];
            pthread_mutex_lock(&s->mu);
            snprintf(entries[n], sizeof entries[n], "%s", s->entry);
            pthread_mutex_unlock(&s->mu);
            if (!entries[n][0])
                continue;
            ids[n] = entries[n];
            consumers[n] = s->consumer;
            slots[n++] = s;
        }
        if (!n)
            continue;
        if (q_touch_many(c, w->cfg.prefix, consumers, ids, n, owned, err, sizeof err) < 0) {
            wk_redis_failed(w, "heartbeat", err);
            continue;
        }
        for (size_t k = 0; k < n; k++)
            if (!owned[k])
                wk_slot_mark_lost(slots[k], ids[k]);
    }
}

/* pid: as the host knows it, 0 where that cannot be known (a container's
 * PID namespace): a number an operator on the host may act on. */
static void beat(wk_worker *w, q_conn *c, long pid)
{
    char err[Q_ERR_LEN];
    q_worker_info info = { .pid = pid, .threads = w->cfg.threads, .busy = atomic_load(&w->busy),
                           .jobs_done = (long long)atomic_load(&w->done), .started_at = w->started,
                           .last_seen = time(NULL) };
    snprintf(info.name, sizeof info.name, "%s", w->cfg.name);
    struct utsname u;
    snprintf(info.host, sizeof info.host, "%s", uname(&u) == 0 ? u.nodename : "?");
    snprintf(info.version, sizeof info.version, "%s", WK_VERSION);
    snprintf(info.languages, sizeof info.languages, "%s", w->lang_json);
    if (q_worker_beat(c, w->cfg.prefix, &info, 3 * BEAT_MS / 1000 + 5, err, sizeof err) < 0)
        wk_redis_failed(w, "heartbeat", err);
}

static void *heartbeat_main(void *arg)
{
    wk_worker *w = arg;
    q_conn *c = wk_connect(w, "heartbeat");
    uint64_t touch_ms = w->cfg.claim_idle_ms / 3, since_beat = BEAT_MS;
    char tag[48];
    long pid = sbx_self_id(tag, sizeof tag);
    pthread_mutex_lock(&w->hb_mu);
    while (c && !atomic_load(&w->hard) && wk_pool_running(w)) {
        pthread_mutex_unlock(&w->hb_mu);
        touch_running(w, c);
        if (since_beat >= BEAT_MS) {
            beat(w, c, pid);
            since_beat = 0;
        }
        uint64_t step = touch_ms < BEAT_MS ? touch_ms : BEAT_MS;
        since_beat += step;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += (time_t)(step / 1000);
        ts.tv_nsec += (long)(step % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_mutex_lock(&w->hb_mu);
        pthread_cond_timedwait(&w->hb_cv, &w->hb_mu, &ts);
    }
    pthread_mutex_unlock(&w->hb_mu);
    char err[Q_ERR_LEN];
    if (c && q_worker_gone(c, w->cfg.prefix, w->cfg.name, err, sizeof err) < 0)
        wk_log(WK_LOG_WARN, "heartbeat: %s", err);
    q_conn_close(c);
    return NULL;
}

int wk_heartbeat_start(wk_worker *w)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->hb_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&w->hb_mu, NULL);
    int rc = pthread_create(&w->heartbeat, NULL, heartbeat_main, w);
    return rc == 0 ? 0 : (errno = rc, -1);
}

void wk_heartbeat_stop(wk_worker *w)
{
    pthread_mutex_lock(&w->hb_mu);
    pthread_cond_signal(&w->hb_cv);
    pthread_mutex_unlock(&w->hb_mu);
    pthread_join(w->heartbeat, NULL);
    pthread_cond_destroy(&w->hb_cv);
    pthread_mutex_destroy(&w->hb_mu);
}
