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
 * - A result Redis refuses for good while it answers otherwise (over its
 *   proto-max-bulk-len, say) is not retried for ever: the waiter gets it
 *   without its outputs, saying so, and the entry is dead-lettered, so the
 *   thread goes on (the worker's maxima keep every result within
 *   --max-result-bytes, so that only a misconfigured Redis does this).
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

/* Waits before a retry, *delay_ms (50 ms doubling to 2 s), in short slices
 * so an abort is seen at once: a Redis that answers every try with an
 * error (OOM, a failover's READONLY) is not hammered in a tight loop. */
static void pause_retry(wk_worker *w, unsigned *delay_ms)
{
    for (unsigned waited = 0; waited < *delay_ms && !atomic_load(&w->hard); waited += 50)
        nanosleep(&(struct timespec){ 0, 50 * 1000000 }, NULL);
    *delay_ms = *delay_ms < 1000 ? *delay_ms * 2 : 2000;
}

/* How a send ended. */
typedef enum { SENT, NOT_OURS, GIVEN_UP, REFUSED } sent;

/* Failures in a row, Redis answering between them, after which a result
 * is taken as refused for good. */
#define REFUSALS_FINAL 3

/* Errors that pass with time or an operator's fix (a server loading,
 * busy, full, failing over; credentials), whatever the bytes sent. */
static bool passes_with_time(const char *err)
{
    static const char *const passing[] = { "LOADING", "BUSY", "OOM", "MASTERDOWN", "READONLY", "TRYAGAIN",
                                           "CLUSTERDOWN", "NOREPLICAS", "WRONGPASS", "NOAUTH", "NOPERM",
                                           "invalid password", "timeout" };
    for (size_t i = 0; i < sizeof passing / sizeof passing[0]; i++)
        if (strstr(err, passing[i]))
            return true;
    return false;
}

/* Publishes a result (or dead-letters, when dead_reason) until Redis takes
 * it, the entry turns out lost, the worker aborts, or Redis refuses these
 * bytes for good: REFUSALS_FINAL failures in a row, each followed by a
 * PING it answers, none of passes_with_time's (a result over the server's
 * proto-max-bulk-len closes the connection on every try). why then says
 * what Redis said. The caller keeps d's bytes alive and frees them after. */
static sent send_result(wk_slot *s, const q_entry *e, q_delivery *d, const char *dead_reason, char *why,
                        size_t whylen)
{
    wk_worker *w = s->w;
    char err[Q_ERR_LEN], perr[Q_ERR_LEN];
    d->ttl_s = w->cfg.result_lists ? (long)w->cfg.result_ttl_s : 0;
    d->maxlen = (long)w->cfg.results_maxlen;
    q_dead_letter dl = { dead_reason, (long)w->cfg.dead_maxlen, (size_t)w->cfg.max_job_bytes, d };
    bool retried = false, held = false;
    int refusals = 0;
    unsigned delay_ms = 50;
    sent rc;
    for (;; retried = true) {
        /* The next job comes with the result unless the worker drains
         * (checked as late as can be) or the thread claims first. */
        bool next = s->want_next && !s->next.reply && !atomic_load(&w->stop);
        int r = dead_reason ? q_dead(s->conn, w->cfg.prefix, s->consumer, e->id, &dl, err, sizeof err)
                : next      ? q_publish_next(s->conn, w->cfg.prefix, s->consumer, e->id, d,
                                             (size_t)w->cfg.max_job_bytes, &s->next, err, sizeof err)
                            : q_publish(s->conn, w->cfg.prefix, s->consumer, e->id, d, err, sizeof err);
        if (r == 1) {
            rc = SENT;
            s->saw_empty = next && !s->next.reply;
            if (dead_reason)
                atomic_fetch_add(&w->dead_letters, 1);
            break;
        }
        if (r == 0) {
            rc = NOT_OURS;
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
            rc = GIVEN_UP;
            atomic_fetch_add(&w->redis_errors, 1);
            wk_log(WK_LOG_WARN, "job %s: not published (aborting): %s", d->job_id, err);
            break;
        }
        char who[Q_ID_MAX + 32];
        snprintf(who, sizeof who, "job %s: publishing", d->job_id);
        wk_redis_failed(w, who, err);
        refusals = !passes_with_time(err) && q_ping(s->conn, perr, sizeof perr) == 0 ? refusals + 1 : 0;
        if (refusals == REFUSALS_FINAL) {
            rc = REFUSED;
            snprintf(why, whylen, "%s", err);
            break;
        }
        pause_retry(w, &delay_ms);
    }
    if (held)
        atomic_fetch_sub(&w->held_results, 1);
    return rc;
}

