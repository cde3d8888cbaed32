/* pool.c -- the job threads: each owns a Redis connection and a sandbox
 * box, and loops fetch -> run -> publish until the worker drains.
 *
 * A busy thread's publish brings its next job in the same round trip
 * (q_publish_next, s->next); it fetches on its own only when that found
 * none (then it goes straight to waiting: q_wait_job), the result was
 * not published, or a claim is due. A job brought
 * that way is run even when a drain began meanwhile: it was taken before
 * the drain was seen, as one fetched is.
 *
 * A thread blocks in XREADGROUP at most Q_BLOCK_MAX_MS, so a drain is
 * noticed within two seconds. Stale entries (their worker died: idle longer
 * than --claim-idle-ms) are claimed before new ones, every half claim
 * period, by every thread: each claim is one round trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "worker/common/log.h"
#include "worker/daemon/worker.h"

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Refused credentials are an operator's error that retrying cannot fix:
 * logged at error level, at most once per 10 s for the whole worker,
 * and counted. Other failures are warnings, at most once per second. */
void wk_redis_failed(wk_worker *w, const char *who, const char *err)
{
    bool auth = strstr(err, "WRONGPASS") || strstr(err, "NOAUTH") || strstr(err, "invalid password") ||
                strstr(err, "NOPERM");
    atomic_fetch_add(&w->redis_errors, 1);
    if (auth)
        atomic_fetch_add(&w->redis_auth_errors, 1);
    uint64_t now = now_ms(), every = auth ? 10000 : 1000;
    atomic_ullong *last = auth ? &w->auth_logged_ms : &w->redis_logged_ms;
    unsigned long long then = atomic_load(last);
    if (then && now - then < every)
        return;
    if (!atomic_compare_exchange_strong(last, &then, now))
        return;
    if (auth)
        wk_log(WK_LOG_ERROR, "%s: Redis refused our credentials or rights (check --redis user and password, "
                             "and the ACL), retrying: %s", who, err);
    else
        wk_log(WK_LOG_WARN, "%s: Redis: %s (retrying)", who, err);
}

q_conn *wk_connect(wk_worker *w, const char *client_name)
{
    char err[Q_ERR_LEN];
    q_conn_opts o = { .client_name = client_name, .stop = &w->hard };
    unsigned delay_ms = 100;
    for (int tries = 0;; tries++) {
        q_conn *c = q_conn_open(&w->addr, &o, err, sizeof err);
        if (c)
            return c;
        if (atomic_load(&w->stop))
            return NULL;
        wk_redis_failed(w, client_name, err);
        usleep(delay_ms * 1000);
        delay_ms = delay_ms < 2000 ? delay_ms * 2 : 2000;
    }
}

static void *job_thread(void *arg)
{
    wk_slot *s = arg;
    wk_worker *w = s->w;
    char err[Q_ERR_LEN];
    q_cursor cursor = { "0-0" };
    uint64_t claim_every = w->cfg.claim_idle_ms / 2 > 200 ? w->cfg.claim_idle_ms / 2 : 200, next_claim = 0;
    int block_ms = Q_BLOCK_MAX_MS;
    s->conn = wk_connect(w, s->consumer);
    while (s->conn && !atomic_load(&w->hard) && (s->next.reply || !atomic_load(&w->stop))) {
        q_entry e = { 0 };
        int rc = 0;
        if (s->next.reply) {
            e = s->next;
            memset(&s->next, 0, sizeof s->next);
            rc = 1;
        } else if (now_ms() >= next_claim) {
            rc = q_claim(s->conn, w->cfg.prefix, s->consumer, (long long)w->cfg.claim_idle_ms, &cursor,
                         (size_t)w->cfg.max_job_bytes, &e, err, sizeof err);
            /* After a successful claim, claim again at once: a dead
             * worker's entries come back as fast as threads free up. */
            next_claim = rc == 1 ? 0 : now_ms() + claim_every;
            if (rc == 1) {
                atomic_fetch_add(&w->claims, 1);
                wk_log(WK_LOG_INFO, "claimed entry %s (delivery %lld) from a silent worker", e.id, e.attempt);
            }
        }
        if (rc == 0)
            rc = (s->saw_empty ? q_wait_job : q_fetch)(s->conn, w->cfg.prefix, s->consumer, block_ms,
                                                      (size_t)w->cfg.max_job_bytes, &e, err, sizeof err);
        s->saw_empty = false;
        s->want_next = now_ms() < next_claim;
        if (rc == 1)
            wk_handle(s, &e);
        else if (rc < 0 && !atomic_load(&w->stop))
            wk_redis_failed(w, s->consumer, err);
        q_entry_free(&e);
        atomic_store(&s->reconnects, q_conn_reconnects(s->conn));
        atomic_store(&s->round_trips, q_conn_round_trips(s->conn));
    }
    /* On abort a job brought but not begun stays pending, as the killed
     * ones do, for a claim. */
    q_entry_free(&s->next);
    q_conn_close(s->conn);
    s->conn = NULL;
    atomic_store(&s->running, false);
    return NULL;
}

