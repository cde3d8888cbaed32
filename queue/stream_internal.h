/* stream_internal.h -- internal to queue/: what the stream_*.c files
 * share: checks on caller strings, key names and reply shapes.
 *
 * The protocol is split by who calls it: stream.c (a worker's side: fetch,
 * claim, touch, publish, dead), stream_client.c (submit, wait for a
 * result), stream_workers.c (the worker registry) and stream_stats.c (the
 * queue's gauges). Each validates every caller string with these checks
 * before it becomes part of a key name.
 */
#ifndef GRADEQ_QUEUE_STREAM_INTERNAL_H
#define GRADEQ_QUEUE_STREAM_INTERNAL_H

#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stddef.h>

#include "queue/stream.h"

#define Q_KEY_MAX 256 /* prefix + ":result:" + job id always fits */

/* 0 when s is 1..max bytes of printable ASCII without space (safe in key
 * names, logs and SCAN patterns after escaping), else -1 with
 * "queue: WHAT must be ..." in err. */
int q_check_token(const char *what, const char *s, size_t max, char *err, size_t errlen);

/* 0 when id is a job id by the rule of job_id.h, else -1 with
 * "queue: job id must be ..." in err. NULL is refused. */
int q_check_job_id(const char *id, char *err, size_t errlen);

/* "<prefix>:<name><suffix>" (suffix may be NULL); validation of prefix and
 * suffix keeps it under Q_KEY_MAX. */
void q_mkkey(char out[Q_KEY_MAX], const char *prefix, const char *name, const char *suffix);

/* True when r is an array of exactly n elements. */
bool q_is_array(const redisReply *r, size_t n);

/* Frees r and fails with "redis: unexpected reply to WHAT"; returns -1. */
int q_bad_reply(redisReply *r, const char *what, char *err, size_t errlen);

/* Copies a bulk string reply into dst[cap], cut to fit; "" for any other
 * reply type. */
void q_copy_str(char *dst, size_t cap, const redisReply *r);

/* An integer reply, or a bulk string read as a decimal; 0 otherwise. */
long long q_reply_ll(const redisReply *r);

#endif
