/* redis.c -- one connection to Redis: connect, handshake, reconnect with
 * backoff, and the round trips of q_command and q_pipeline (see redis.h).
 * URLs are parsed in redis_url.c, arguments built in redis_args.c and
 * scripts run in redis_script.c.
 *
 * DESIGN
 *   The context pointer is the connection state: NULL means "reconnect
 *   before the next command". Every hiredis error (I/O, EOF, timeout,
 *   protocol, OOM) leaves the context unusable, so exchange() frees it and
 *   reports; ensure_connected() rebuilds it when the next command comes.
 *   Backoff state (delay, next_try) lives in the connection, so a caller
 *   looping on a dead server is paced across calls, not only within one.
 *
 * INVARIANTS
 *   - c->ctx is either NULL or a context on which the handshake succeeded.
 *   - Every round trip goes through exchange(), which counts it.
 *   - No command here has an unbounded reply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <limits.h>
#include <unistd.h>

#include "queue/err.h"
#include "queue/redis_internal.h"

#define DEFAULT_CONNECT_MS 2000
#define DEFAULT_COMMAND_MS 5000
#define DEFAULT_RECONNECT_MS 5000
#define DEFAULT_BACKOFF_MIN_MS 50
#define DEFAULT_BACKOFF_MAX_MS 2000
#define STOP_POLL_MS 20 /* how soon a sleeping reconnect notices the stop flag */
#define BIG_SEND (1u << 20) /* a round trip sending more waits longer (redis.h) */
#define BYTES_PER_MS 4096

/* ---------------------------------------------------------------- time */

static struct timespec mono_now(void)
{
    struct timespec t;
    (void)clock_gettime(CLOCK_MONOTONIC, &t); /* cannot fail for this clock */
    return t;
}

static struct timespec ts_add_ms(struct timespec t, long ms)
{
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static bool ts_before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

static struct timeval tv_ms(int ms)
{
    struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
    return tv;
}

bool q_conn_stopping(const q_conn *c)
{
    return c->opts.stop && atomic_load_explicit(c->opts.stop, memory_order_relaxed);
}

/* Sleeps until `until`, in short slices so the stop flag is seen promptly.
 * Returns -1 when stopped. */
static int sleep_until(const q_conn *c, struct timespec until)
{
    for (;;) {
        if (q_conn_stopping(c))
            return -1;
        struct timespec now = mono_now(), slice = ts_add_ms(now, STOP_POLL_MS);
        if (!ts_before(now, until))
            return 0;
        if (ts_before(until, slice))
            slice = until;
        /* EINTR just ends a slice early; the loop re-checks. */
        (void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &slice, NULL);
    }
}

/* A delay in [ms/2, ms]: workers that lost Redis together spread out. */
static int jitter(q_conn *c, int ms)
{
    c->rng ^= c->rng << 13;
    c->rng ^= c->rng >> 7;
    c->rng ^= c->rng << 17;
    return ms / 2 + (int)(c->rng % (uint64_t)(ms / 2 + 1));
}

/* ---------------------------------------------------------- connection */

/* "redis WHERE: connection refused": hiredis's text, first letter lowered. */
static void ctx_fail(const char *where, const redisContext *ctx, char *err, size_t errlen)
{
    char text[sizeof ctx->errstr];
    (void)snprintf(text, sizeof text, "%s", ctx->errstr[0] ? ctx->errstr : "unknown error");
    if (text[0] >= 'A' && text[0] <= 'Z')
        text[0] = (char)(text[0] - 'A' + 'a');
    (void)q_fail(err, errlen, "redis %s: %s", where, text);
}

/* Forgets the context; the next command reconnects. The backoff state is
 * left alone: after a healthy spell next_try is in the past and delay_ms
 * at its minimum, so the first attempt is immediate (a lone reset is
 * usually over at once), while a failing handshake keeps backing off. */
static void disconnect(q_conn *c)
{
    redisFree(c->ctx);
    c->ctx = NULL;
}

/* Reports why the context failed (`saved_errno` is errno right after the
 * failing call: EAGAIN there is SO_RCVTIMEO firing) and disconnects. */
static void io_failed(q_conn *c, int saved_errno, char *err, size_t errlen)
{
    if (c->ctx->err == REDIS_ERR_IO && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK))
        (void)q_fail(err, errlen, "redis: timeout after %d ms", c->timeout_ms);
    else if (c->ctx->err == REDIS_ERR_EOF ||
             (c->ctx->err == REDIS_ERR_IO && (saved_errno == EPIPE || saved_errno == ECONNRESET)))
        /* EOF on read, or EPIPE/ECONNRESET on write (a unix socket's peer
         * closing shows up as EPIPE): the same event, one message. */
        (void)q_fail(err, errlen, "redis %s: connection closed by server", c->where);
    else
        ctx_fail(c->where, c->ctx, err, errlen);
    disconnect(c);
}

