/* handle.c -- one delivered entry, from its bytes to its published result.
 *
 * RULES (docs/protocol.md).
 * - A verdict is final: whatever the program did, its result is published
 *   and the entry acknowledged in the same script, once.
 * - A bad job is answered BAD_JOB under its id when the id can be read,
 *   else dead-lettered with the raw bytes; never retried.
 * - A SANDBOX_ERROR is not the program's fault: the entry is left pending,
 *   and another delivery (here or on another worker) tries again, up to
 *   --max-deliveries; then it is dead-lettered with a SANDBOX_ERROR result.
 * - Publishing is fenced: a worker that lost the entry publishes nothing.
 * - While Redis is away the result waits in memory and publishing retries
 *   (q_conn backs off between connects); nothing is lost but on abort.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <msgpack.h>

#include "queue/job.h"
#include "queue/result.h"
#include "worker/common/convert.h"
#include "worker/engine/interact.h"
#include "worker/common/log.h"
#include "worker/daemon/worker.h"

static void count(wk_worker *w, int status)
{
    atomic_fetch_add(&w->by_status[status], 1);
    atomic_fetch_add(&w->done, 1);
}

static int encode(const q_result *res, msgpack_sbuffer *buf)
{
    char err[Q_ERR_LEN];
    msgpack_sbuffer_init(buf);
    if (q_result_encode(res, buf, err, sizeof err) < 0) {
        wk_log(WK_LOG_ERROR, "job %s: cannot encode its result: %s", res->id, err);
        msgpack_sbuffer_destroy(buf);
        return -1;
    }
    return 0;
}

/* Publishes a result (or dead-letters, when dead_reason) until Redis takes
 * it, the entry turns out lost, or the worker aborts. True when this call
 * published it. The caller keeps d's bytes alive and frees them after. */
static bool send_result(wk_slot *s, const q_entry *e, q_delivery *d, const char *dead_reason)
{
    wk_worker *w = s->w;
    char err[Q_ERR_LEN];
    d->ttl_s = w->cfg.result_lists ? (long)w->cfg.result_ttl_s : 0;
    d->maxlen = (long)w->cfg.results_maxlen;
    q_dead_letter dl = { dead_reason, (long)w->cfg.dead_maxlen, (size_t)w->cfg.max_job_bytes, d };
    bool retried = false, published = false, held = false;
    for (;; retried = true) {
        int rc = dead_reason ? q_dead(s->conn, w->cfg.prefix, s->consumer, e->id, &dl, err, sizeof err)
                             : q_publish(s->conn, w->cfg.prefix, s->consumer, e->id, d, err, sizeof err);
        if (rc == 1) {
            published = true;
            if (dead_reason)
                atomic_fetch_add(&w->dead_letters, 1);
            break;
        }
        if (rc == 0) {
            wk_log(WK_LOG_WARN, "job %s (entry %s): %s", d->job_id, e->id,
                   retried ? "no longer ours after Redis came back: published by the failed try, or "
                             "taken by another worker meanwhile (its result stands)"
                           : "taken by another worker, result dropped");
            break;
        }
        if (!held)
            atomic_fetch_add(&w->held_results, 1);
        held = true;
        if (atomic_load(&w->hard)) {
            atomic_fetch_add(&w->redis_errors, 1);
            wk_log(WK_LOG_WARN, "job %s: not published (aborting): %s", d->job_id, err);
            break;
        }
        char who[Q_ID_MAX + 32];
        snprintf(who, sizeof who, "job %s: publishing", d->job_id);
        wk_redis_failed(w, who, err);
    }
    if (held)
        atomic_fetch_sub(&w->held_results, 1);
    return published;
}

/* Encodes and sends a result whose bytes may all be copied (small ones). */
static bool deliver(wk_slot *s, const q_entry *e, const q_result *res, const char *dead_reason)
{
    msgpack_sbuffer buf;
    if (encode(res, &buf) < 0)
        return false;
    q_delivery d = { .job_id = res->id, .status = res->status, .data = buf.data, .len = buf.size };
    bool ok = send_result(s, e, &d, dead_reason);
    msgpack_sbuffer_destroy(&buf);
    return ok;
}

