/* redis_internal.h -- internal to queue/: the q_conn structure and what
 * the redis_*.c files share.
 *
 * redis.c owns the connection (connect, handshake, reconnect with backoff,
 * round trips); redis_script.c caches script SHA1s in it. Nothing outside
 * these files touches the structure: callers see an opaque q_conn.
 */
#ifndef GRADEQ_QUEUE_REDIS_INTERNAL_H
#define GRADEQ_QUEUE_REDIS_INTERNAL_H

#include <hiredis/hiredis.h>
#include <stdint.h>
#include <time.h>

#include "queue/redis.h"

#define SCRIPTS_MAX 16

struct q_conn {
    q_redis_addr addr;
    q_conn_opts opts;          /* defaults resolved; client_name points below */
    char client_name[65];
    char where[300];           /* "127.0.0.1:6379" or "unix:/path", for messages */
    redisContext *ctx;         /* NULL while disconnected */
    int timeout_ms;            /* the socket timeout ctx has now (see exchange) */
    int delay_ms;              /* backoff to apply if the next attempt fails */
    struct timespec next_try;  /* CLOCK_MONOTONIC: no connect attempt before */
    char last_err[Q_ERR_LEN];  /* why the last connect attempt failed */
    uint64_t rng;              /* xorshift64 state for the jitter */
    atomic_ulong reconnects;
    atomic_ulong round_trips;
    size_t nscripts;
    struct {
        const q_script *script;
        char sha[41];          /* empty until SCRIPT LOAD answered */
    } scripts[SCRIPTS_MAX];
};

/* Turns an error reply into NULL + "redis: LABEL<error text>", freeing it;
 * passes any other reply through. (redis.c) */
redisReply *q_reply_or_error(redisReply *r, const char *label, char *err, size_t errlen);

#endif