static void drop_outputs(q_graded *t)
{
    t->stdout_truncated |= t->stdout_len > 0;
    t->stderr_truncated |= t->stderr_len > 0;
    t->stdout_buf = t->stderr_buf = "";
    t->stdout_len = t->stderr_len = 0;
}

/* r without its outputs (a grading's included: *tests holds the copies of
 * its verdicts, freed by the caller). -1: out of memory. */
static int without_outputs(const q_result *r, q_result *out, q_grade_result *g, q_graded **tests)
{
    *out = *r;
    out->stdout_truncated |= r->stdout_len > 0;
    out->stderr_truncated |= r->stderr_len > 0;
    out->stdout_buf = out->stderr_buf = "";
    out->stdout_len = out->stderr_len = 0;
    if (r->transcript)
        out->transcript = "", out->transcript_len = 0;
    out->interactor.stderr_buf = "";
    out->interactor.stderr_len = 0;
    *tests = NULL;
    if (!r->grade)
        return 0;
    *g = *r->grade;
    drop_outputs(&g->compile);
    *tests = calloc(g->ntests + 1, sizeof **tests);
    if (!*tests)
        return -1;
    for (size_t i = 0; i < g->ntests; i++) {
        (*tests)[i] = g->tests[i];
        drop_outputs(&(*tests)[i]);
    }
    g->tests = *tests;
    out->grade = g;
    return 0;
}

/* True when this call dead-lettered the entry. */
static bool dead_letter(wk_slot *s, const q_entry *e, const char *reason)
{
    wk_worker *w = s->w;
    char err[Q_ERR_LEN];
    q_dead_letter dl = { reason, (long)w->cfg.dead_maxlen, (size_t)w->cfg.max_job_bytes, NULL };
    int rc;
    unsigned delay_ms = 50;
    while ((rc = q_dead(s->conn, w->cfg.prefix, s->consumer, e->id, &dl, err, sizeof err)) < 0 &&
           !atomic_load(&w->hard)) {
        char who[Q_ID_LEN + 32];
        snprintf(who, sizeof who, "entry %s: dead-lettering", e->id);
        wk_redis_failed(w, who, err);
        pause_retry(w, &delay_ms);
    }
    if (rc == 1) {
        atomic_fetch_add(&w->dead_letters, 1);
        wk_log(WK_LOG_WARN, "entry %s dead-lettered: %s", e->id, reason);
    }
    return rc == 1;
}

/* Redis refused a result of `bytes` for good: the waiter gets it without
 * its outputs, saying so, and the entry goes to the dead letters with the
 * reason, for an operator (the job can be requeued once Redis takes such
 * results). If even that is refused, the entry is dead-lettered alone.
 * True when the waiter got the answer. */