/* A run's result: its output is sent from where the sandbox captured it,
 * never copied (a flood's megabytes once sat in memory four times over). */
static bool deliver_run(wk_slot *s, const q_entry *e, const q_result *res)
{
    char err[Q_ERR_LEN];
    msgpack_sbuffer buf;
    q_refs refs;
    msgpack_sbuffer_init(&buf);
    if (q_result_encode_refs(res, &buf, &refs, err, sizeof err) < 0) {
        wk_log(WK_LOG_ERROR, "job %s: cannot encode its result: %s", res->id, err);
        msgpack_sbuffer_destroy(&buf);
        return false;
    }
    struct iovec iov[2 * Q_REFS_MAX + 1];
    q_delivery d = { .job_id = res->id, .status = res->status, .iov = iov, .niov = q_refs_iov(&buf, &refs, iov) };
    bool ok = send_result(s, e, &d, NULL);
    msgpack_sbuffer_destroy(&buf);
    return ok;
}

/* A result that is not a run's: BAD_JOB, or SANDBOX_ERROR after too many
 * deliveries. */
static bool answer(wk_slot *s, const q_entry *e, const char *id, const char *status, const char *error,
                   const char *dead_reason)
{
    q_result r = { .id = id, .status = status, .worker = s->w->cfg.name, .attempt = (uint64_t)e->attempt,
                   .error = error };
    return deliver(s, e, &r, dead_reason);
}

/* True when this call dead-lettered the entry. */
static bool dead_letter(wk_slot *s, const q_entry *e, const char *reason)
{
    wk_worker *w = s->w;
    char err[Q_ERR_LEN];
    q_dead_letter dl = { reason, (long)w->cfg.dead_maxlen, (size_t)w->cfg.max_job_bytes, NULL };
    int rc;
    while ((rc = q_dead(s->conn, w->cfg.prefix, s->consumer, e->id, &dl, err, sizeof err)) < 0 &&
           !atomic_load(&w->hard))
        wk_log(WK_LOG_WARN, "entry %s: dead-lettering failed, retrying: %s", e->id, err);
    if (rc == 1) {
        atomic_fetch_add(&w->dead_letters, 1);
        wk_log(WK_LOG_WARN, "entry %s dead-lettered: %s", e->id, reason);
    }
    return rc == 1;
}

/* Runs the job's program against its interactor; the job's stdin is the
 * interactor's file `input` (the test data), not the program's. */
static int run_interactive(wk_slot *s, q_job *job, sbx_spec *prog, wk_pair *pair, char *err, size_t errlen)
{
    wk_worker *w = s->w;
    char serr[SBX_ERR_LEN];
    if (!s->ibox && sbx_box_open(w->host, &s->ibox, serr, sizeof serr) < 0) {
        memset(pair, 0, sizeof *pair);
        pair->status = "SANDBOX_ERROR";
        snprintf(pair->message, sizeof pair->message, "interactor's box: %s", serr);
        return -1;
    }
    sbx_file input = { "input", job->stdin_data, job->has_stdin ? job->stdin_len : 0, false };
    sbx_spec inter;
    sbx_file *ifiles = NULL;
    if (wk_spec_from_prog(&job->interactor, &w->cfg.max, &input, &inter, &ifiles, err, errlen) < 0)
        return 1;
    prog->stdin_data = NULL;
    prog->stdin_len = 0;
    /* A transcript is output too: the job asks, the worker's cap decides. */
    uint64_t transcript = job->transcript_bytes < w->cfg.max.stdout_bytes ? job->transcript_bytes
                                                                          : w->cfg.max.stdout_bytes;
    int rc = wk_run_pair(s->box, prog, s->ibox, &inter, &(wk_pair_opts){ .transcript_bytes = (size_t)transcript },
                         pair);
    free(ifiles);
    return rc;
}

