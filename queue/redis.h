/* redis.h -- one blocking connection to Redis that survives restarts.
 *
 * A q_conn wraps one hiredis 0.14 context together with what is needed to
 * rebuild it: the address, the credentials, the database, the timeouts and
 * the SHA1s of the Lua scripts it has loaded.
 *
 * DESIGN
 *   Every command has a socket timeout (SO_RCVTIMEO/SO_SNDTIMEO, default
 *   5 s). hiredis cannot reuse a context after an I/O error, EOF or timeout,
 *   so the context is dropped on such an error and the command fails. The
 *   next command reconnects first, with exponential backoff (50 ms doubling
 *   to 2 s, with jitter) for at most reconnect_wait_ms, then re-applies the
 *   timeouts, AUTH, SELECT and CLIENT SETNAME in one round trip. A failed
 *   command is never re-sent: the caller alone knows whether it is safe.
 *
 *   Scripts run with EVALSHA. The first use on a connection, or a NOSCRIPT
 *   after Redis restarted, pipelines SCRIPT LOAD with EVAL of the body: one
 *   round trip, and the script is cached again.
 *
 * INVARIANTS
 *   - A q_conn is not thread-safe (neither is a redisContext): one per
 *     thread. Only q_conn_reconnects and q_conn_round_trips may be read from
 *     another thread.
 *   - Blocking commands must block for at most q_conn_block_max_ms(), which
 *     is at most half the command timeout, so the server answers first.
 *   - Never send a command whose reply size is unbounded: hiredis 0.14 calls
 *     abort() when an allocation fails. Bound every reply with COUNT/LIMIT.
 *   - hiredis writes with write(2): the process must ignore SIGPIPE.
 *
 * Errors: functions that fail write one line into the caller's `err` buffer
 * (Q_ERR_LEN bytes suffice) and return -1 or NULL; they never print, exit
 * or abort.
 */
#ifndef GRADEQ_QUEUE_REDIS_H
#define GRADEQ_QUEUE_REDIS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "queue/common.h"

struct redisReply; /* hiredis; include <hiredis/hiredis.h> to read replies */

#define Q_BLOCK_MAX_MS 2000 /* longest server-side block of any command */
#define Q_ARGS_MAX 96       /* arguments of one command */
#define Q_ARGS_NUMS 16      /* of which formatted integers */

typedef struct q_redis_addr {
    bool is_unix;
    char host[256];     /* TCP host name or address, without IPv6 brackets */
    int port;
    char path[108];     /* unix socket path (sun_path) */
    int db;
    char user[128];     /* ACL user; empty: AUTH with the password only */
    char password[256]; /* empty: no AUTH */
} q_redis_addr;

/* Parses "redis://[[user]:password@]host[:port][/db]" (port 6379, db 0 by
 * default; "[::1]" for IPv6) or "unix:///path[?db=N&user=U&password=P]".
 * User and password may be percent-encoded. Returns 0, or -1 with a message
 * naming the bad part (never echoing the password). */
int q_redis_url_parse(const char *url, q_redis_addr *out, char *err, size_t errlen);

typedef struct q_conn_opts {
    int connect_timeout_ms; /* 0: 2000 */
    int command_timeout_ms; /* 0: 5000; each command's socket timeout, plus
                             * 1 ms per 4 KiB sent in a round trip that
                             * sends more than 1 MiB (Redis is silent while
                             * it runs a big command: a 48 MiB job takes a
                             * submit script 0.15 s on a fast host, seconds
                             * on a slow one) */
    int reconnect_wait_ms;  /* 0: 5000; longest a command waits for a reconnect */
    int backoff_min_ms;     /* 0: 50; first delay between connect attempts */
    int backoff_max_ms;     /* 0: 2000; the delay doubles up to this (and
                             * never beyond reconnect_wait_ms, so every
                             * command makes at least one attempt) */
    const char *client_name;/* NULL: none; else CLIENT SETNAME, [!-~]{1,64} */
    const atomic_int *stop; /* NULL: none; non-zero makes reconnecting give up */
} q_conn_opts;

typedef struct q_conn q_conn;

/* Connects once (no retry), applies the timeouts, AUTH, SELECT and the
 * client name. `opts` may be NULL for the defaults; it is copied. Returns
 * NULL with "redis 127.0.0.1:6379: connection refused" and the like. */
q_conn *q_conn_open(const q_redis_addr *addr, const q_conn_opts *opts, char *err,
                    size_t errlen);
void q_conn_close(q_conn *c); /* NULL is fine */

/* Successful reconnections since q_conn_open (for metrics). */
unsigned long q_conn_reconnects(const q_conn *c);
/* Round trips sent, handshakes included (for metrics and tests). */
unsigned long q_conn_round_trips(const q_conn *c);
/* The longest BLOCK/BLPOP timeout a command on `c` may use. */
int q_conn_block_max_ms(const q_conn *c);
/* True once the stop flag given in the options is set. */
bool q_conn_stopping(const q_conn *c);

/* One command's arguments. Pointers are borrowed: they must stay valid
 * until the command returns. Adding more than Q_ARGS_MAX arguments or
 * Q_ARGS_NUMS integers marks the list overflowed; the command then fails. */
#define Q_IOV_MAX 32  /* pieces of one scatter argument */

typedef struct q_args {
    int argc;
    bool overflow;
    const char *argv[Q_ARGS_MAX];
    size_t len[Q_ARGS_MAX];
    const struct iovec *iov[Q_ARGS_MAX]; /* non-NULL: a scatter argument */
    int niov[Q_ARGS_MAX];
    int nnums;
    char nums[Q_ARGS_NUMS][24];
} q_args;

void q_args_init(q_args *a);
void q_args_bin(q_args *a, const void *p, size_t n);
void q_args_str(q_args *a, const char *s);
void q_args_ll(q_args *a, long long v);
/* An argument made of n pieces (at most Q_IOV_MAX), sent with one
 * sendmsg straight from them: a large value (a result with its output) is
 * never copied into hiredis's buffers. iov and the pieces must outlive the
 * command. */
void q_args_iov(q_args *a, const struct iovec *iov, int n);

/* Runs one command. Returns its reply (free it with freeReplyObject), or
 * NULL with the error in `err`: "redis: ERR ..." for an error reply, "redis:
 * timeout after 5000 ms", "redis unix:/run/redis.sock: connection closed by
 * server", ... After an I/O error the connection is re-made by the next
 * call; this one is not retried. */
struct redisReply *q_command(q_conn *c, const q_args *a, char *err, size_t errlen);

/* PING: 0 when the server answers (reconnecting first if need be, as any
 * command), -1 with err filled. Tells a server that is away from one that
 * refuses a particular command. */
int q_ping(q_conn *c, char *err, size_t errlen);

/* Sends `n` commands in one round trip and reads every reply into
 * `replies` (error replies included: check each). Returns 0, or -1 with no
 * reply left to free. */
int q_pipeline(q_conn *c, size_t n, const q_args *const *cmds, struct redisReply **replies,
               char *err, size_t errlen);

/* A Lua script. Define it once with static storage; its SHA1 is cached in
 * each connection that runs it (at most 16 scripts per connection). */
typedef struct q_script {
    const char *name; /* for error messages */
    const char *body;
} q_script;

/* Runs `s` with the first `nkeys` entries of `a` as KEYS and the rest as
 * ARGV, in one round trip (two only when the script must be reloaded).
 * Returns the reply, or NULL with "redis: script NAME: ERR ..." etc. */
struct redisReply *q_eval(q_conn *c, const q_script *s, int nkeys, const q_args *a,
                          char *err, size_t errlen);

#endif