int wk_pool_start(wk_worker *w, char *err, size_t errlen)
{
    w->slots = calloc(w->cfg.threads, sizeof *w->slots);
    if (!w->slots)
        return snprintf(err, errlen, "out of memory"), -1;
    for (unsigned i = 0; i < w->cfg.threads; i++) {
        wk_slot *s = &w->slots[i];
        s->w = w;
        s->index = i;
        snprintf(s->consumer, sizeof s->consumer, "%.58s/%u", w->cfg.name, i);
        pthread_mutex_init(&s->mu, NULL);
        char serr[SBX_ERR_LEN];
        if (sbx_box_open(w->host, &s->box, serr, sizeof serr) < 0)
            return snprintf(err, errlen, "sandbox slot %u: %s", i, serr), -1;
    }
    for (unsigned i = 0; i < w->cfg.threads; i++) {
        wk_slot *s = &w->slots[i];
        atomic_store(&s->running, true);
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, 256 * 1024);
        int rc = pthread_create(&s->thread, &a, job_thread, s);
        pthread_attr_destroy(&a);
        if (rc != 0) {
            atomic_store(&s->running, false);
            return snprintf(err, errlen, "pthread_create: %s", strerror(rc)), -1;
        }
    }
    return 0;
}

bool wk_pool_running(wk_worker *w)
{
    for (unsigned i = 0; w->slots && i < w->cfg.threads; i++)
        if (atomic_load(&w->slots[i].running))
            return true;
    return false;
}

/* A box opened after the abort began is cancelled by its slot
 * (wk_slot_ibox): with both sides' atomics in one order, either this sees
 * the slot's box or the slot sees w->hard. */
void wk_pool_cancel(wk_worker *w)
{
    for (unsigned i = 0; w->slots && i < w->cfg.threads; i++) {
        sbx_box *ibox = atomic_load(&w->slots[i].ibox);
        if (w->slots[i].box)
            sbx_box_cancel_all(w->slots[i].box);
        if (ibox)
            sbx_box_cancel_all(ibox);
    }
}

sbx_box *wk_slot_ibox(wk_slot *s, char *err, size_t errlen)
{
    sbx_box *b = atomic_load(&s->ibox);
    if (b)
        return b;
    if (sbx_box_open(s->w->host, &b, err, errlen) < 0)
        return NULL;
    atomic_store(&s->ibox, b);
    if (atomic_load(&s->w->hard))
        sbx_box_cancel_all(b);
    return b;
}

void wk_pool_join(wk_worker *w)
{
    for (unsigned i = 0; w->slots && i < w->cfg.threads; i++) {
        wk_slot *s = &w->slots[i];
        if (s->thread)
            pthread_join(s->thread, NULL);
        sbx_box_close(s->box);
        sbx_box_close(atomic_load(&s->ibox));
        pthread_mutex_destroy(&s->mu);
    }
    free(w->slots);
    w->slots = NULL;
}
