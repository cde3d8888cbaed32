/* dead.h -- the dead-letter stream P:dead, for operators: list, show,
 * requeue, purge. Entries hold `entry` (the original entry id), `reason`,
 * then the original entry's own fields: `job` (its raw bytes, when it had
 * any; only the first Q_JOB_KEEP of a job over the worker's cap, with
 * `job_bytes` its length) and whatever else the entry held. */
#ifndef GRADEQ_QUEUE_DEAD_H
#define GRADEQ_QUEUE_DEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "queue/redis.h"
#include "queue/stream.h"

#define Q_DEAD_LIST_MAX 1000

typedef struct q_dead_info {
    char id[Q_ID_LEN];       /* its id in P:dead */
    char entry[Q_ID_LEN];    /* its id in P:jobs when it died */
    char reason[Q_REASON_MAX + 1];
    long long job_len;       /* -1: no job bytes */
    bool job_cut;            /* only its first bytes were kept (job_bytes) */
} q_dead_info;

/* The newest n (at most Q_DEAD_LIST_MAX) dead letters, newest first,
 * without their job bytes (the reply stays small). Returns the count or
 * -1. */
int q_dead_list(q_conn *c, const char *prefix, size_t n, q_dead_info *out, char *err, size_t errlen);
/* One dead letter with its job bytes (in *job, owned by the caller's blob).
 * Returns 1, 0 when there is no such id, -1 on error. */
int q_dead_get(q_conn *c, const char *prefix, const char *id, q_dead_info *info, q_blob *job, char *err,
               size_t errlen);
/* Moves a dead letter's job back into P:jobs (a new entry, new deliveries),
 * atomically. Returns 1 (new entry id in entry_out), 0 when there is no such
 * id or it has no (whole) job bytes, -1 on error. */
int q_dead_requeue(q_conn *c, const char *prefix, const char *id, char entry_out[Q_ID_LEN], char *err,
                   size_t errlen);
/* Deletes every dead letter. Returns how many there were, or -1. */
long long q_dead_purge(q_conn *c, const char *prefix, char *err, size_t errlen);

#endif