static void observe(wk_worker *w, const sbx_result *r)
{
    wk_metrics *m = &w->metrics;
    if (r->status == SBX_SANDBOX_ERROR) {
        atomic_fetch_add(&m->sandbox_errors, 1);
        return;
    }
    wk_hist_observe(&m->duration, r->wall_us);
    atomic_fetch_add(&m->output_bytes[0], r->stdout_len);
    atomic_fetch_add(&m->output_bytes[1], r->stderr_len);
    atomic_fetch_add(&m->output_truncated[0], r->stdout_truncated);
    atomic_fetch_add(&m->output_truncated[1], r->stderr_truncated);
}

static void finish_interactive(wk_slot *s, const q_entry *e, q_job *job, wk_pair *pair, int rc, const char *err)
{
    wk_worker *w = s->w;
    if (rc == 1) { /* the interactor's own spec was bad */
        if (answer(s, e, job->id, "BAD_JOB", err, NULL))
            count(w, WK_BAD_JOB);
        return;
    }
    if (rc < 0) {
        atomic_fetch_add(&w->metrics.sandbox_errors, 1);
        wk_log(WK_LOG_ERROR, "job %s (entry %s, attempt %lld): sandbox error, left for redelivery: %s", job->id,
               e->id, e->attempt, pair->message);
    } else if (atomic_load(&s->lost)) {
        wk_log(WK_LOG_WARN, "job %s: another worker took entry %s while it ran; result dropped", job->id, e->id);
    } else {
        const char *names[WK_ISO_MAX];
        q_result res;
        int st = sbx_status_parse(pair->status);
        if (st < 0)
            st = strcmp(pair->status, "WRONG_ANSWER") == 0 ? WK_WRONG_ANSWER
                 : strcmp(pair->status, "PARTIAL") == 0    ? WK_PARTIAL
                                                           : WK_INTERACTOR_ERROR;
        wk_hist_observe(&w->metrics.duration, pair->prog.wall_us);
        wk_pair_to_wire(pair, job->id, w->cfg.name, (uint64_t)e->attempt, names, &res);
        if (deliver_run(s, e, &res))
            count(w, st);
    }
    wk_pair_free(pair);
}

void wk_slot_begin(wk_slot *s, const q_entry *e)
{
    pthread_mutex_lock(&s->mu);
    snprintf(s->entry, sizeof s->entry, "%s", e->id);
    atomic_store(&s->lost, false);
    pthread_mutex_unlock(&s->mu);
    atomic_fetch_add(&s->w->busy, 1);
}

void wk_slot_end(wk_slot *s)
{
    atomic_fetch_sub(&s->w->busy, 1);
    pthread_mutex_lock(&s->mu);
    s->entry[0] = 0;
    pthread_mutex_unlock(&s->mu);
}

static void run_job(wk_slot *s, const q_entry *e, q_job *job)
{
    wk_worker *w = s->w;
    char err[Q_ERR_LEN];
    sbx_spec spec;
    sbx_file *files = NULL;
    if (job->grade) {
        wk_grade_job(s, e, job);
        return;
    }
    if (wk_spec_from_job(job, &w->cfg.max, &spec, &files, err, sizeof err) < 0) {
        if (answer(s, e, job->id, "BAD_JOB", err, NULL))
            count(w, WK_BAD_JOB);
        return;
    }
    wk_slot_begin(s, e);
    sbx_result r;
    wk_pair pair;
    bool interactive = job->has_interactor;
    int irc = 0;
    if (interactive)
        irc = run_interactive(s, job, &spec, &pair, err, sizeof err);
    else
        sbx_run(s->box, &spec, &r);
    wk_slot_end(s);
    free(files);
    if (interactive) {
        finish_interactive(s, e, job, &pair, irc, err);
        return;
    }
    observe(w, &r);
    if (r.status == SBX_SANDBOX_ERROR) {
        /* Left pending: redelivered after --claim-idle-ms, here or elsewhere. */
        wk_log(atomic_load(&w->hard) ? WK_LOG_INFO : WK_LOG_ERROR, "job %s (entry %s, attempt %lld): sandbox error, left for redelivery: %s",
               job->id, e->id, e->attempt, r.error);
    } else if (atomic_load(&s->lost)) {
        wk_log(WK_LOG_WARN, "job %s: another worker took entry %s while it ran; result dropped", job->id, e->id);
    } else {
        const char *names[WK_ISO_MAX];
        q_result res;
        wk_result_to_wire(&r, job->id, w->cfg.name, (uint64_t)e->attempt, names, &res);
        wk_log(WK_LOG_DEBUG, "job %s: %s in %" PRIu64 " us", job->id, res.status, r.wall_us);
        if (deliver_run(s, e, &res))
            count(w, (int)r.status);
    }
    sbx_result_free(&r);
}

