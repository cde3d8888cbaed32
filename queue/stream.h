/* stream.h -- the gradeq job protocol on Redis Streams.
 *
 * Keys, all under one prefix P (default "gradeq"; give it a hash tag such
 * as "{gradeq}" on Redis Cluster so every key lands in one slot):
 *
 *   P:jobs          stream of jobs, field `job` = opaque bytes; consumer
 *                   group "workers". An entry is XDEL'd when its job is
 *                   published or dead-lettered, so XLEN = waiting + running.
 *   P:result:<id>   list holding the result of job <id>, with a TTL; a
 *                   waiter BLPOPs it. <id> is a job id by the rule of
 *                   job_id.h ([A-Za-z0-9._:-]{1,128}), the one the job
 *                   decoder applies, so a client never waits for a
 *                   result no worker can publish.
 *   P:results       stream of every result (fields id, result), MAXLEN ~.
 *   P:dead          stream of dead letters (entry, reason, then the entry's
 *                   own fields, a job over the cap cut, job_bytes its
 *                   length), MAXLEN ~.
 *   P:stats         hash of counters: one per result status, `jobs` (all
 *                   results), `DEAD` (dead letters), `LOST` (entries
 *                   deleted from P:jobs while a worker held them).
 *   P:rate          hash ring of per-second result counts (64 slots).
 *   P:worker:<name> hash describing a live worker, with a TTL.
 *
 * DESIGN
 *   A job costs a busy worker one round trip: q_publish_next, one Lua
 *   script that checks ownership, acks, deletes the entry, stores the
 *   result, bumps the counters and reads the next job. An idle worker
 *   waits in q_fetch (XREADGROUP BLOCK) for its next one. A worker
 *   that lost its entry (it stalled; another worker claimed it) finds
 *   q_publish, q_dead and q_touch answer 0 and write nothing: results are
 *   fenced by the consumer-group PEL.
 *
 *   Delivery counts come from Redis, never from the payload: attempt is 1
 *   on a fresh read and grows with each q_claim. What to do past a limit
 *   is the worker's call (q_dead with a result saying so).
 *
 * INVARIANTS
 *   - The module moves opaque bytes; it knows nothing of msgpack.
 *   - Every reply is bounded (COUNT 1, capped batches, capped stats).
 *   - One consumer name per thread ([!-~]{1,64}): ownership is per name.
 *
 * Errors: -1 with one line in `err`; never print, exit or abort.
 */
#ifndef GRADEQ_QUEUE_STREAM_H
#define GRADEQ_QUEUE_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "queue/job_id.h"
#include "queue/redis.h"

#define Q_DEFAULT_PREFIX "gradeq"
#define Q_GROUP "workers"
#define Q_ID_LEN 48          /* a stream entry id, NUL included */
#define Q_PREFIX_MAX 64      /* [!-~]{1,64} */
#define Q_NAME_MAX 64        /* consumer and worker names: [!-~]{1,64} */
#define Q_JOB_ID_MAX Q_ID_MAX /* job ids: [A-Za-z0-9._:-]{1,128} (job_id.h) */
#define Q_STATUS_MAX 32      /* result statuses: [A-Z0-9_]{1,32} */
#define Q_REASON_MAX 512     /* longer dead-letter reasons are cut */
#define Q_TOUCH_MAX 64       /* entries per q_touch_many call */
#define Q_JOB_KEEP 4096      /* what is kept of a job over the cap (for its id, and P:dead) */

/* One job entry. `job` borrows from the reply the entry owns: it stays
 * valid until q_entry_free. */
typedef struct q_entry {
    char id[Q_ID_LEN];
    bool has_job;            /* false: the entry has no `job` field */
    const char *job;         /* not NUL-terminated; NULL when !has_job */
    size_t job_len;          /* bytes at job: all of them, or Q_JOB_KEEP of */
    size_t job_bytes;        /* a job over the cap: its whole length */
    long long attempt;       /* delivery count: 1 on first delivery */
    struct redisReply *reply;/* private */
} q_entry;

void q_entry_free(q_entry *e); /* a zeroed entry is fine */

/* Creates P:jobs and the "workers" group (from the stream's start) if
 * missing. Returns 0 or -1. */
int q_group_ensure(q_conn *c, const char *prefix, char *err, size_t errlen);