static bool has_scatter(const q_args *a)
{
    for (int i = 0; i < a->argc; i++)
        if (a->iov[i])
            return true;
    return false;
}

/* Sends one command with scatter arguments in RESP, straight from the
 * caller's pieces: whatever hiredis holds for earlier commands goes first,
 * so the order on the wire is the order of the pipeline. */
static int send_scatter(q_conn *c, const q_args *a, char *err, size_t errlen)
{
    int done = 0;
    while (!done)
        if (redisBufferWrite(c->ctx, &done) != REDIS_OK) {
            io_failed(c, errno, err, errlen);
            return -1;
        }
    static const char crlf[] = "\r\n";
    char heads[Q_ARGS_MAX + 1][24];
    struct iovec v[1 + Q_ARGS_MAX * 2 + Q_ARGS_MAX + Q_IOV_MAX];
    int k = 0;
    v[k++] = (struct iovec){ heads[0], (size_t)snprintf(heads[0], sizeof heads[0], "*%d\r\n", a->argc) };
    for (int i = 0; i < a->argc; i++) {
        char *h = heads[i + 1];
        v[k++] = (struct iovec){ h, (size_t)snprintf(h, sizeof heads[0], "$%zu\r\n", a->len[i]) };
        if (a->iov[i])
            for (int j = 0; j < a->niov[i]; j++)
                v[k++] = a->iov[i][j];
        else
            v[k++] = (struct iovec){ (void *)a->argv[i], a->len[i] };
        v[k++] = (struct iovec){ (void *)crlf, 2 };
    }
    struct iovec *p = v;
    while (k > 0) {
        struct msghdr mh = { .msg_iov = p, .msg_iovlen = (size_t)(k < IOV_MAX ? k : IOV_MAX) };
        ssize_t w = sendmsg(c->ctx->fd, &mh, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            if (e == EAGAIN || e == EWOULDBLOCK)
                (void)q_fail(err, errlen, "redis: timeout after %d ms", c->timeout_ms);
            else
                (void)q_fail(err, errlen, "redis %s: %s", c->where,
                             e == EPIPE || e == ECONNRESET ? "connection closed by server" : strerror(e));
            disconnect(c); /* half a command may be on the wire */
            return -1;
        }
        for (size_t left = (size_t)w; left > 0 && k > 0;) {
            if (left >= p->iov_len) {
                left -= p->iov_len;
                p++;
                k--;
            } else {
                p->iov_base = (char *)p->iov_base + left;
                p->iov_len -= left;
                left = 0;
            }
        }
        while (k > 0 && p->iov_len == 0) {
            p++;
            k--;
        }
    }
    return 0;
}

/* Writes `n` commands and reads their `n` replies: one round trip on the
 * live context. On failure no reply is left allocated. */