/* Submission time is the entry id's milliseconds (Redis's clock). */
static void observe_wait(wk_worker *w, const q_entry *e)
{
    unsigned long long ms = strtoull(e->id, NULL, 10);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    unsigned long long now_ms = (unsigned long long)now.tv_sec * 1000 + (unsigned long long)now.tv_nsec / 1000000;
    if (e->attempt == 1 && ms && now_ms >= ms)
        wk_hist_observe(&w->metrics.queue_wait, (now_ms - ms) * 1000);
}

void wk_handle(wk_slot *s, q_entry *e)
{
    wk_worker *w = s->w;
    char err[Q_ERR_LEN], reason[Q_ERR_LEN + 64];
    observe_wait(w, e);
    if (e->attempt > 1)
        atomic_fetch_add(&w->redeliveries, 1);
    if (!e->has_job) {
        if (dead_letter(s, e, "entry has no job field"))
            count(w, WK_BAD_JOB);
        return;
    }
    q_bounds b;
    q_bounds_default(&b);
    b.max_job_bytes = w->cfg.max_job_bytes;
    q_job job;
    int rc = q_job_decode(e->job, e->job_len, &b, &job, err, sizeof err);
    if (e->job_bytes > e->job_len) {
        /* Cut before it left Redis: its id, if any, from its first bytes. */
        char id[sizeof job.id];
        bool has_id = job.has_id;
        memcpy(id, job.id, sizeof id);
        q_job_free(&job);
        job.has_id = has_id;
        memcpy(job.id, id, sizeof id);
        rc = -1;
        snprintf(err, sizeof err, "job: %zu bytes exceeds the limit of %" PRIu64 " (--max-job-bytes)", e->job_bytes,
                 w->cfg.max_job_bytes);
    }
    if (e->attempt > (long long)w->cfg.max_deliveries) {
        snprintf(reason, sizeof reason, "given up after %lld deliveries (max %" PRIu64 "): the sandbox kept failing",
                 e->attempt - 1, w->cfg.max_deliveries);
        if (job.has_id ? answer(s, e, job.id, "SANDBOX_ERROR", reason, reason) : dead_letter(s, e, reason))
            count(w, SBX_SANDBOX_ERROR);
    } else if (rc < 0 && job.has_id) {
        wk_log(WK_LOG_INFO, "job %s: bad job: %s", job.id, err);
        if (answer(s, e, job.id, "BAD_JOB", err, NULL))
            count(w, WK_BAD_JOB);
    } else if (rc < 0) {
        if (dead_letter(s, e, err))
            count(w, WK_BAD_JOB);
    } else {
        run_job(s, e, &job);
    }
    q_job_free(&job);
}

/* For grade_job.c (worker.h). */
bool wk_answer(wk_slot *s, const q_entry *e, const char *id, const char *status, const char *error,
               const char *dead_reason)
{
    return answer(s, e, id, status, error, dead_reason);
}

bool wk_deliver(wk_slot *s, const q_entry *e, const q_result *res, const char *dead_reason)
{
    return deliver(s, e, res, dead_reason);
}

void wk_count(wk_worker *w, int status)
{
    count(w, status);
}