/* Reads one new job for `consumer`, blocking up to `block_ms` (0: do not
 * block; at most q_conn_block_max_ms). A job over max_job bytes (0: no
 * cap) comes cut to its first Q_JOB_KEEP bytes, job_bytes saying how long
 * it was; one already waiting is cut before it leaves Redis (only one that
 * arrives while this call blocks is read whole). Returns 1 with `out`
 * filled, 0 when no job came, -1 on error. If P:jobs or the group was
 * deleted, recreates them and returns 0. */
int q_fetch(q_conn *c, const char *prefix, const char *consumer, int block_ms, size_t max_job, q_entry *out,
            char *err, size_t errlen);

/* q_fetch for a caller that has just seen the queue empty (q_publish_next
 * brought no job): straight to XREADGROUP BLOCK, one round trip, the
 * entry that arrives meanwhile read whole and cut here. Returns as
 * q_fetch does (0 at once when block_ms is 0). */
int q_wait_job(q_conn *c, const char *prefix, const char *consumer, int block_ms, size_t max_job, q_entry *out,
               char *err, size_t errlen);

/* Where q_claim resumes scanning the pending entries; zero it to start. */
typedef struct q_cursor {
    char next[Q_ID_LEN];
} q_cursor;

/* Claims for `consumer` one entry that has been idle for `idle_ms` or more
 * (its worker died or stalled), in one round trip. out->attempt is the new
 * delivery count (2 for the first re-delivery). Successive calls walk the
 * whole pending list through `cur`. Entries deleted while pending are
 * dropped by Redis and counted in P:stats LOST. A job over max_job is cut
 * before it leaves Redis, as by q_fetch. Returns 1, 0 (nothing to
 * claim in this stretch of the list) or -1. */
int q_claim(q_conn *c, const char *prefix, const char *consumer, long long idle_ms,
            q_cursor *cur, size_t max_job, q_entry *out, char *err, size_t errlen);

/* Resets the idle time of `entry_id` if `consumer` still owns it, so a
 * running job is never claimed away from a live worker. Returns 1 (still
 * owned), 0 (lost: claimed by another consumer, acked or deleted), -1. */
int q_touch(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
            char *err, size_t errlen);

/* q_touch for up to Q_TOUCH_MAX entries in one round trip, each of its
 * own consumer: owned[i] is 1 or 0 for consumers[i] owning ids[i].
 * Returns how many are still owned, or -1. */
int q_touch_many(q_conn *c, const char *prefix, const char *const *consumers, const char *const *ids,
                 size_t n, int *owned, char *err, size_t errlen);

/* A job's encoded result (opaque bytes) and where it goes. */
typedef struct q_delivery {
    const char *job_id;      /* [A-Za-z0-9._:-]{1,128}: the key P:result:<job_id> */
    const char *status;      /* [A-Z0-9_]{1,32} but DEAD, LOST: counted in P:stats */
    const void *data;        /* opaque bytes */
    size_t len;
    const struct iovec *iov; /* or, when niov > 0, the bytes in pieces, sent */
    int niov;                /* from where they are (see q_args_iov) */
    long ttl_s;              /* lifetime of P:result:<job_id>; 0: no such list */
    long maxlen;             /* approximate cap of P:results, > 0 */
} q_delivery;

/* If `consumer` still owns `entry_id`: acks and deletes the entry, replaces
 * P:result:<job_id> with the result (TTL ttl_s), appends it to P:results,
 * counts it under its status, `jobs` and the rate. All in one script, one
 * round trip. Returns 1 published, 0 not owned (nothing written), -1. */
int q_publish(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
              const q_delivery *res, char *err, size_t errlen);

/* q_publish, and in the same round trip (after every write of it) the
 * consumer's next new job, read as q_fetch reads one without blocking
 * (cut at max_job): a busy worker's whole cycle is one round trip.
 * Returns 1 published, with `next` filled when a job was waiting (else
 * zeroed: next->reply is NULL); 0 not owned (nothing written, nothing
 * read); -1. `next` is then the caller's to run and q_entry_free. */
int q_publish_next(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
                   const q_delivery *res, size_t max_job, q_entry *next, char *err, size_t errlen);

/* A job that must not run again. P:dead gets the entry's own fields as
 * they are, read by the script (never sent by the worker): a value over
 * max_job bytes (0: no cap) is cut to Q_JOB_KEEP bytes and followed by
 * <name>_bytes, its length. */
typedef struct q_dead_letter {
    const char *reason;      /* cut to Q_REASON_MAX bytes */
    long maxlen;             /* approximate cap of P:dead, > 0 */
    size_t max_job;
    const q_delivery *result;  /* NULL, or a result to publish as q_publish does */
} q_dead_letter;