/* Gives the context a socket timeout of `ms` unless it has it already. */
static int set_timeout(q_conn *c, int ms, char *err, size_t errlen)
{
    if (c->timeout_ms == ms)
        return 0;
    if (redisSetTimeout(c->ctx, tv_ms(ms)) != REDIS_OK) {
        io_failed(c, errno, err, errlen);
        return -1;
    }
    c->timeout_ms = ms;
    return 0;
}

static int exchange(q_conn *c, size_t n, const q_args *const *cmds, redisReply **replies,
                    char *err, size_t errlen)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        if (cmds[i]->overflow)
            return q_fail(err, errlen, "redis: more than %d arguments or %d integers in a command",
                          Q_ARGS_MAX, Q_ARGS_NUMS);
        for (int j = 0; j < cmds[i]->argc; j++)
            bytes += cmds[i]->len[j];
    }
    /* Redis answers a big command only once it has run it: the wait grows
     * with the bytes (bounded: a timeout never exceeds INT_MAX ms). */
    long long want = c->opts.command_timeout_ms;
    if (bytes > BIG_SEND)
        want += (long long)(bytes / BYTES_PER_MS);
    if (set_timeout(c, want < INT_MAX ? (int)want : INT_MAX, err, errlen) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (has_scatter(cmds[i])) {
            if (send_scatter(c, cmds[i], err, errlen) < 0)
                return -1;
            continue;
        }
        /* hiredis 0.14 only reads argv but declares it without the inner const. */
        if (redisAppendCommandArgv(c->ctx, cmds[i]->argc, (const char **)cmds[i]->argv,
                                   cmds[i]->len) != REDIS_OK) {
            io_failed(c, errno, err, errlen); /* half a command may be buffered */
            return -1;
        }
    }
    atomic_fetch_add_explicit(&c->round_trips, 1, memory_order_relaxed);
    for (size_t i = 0; i < n; i++) {
        void *r = NULL;
        if (redisGetReply(c->ctx, &r) != REDIS_OK) {
            io_failed(c, errno, err, errlen);
            while (i > 0)
                freeReplyObject(replies[--i]);
            return -1;
        }
        replies[i] = r;
    }
    return 0;
}

/* AUTH, SELECT and CLIENT SETNAME in one round trip, on a fresh context. */
static int handshake(q_conn *c, char *err, size_t errlen)
{
    q_args a[3];
    const q_args *cmds[3];
    const char *what[3];
    size_t n = 0;
    if (c->addr.password[0]) {
        q_args_init(&a[n]);
        q_args_str(&a[n], "AUTH");
        if (c->addr.user[0])
            q_args_str(&a[n], c->addr.user);
        q_args_str(&a[n], c->addr.password);
        what[n++] = "AUTH";
    }
    if (c->addr.db) {
        q_args_init(&a[n]);
        q_args_str(&a[n], "SELECT");
        q_args_ll(&a[n], c->addr.db);
        what[n++] = "SELECT";
    }
    if (c->client_name[0]) {
        q_args_init(&a[n]);
        q_args_str(&a[n], "CLIENT");
        q_args_str(&a[n], "SETNAME");
        q_args_str(&a[n], c->client_name);
        what[n++] = "CLIENT SETNAME";
    }
    for (size_t i = 0; i < n; i++)
        cmds[i] = &a[i];
    redisReply *r[3];
    if (n == 0)
        return 0;
    if (exchange(c, n, cmds, r, err, errlen) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && r[i]->type == REDIS_REPLY_ERROR)
            rc = q_fail(err, errlen, "redis %s: %s failed: %s", c->where, what[i], r[i]->str);
        freeReplyObject(r[i]);
    }
    if (rc < 0)
        disconnect(c);
    return rc;
}