static bool answer_refused(wk_slot *s, const q_entry *e, const q_result *res, size_t bytes, const char *why)
{
    wk_worker *w = s->w;
    char reason[Q_ERR_LEN + 96], error[SBX_ERR_LEN + Q_ERR_LEN + 128], err[Q_ERR_LEN];
    snprintf(reason, sizeof reason, "a result of %zu bytes refused by Redis (%s): published without its outputs",
             bytes, why);
    snprintf(error, sizeof error, "%s%sthe result (%zu bytes) was refused by Redis (%s): its outputs are left out",
             res->error ? res->error : "", res->error ? "; " : "", bytes, why);
    atomic_fetch_add(&w->refused_results, 1);
    wk_log(WK_LOG_ERROR, "job %s (entry %s): %s", res->id, e->id, reason);
    q_result small;
    q_grade_result g;
    q_graded *tests;
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    sent rc = REFUSED;
    if (without_outputs(res, &small, &g, &tests) == 0) {
        small.error = error;
        if (q_result_encode(&small, &buf, err, sizeof err) == 0) {
            q_delivery d = { .job_id = res->id, .status = res->status, .data = buf.data, .len = buf.size };
            rc = send_result(s, e, &d, reason, err, sizeof err);
        }
    }
    free(tests);
    msgpack_sbuffer_destroy(&buf);
    if (rc == REFUSED)
        dead_letter(s, e, reason);
    return rc == SENT;
}

/* Encodes and sends a result whose bytes may all be copied (small ones). */
static bool deliver(wk_slot *s, const q_entry *e, const q_result *res, const char *dead_reason)
{
    msgpack_sbuffer buf;
    if (encode(res, &buf) < 0)
        return false;
    char why[Q_ERR_LEN];
    q_delivery d = { .job_id = res->id, .status = res->status, .data = buf.data, .len = buf.size };
    sent rc = send_result(s, e, &d, dead_reason, why, sizeof why);
    size_t bytes = buf.size;
    msgpack_sbuffer_destroy(&buf);
    return rc == SENT || (rc == REFUSED && answer_refused(s, e, res, bytes, why));
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
    size_t bytes = buf.size;
    for (int i = 0; i < refs.n; i++)
        bytes += refs.ref[i].len;
    sent rc = send_result(s, e, &d, NULL, err, sizeof err);
    msgpack_sbuffer_destroy(&buf);
    return rc == SENT || (rc == REFUSED && answer_refused(s, e, res, bytes, err));
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

/* Runs the job's program against its interactor; the job's stdin is the
 * interactor's file `input` (the test data), not the program's, unless
 * the interactor brings its own `input` (then the job has no stdin: the
 * decoder refuses both). */
static int run_interactive(wk_slot *s, q_job *job, sbx_spec *prog, wk_pair *pair, char *err, size_t errlen)
{
    wk_worker *w = s->w;
    char serr[SBX_ERR_LEN];
    sbx_box *ibox = wk_slot_ibox(s, serr, sizeof serr);
    if (!ibox) {
        memset(pair, 0, sizeof *pair);
        pair->status = "SANDBOX_ERROR";
        snprintf(pair->message, sizeof pair->message, "interactor's box: %s", serr);
        return -1;
    }
    sbx_file input = { "input", job->stdin_data, job->has_stdin ? job->stdin_len : 0, false };
    sbx_spec inter;
    sbx_file *ifiles = NULL;
    bool own = false;
    for (size_t i = 0; i < job->interactor.nfiles; i++)
        own |= strcmp(job->interactor.files[i].name, "input") == 0 ||
               strncmp(job->interactor.files[i].name, "input/", 6) == 0;
    if (wk_spec_from_prog(&job->interactor, &w->cfg.max, own ? NULL : &input, &inter, &ifiles, err, errlen) < 0)
        return 1;
    prog->stdin_data = NULL;
    prog->stdin_len = 0;
    /* A transcript is output too: the job asks, the worker's cap decides. */
    uint64_t transcript = job->transcript_bytes < w->cfg.max.stdout_bytes ? job->transcript_bytes
                                                                          : w->cfg.max.stdout_bytes;
    int rc = wk_run_pair(s->box, prog, ibox, &inter, &(wk_pair_opts){ .transcript_bytes = (size_t)transcript },
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