/* Fenced like q_publish: appends to P:dead, counts DEAD, acks and deletes
 * the entry, and publishes d->result if given, atomically. Returns 1, 0
 * (not owned: nothing written) or -1. */
int q_dead(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
           const q_dead_letter *d, char *err, size_t errlen);

/* Hands back an entry the caller owns but did not finish, without
 * counting the delivery: a draining worker's grading, stopped between two
 * tests, goes to another worker as if never taken. Fenced like q_publish;
 * its delivery count goes one down (never below 0) and its idle time to
 * idle_ms, so the next claim of any worker whose --claim-idle-ms is at
 * most idle_ms takes it at once and brings the count back. Returns 1, 0
 * (not owned: nothing changed) or -1. */
int q_release(q_conn *c, const char *prefix, const char *consumer, const char *entry_id, long long idle_ms,
              char *err, size_t errlen);

/* Appends a job. With max_queue > 0, refuses when P:jobs already holds
 * that many entries (check and append are atomic). Returns 1 with the
 * entry id in `id_out`, 0 when full (err: "queue full: N entries waiting
 * (max M)"), -1 on error. */
int q_submit(q_conn *c, const char *prefix, const void *job, size_t len, long long max_queue,
             char id_out[Q_ID_LEN], char *err, size_t errlen);

/* Bytes owned by a reply; valid until q_blob_free. */
typedef struct q_blob {
    const char *data;
    size_t len;
    struct redisReply *reply;/* private */
} q_blob;

void q_blob_free(q_blob *b); /* a zeroed blob is fine */

/* The result of `job_id` from P:result:<job_id>, left there for other
 * readers: at once (timeout_ms 0), waiting up to timeout_ms, or without a
 * limit (timeout_ms < 0), in BRPOPLPUSH slices of q_conn_block_max_ms.
 * Returns 1 with `out` filled, 0 when there is none (in time), -1 on
 * error or when stopping. */
int q_wait_result(q_conn *c, const char *prefix, const char *job_id, long timeout_ms,
                  q_blob *out, char *err, size_t errlen);

/* What a worker says about itself in P:worker:<name>. */
typedef struct q_worker_info {
    char name[Q_NAME_MAX + 1];
    char host[65];
    char version[33];
    long long pid;
    long long threads;
    long long busy;          /* jobs running now */
    long long jobs_done;
    long long started_at;    /* unix seconds */
    long long last_seen;     /* unix seconds */
    char languages[8192];    /* the language presets that work there and
                              * their versions, a JSON object
                              * {"java":"17.0.15",...}; "" when it has none
                              * (or is older) */
} q_worker_info;

/* HSET the fields + EXPIRE ttl_s, pipelined in one round trip. */
int q_worker_beat(q_conn *c, const char *prefix, const q_worker_info *w, long ttl_s,
                  char *err, size_t errlen);
int q_worker_gone(q_conn *c, const char *prefix, const char *name, char *err, size_t errlen);

/* Lists live workers (SCAN P:worker:*) into out[cap], cap <= 1024.
 * Returns how many, setting *truncated if there were more; -1 on error. */
int q_workers_list(q_conn *c, const char *prefix, q_worker_info *out, size_t cap,
                   bool *truncated, char *err, size_t errlen);

#define Q_STATS_CONSUMERS 32
#define Q_STATS_COUNTERS 32

typedef struct q_stats {
    long long length;            /* XLEN P:jobs: waiting + running */
    long long waiting;           /* never delivered (group lag); -1: unknown */
    long long pending;           /* delivered, not yet published */
    long long oldest_waiting_ms; /* age of the oldest waiting job; -1: none */
    long long oldest_pending_ms; /* age since submit of the oldest pending; -1: none */
    long long dead;              /* XLEN P:dead */
    double jobs_per_s;           /* results over the last 60 s, per second */
    size_t nconsumers;           /* consumers holding pending entries */
    bool consumers_truncated;
    struct {
        char name[Q_NAME_MAX + 1];
        long long pending;
    } consumers[Q_STATS_CONSUMERS];
    size_t ncounters;            /* the P:stats hash */
    bool counters_truncated;
    struct {
        char name[Q_STATUS_MAX + 1];
        long long value;
    } counters[Q_STATS_COUNTERS];
} q_stats;

/* Reads every gauge above in one round trip (one bounded script). */
int q_stats_read(q_conn *c, const char *prefix, q_stats *out, char *err, size_t errlen);

#endif