/* One connection attempt, handshake included. */
static int connect_once(q_conn *c, char *err, size_t errlen)
{
    struct timeval ctv = tv_ms(c->opts.connect_timeout_ms);
    redisContext *ctx = c->addr.is_unix ? redisConnectUnixWithTimeout(c->addr.path, ctv)
                                        : redisConnectWithTimeout(c->addr.host, c->addr.port, ctv);
    if (!ctx)
        return q_fail(err, errlen, "redis %s: out of memory", c->where);
    if (ctx->err || redisSetTimeout(ctx, tv_ms(c->opts.command_timeout_ms)) != REDIS_OK ||
        (!c->addr.is_unix && redisEnableKeepAlive(ctx) != REDIS_OK)) {
        ctx_fail(c->where, ctx, err, errlen);
        redisFree(ctx);
        return -1;
    }
    c->ctx = ctx;
    c->timeout_ms = c->opts.command_timeout_ms;
    return handshake(c, err, errlen);
}

/* Makes sure there is a live context, reconnecting with backoff for at
 * most reconnect_wait_ms. The backoff carries over between calls. */
static int ensure_connected(q_conn *c, char *err, size_t errlen)
{
    if (c->ctx)
        return 0;
    struct timespec give_up = ts_add_ms(mono_now(), c->opts.reconnect_wait_ms);
    for (;;) {
        if (q_conn_stopping(c))
            return q_fail(err, errlen, "redis %s: not reconnecting: shutting down", c->where);
        if (ts_before(give_up, c->next_try))
            return q_fail(err, errlen, "%s (reconnecting for %d ms)", c->last_err,
                          c->opts.reconnect_wait_ms);
        if (sleep_until(c, c->next_try) < 0)
            continue;
        if (connect_once(c, c->last_err, sizeof c->last_err) == 0) {
            c->delay_ms = c->opts.backoff_min_ms;
            atomic_fetch_add_explicit(&c->reconnects, 1, memory_order_relaxed);
            return 0;
        }
        c->next_try = ts_add_ms(mono_now(), jitter(c, c->delay_ms));
        c->delay_ms = c->delay_ms * 2 > c->opts.backoff_max_ms ? c->opts.backoff_max_ms
                                                               : c->delay_ms * 2;
    }
}

/* Copies `o` with defaults filled in, refusing values that cannot work. */
static int resolve_opts(q_conn *c, const q_conn_opts *o, char *err, size_t errlen)
{
    static const q_conn_opts none;
    if (!o)
        o = &none;
    c->opts = *o;
    int *ms[] = { &c->opts.connect_timeout_ms, &c->opts.command_timeout_ms,
                  &c->opts.reconnect_wait_ms, &c->opts.backoff_min_ms,
                  &c->opts.backoff_max_ms };
    const int def[] = { DEFAULT_CONNECT_MS, DEFAULT_COMMAND_MS, DEFAULT_RECONNECT_MS,
                        DEFAULT_BACKOFF_MIN_MS, DEFAULT_BACKOFF_MAX_MS };
    for (size_t i = 0; i < sizeof def / sizeof def[0]; i++) {
        if (*ms[i] < 0 || *ms[i] > 3600 * 1000)
            return q_fail(err, errlen, "redis: option %zu out of range (0..3600000 ms)", i);
        if (*ms[i] == 0)
            *ms[i] = def[i];
    }
    if (c->opts.backoff_max_ms < c->opts.backoff_min_ms)
        return q_fail(err, errlen, "redis: backoff_max_ms < backoff_min_ms");
    /* A delay longer than the wait would let a command give up on a stale
     * next_try without one attempt, even after the server came back. With
     * delays <= reconnect_wait_ms every command tries at least once. */
    if (c->opts.backoff_max_ms > c->opts.reconnect_wait_ms)
        c->opts.backoff_max_ms = c->opts.reconnect_wait_ms;
    if (c->opts.backoff_min_ms > c->opts.backoff_max_ms)
        c->opts.backoff_min_ms = c->opts.backoff_max_ms;
    const char *name = o->client_name ? o->client_name : "";
    size_t nlen = strlen(name);
    if (nlen >= sizeof c->client_name)
        return q_fail(err, errlen, "redis: client name longer than 64 bytes");
    for (size_t i = 0; i < nlen; i++)
        if (name[i] < '!' || name[i] > '~')
            return q_fail(err, errlen,
                          "redis: client name may only hold printable ASCII, no space");
    memcpy(c->client_name, name, nlen + 1);
    c->opts.client_name = c->client_name;
    return 0;
}

q_conn *q_conn_open(const q_redis_addr *addr, const q_conn_opts *opts, char *err,
                    size_t errlen)
{
    if (addr->is_unix ? !addr->path[0] : !addr->host[0]) {
        (void)q_fail(err, errlen, "redis: address has no %s", addr->is_unix ? "path" : "host");
        return NULL;
    }
    q_conn *c = calloc(1, sizeof *c);
    if (!c) {
        (void)q_fail(err, errlen, "redis: out of memory");
        return NULL;
    }
    c->addr = *addr;
    if (resolve_opts(c, opts, err, errlen) < 0) {
        free(c);
        return NULL;
    }
    if (addr->is_unix)
        (void)snprintf(c->where, sizeof c->where, "unix:%s", addr->path);
    else
        (void)snprintf(c->where, sizeof c->where, strchr(addr->host, ':') ? "[%s]:%d" : "%s:%d",
                       addr->host, addr->port);
    struct timespec now = mono_now();
    c->rng = ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)now.tv_sec ^ (uint64_t)getpid() ^
             (uint64_t)(uintptr_t)c;
    c->rng |= 1; /* xorshift must not start at 0 */
    c->delay_ms = c->opts.backoff_min_ms;
    if (connect_once(c, err, errlen) < 0) {
        q_conn_close(c);
        return NULL;
    }
    return c;
}

void q_conn_close(q_conn *c)
{
    if (!c)
        return;
    if (c->ctx)
        redisFree(c->ctx);
    free(c);
}

unsigned long q_conn_reconnects(const q_conn *c)
{
    return atomic_load_explicit(&c->reconnects, memory_order_relaxed);
}

unsigned long q_conn_round_trips(const q_conn *c)
{
    return atomic_load_explicit(&c->round_trips, memory_order_relaxed);
}

int q_conn_block_max_ms(const q_conn *c)
{
    int half = c->opts.command_timeout_ms / 2;
    return half < Q_BLOCK_MAX_MS ? half : Q_BLOCK_MAX_MS;
}

/* ------------------------------------------------------------ commands */

/* Turns an error reply into NULL + "redis: LABEL<error text>". */
redisReply *q_reply_or_error(redisReply *r, const char *label, char *err, size_t errlen)
{
    if (r->type != REDIS_REPLY_ERROR)
        return r;
    (void)q_fail(err, errlen, "redis: %s%.*s", label, (int)r->len, r->str);
    freeReplyObject(r);
    return NULL;
}

int q_pipeline(q_conn *c, size_t n, const q_args *const *cmds, redisReply **replies,
               char *err, size_t errlen)
{
    if (ensure_connected(c, err, errlen) < 0)
        return -1;
    return exchange(c, n, cmds, replies, err, errlen);
}

redisReply *q_command(q_conn *c, const q_args *a, char *err, size_t errlen)
{
    redisReply *r;
    if (q_pipeline(c, 1, &a, &r, err, errlen) < 0)
        return NULL;
    return q_reply_or_error(r, "", err, errlen);
}

int q_ping(q_conn *c, char *err, size_t errlen)
{
    q_args a;
    q_args_init(&a);
    q_args_str(&a, "PING");
    redisReply *r = q_command(c, &a, err, errlen);
    if (!r)
        return -1;
    int rc = r->type == REDIS_REPLY_STATUS ? 0 : q_fail(err, errlen, "redis: PING answered %d", r->type);
    freeReplyObject(r);
    return rc;
}
