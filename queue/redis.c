/* redis.c -- URL parsing, connection, reconnect with backoff, commands and
 * scripts over hiredis 0.14 (see redis.h for the contract).
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
#include "queue/redis.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SCRIPTS_MAX 16
#define DEFAULT_CONNECT_MS 2000
#define DEFAULT_COMMAND_MS 5000
#define DEFAULT_RECONNECT_MS 5000
#define DEFAULT_BACKOFF_MIN_MS 50
#define DEFAULT_BACKOFF_MAX_MS 2000
#define STOP_POLL_MS 20 /* how soon a sleeping reconnect notices the stop flag */

struct q_conn {
    q_redis_addr addr;
    q_conn_opts opts;          /* defaults resolved; client_name points below */
    char client_name[65];
    char where[300];           /* "127.0.0.1:6379" or "unix:/path", for messages */
    redisContext *ctx;         /* NULL while disconnected */
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

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---------------------------------------------------------------- URLs */

/* Reads a decimal number of 1..10 digits in [min, max] from s[0..n). */
static int parse_num(const char *s, size_t n, long min, long max, int *out)
{
    long v = 0;
    if (n == 0 || n > 10)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Percent-decodes s[0..n) into out[cap]; fails on a bad escape, a NUL byte
 * (it would cut the credential short) or overflow. */
static int pct_decode(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int ch = (unsigned char)s[i];
        if (ch == '%') {
            if (i + 2 >= n)
                return -1;
            int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
            if (hi < 0 || lo < 0)
                return -1;
            ch = hi * 16 + lo;
            i += 2;
        }
        if (ch == 0 || o + 1 >= cap)
            return -1;
        out[o++] = (char)ch;
    }
    out[o] = '\0';
    return 0;
}

/* "user:password" of redis://user:password@host; a missing user means the
 * password alone (AUTH password), a missing password is refused. */
static int parse_userinfo(const char *s, size_t n, q_redis_addr *out, char *err,
                          size_t errlen)
{
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return fail(err, errlen, "redis URL: user without a password (write user:password@)");
    size_t ulen = (size_t)(colon - s);
    if (pct_decode(s, ulen, out->user, sizeof out->user) < 0)
        return fail(err, errlen, "redis URL: bad or too long user name");
    if (pct_decode(colon + 1, n - ulen - 1, out->password, sizeof out->password) < 0)
        return fail(err, errlen, "redis URL: bad or too long password");
    if (out->password[0] == '\0')
        return fail(err, errlen, "redis URL: empty password");
    return 0;
}

/* "host[:port]" or "[v6addr][:port]". */
static int parse_hostport(const char *s, size_t n, q_redis_addr *out, char *err,
                          size_t errlen)
{
    const char *host = s, *port = NULL;
    size_t hlen = n;
    if (n > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close)
            return fail(err, errlen, "redis URL: unclosed '[' in host");
        host = s + 1;
        hlen = (size_t)(close - host);
        if (close + 1 < s + n) {
            if (close[1] != ':')
                return fail(err, errlen, "redis URL: junk after ']' in host");
            port = close + 2;
        }
    } else {
        const char *colon = memchr(s, ':', n);
        if (colon) {
            hlen = (size_t)(colon - s);
            port = colon + 1;
        }
    }
    if (hlen == 0)
        return fail(err, errlen, "redis URL: missing host");
    if (hlen >= sizeof out->host)
        return fail(err, errlen, "redis URL: host name too long");
    memcpy(out->host, host, hlen);
    out->host[hlen] = '\0';
    if (port && parse_num(port, (size_t)(s + n - port), 1, 65535, &out->port) < 0)
        return fail(err, errlen, "redis URL: bad port \"%.*s\" (1..65535)",
                    (int)(s + n - port), port);
    return 0;
}

/* After "redis://": [userinfo@]hostport[/db]. */
static int parse_tcp(const char *s, q_redis_addr *out, char *err, size_t errlen)
{
    const char *slash = strchr(s, '/');
    size_t alen = slash ? (size_t)(slash - s) : strlen(s);
    const char *at = NULL;
    for (size_t i = 0; i < alen; i++) /* the last '@': a raw one may be in the password */
        if (s[i] == '@')
            at = s + i;
    if (at && parse_userinfo(s, (size_t)(at - s), out, err, errlen) < 0)
        return -1;
    const char *hp = at ? at + 1 : s;
    if (parse_hostport(hp, (size_t)(s + alen - hp), out, err, errlen) < 0)
        return -1;
    if (slash && slash[1] != '\0' &&
        parse_num(slash + 1, strlen(slash + 1), 0, INT_MAX, &out->db) < 0)
        return fail(err, errlen, "redis URL: bad database number \"%.20s\"", slash + 1);
    return 0;
}

/* One "key=value" of unix:///path?key=value&... */
static int parse_param(const char *s, size_t n, q_redis_addr *out, char *err,
                       size_t errlen)
{
    const char *eq = memchr(s, '=', n);
    size_t klen = eq ? (size_t)(eq - s) : n;
    const char *v = eq ? eq + 1 : s + n;
    size_t vlen = (size_t)(s + n - v);
    if (klen == 2 && !memcmp(s, "db", 2)) {
        if (parse_num(v, vlen, 0, INT_MAX, &out->db) < 0)
            return fail(err, errlen, "redis URL: bad database number \"%.*s\"", (int)vlen, v);
    } else if (klen == 4 && !memcmp(s, "user", 4)) {
        if (pct_decode(v, vlen, out->user, sizeof out->user) < 0)
            return fail(err, errlen, "redis URL: bad or too long user name");
    } else if (klen == 8 && !memcmp(s, "password", 8)) {
        if (pct_decode(v, vlen, out->password, sizeof out->password) < 0 || vlen == 0)
            return fail(err, errlen, "redis URL: bad, empty or too long password");
    } else {
        return fail(err, errlen, "redis URL: unknown parameter \"%.*s\" (db, user, password)",
                    (int)(klen > 32 ? 32 : klen), s);
    }
    return 0;
}

/* After "unix://": /absolute/path[?params]. */
static int parse_unix(const char *s, q_redis_addr *out, char *err, size_t errlen)
{
    out->is_unix = true;
    if (s[0] != '/')
        return fail(err, errlen, "redis URL: unix socket path must be absolute (unix:///path)");
    const char *q = strchr(s, '?');
    size_t plen = q ? (size_t)(q - s) : strlen(s);
    if (plen >= sizeof out->path)
        return fail(err, errlen, "redis URL: unix socket path longer than %zu bytes",
                    sizeof out->path - 1);
    memcpy(out->path, s, plen);
    out->path[plen] = '\0';
    for (const char *p = q; p; ) {
        const char *start = p + 1, *amp = strchr(start, '&');
        size_t n = amp ? (size_t)(amp - start) : strlen(start);
        if (parse_param(start, n, out, err, errlen) < 0)
            return -1;
        p = amp;
    }
    if (out->user[0] && !out->password[0])
        return fail(err, errlen, "redis URL: user without a password");
    return 0;
}

int q_redis_url_parse(const char *url, q_redis_addr *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->port = 6379;
    if (!url || !url[0])
        return fail(err, errlen, "redis URL: empty");
    if (!strncmp(url, "redis://", 8))
        return parse_tcp(url + 8, out, err, errlen);
    if (!strncmp(url, "unix://", 7))
        return parse_unix(url + 7, out, err, errlen);
    if (!strncmp(url, "rediss://", 9))
        return fail(err, errlen, "redis URL: TLS (rediss://) is not supported by hiredis 0.14; "
                    "use a unix socket or a tunnel");
    const char *sep = strstr(url, "://");
    if (!sep)
        return fail(err, errlen, "redis URL: no scheme (expected redis://host:port/db "
                    "or unix:///path)");
    /* Only the scheme is echoed: the rest may hold a password. */
    return fail(err, errlen, "redis URL: unknown scheme \"%.*s\" (expected redis:// or unix://)",
                (int)(sep - url > 16 ? 16 : sep - url), url);
}

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
    (void)fail(err, errlen, "redis %s: %s", where, text);
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
        (void)fail(err, errlen, "redis: timeout after %d ms", c->opts.command_timeout_ms);
    else if (c->ctx->err == REDIS_ERR_EOF ||
             (c->ctx->err == REDIS_ERR_IO && (saved_errno == EPIPE || saved_errno == ECONNRESET)))
        /* EOF on read, or EPIPE/ECONNRESET on write (a unix socket's peer
         * closing shows up as EPIPE): the same event, one message. */
        (void)fail(err, errlen, "redis %s: connection closed by server", c->where);
    else
        ctx_fail(c->where, c->ctx, err, errlen);
    disconnect(c);
}

/* Writes `n` commands and reads their `n` replies: one round trip on the
 * live context. On failure no reply is left allocated. */
static int exchange(q_conn *c, size_t n, const q_args *const *cmds, redisReply **replies,
                    char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if (cmds[i]->overflow)
            return fail(err, errlen, "redis: more than %d arguments or %d integers in a command",
                        Q_ARGS_MAX, Q_ARGS_NUMS);
    for (size_t i = 0; i < n; i++) {
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
            rc = fail(err, errlen, "redis %s: %s failed: %s", c->where, what[i], r[i]->str);
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
        return fail(err, errlen, "redis %s: out of memory", c->where);
    if (ctx->err || redisSetTimeout(ctx, tv_ms(c->opts.command_timeout_ms)) != REDIS_OK ||
        (!c->addr.is_unix && redisEnableKeepAlive(ctx) != REDIS_OK)) {
        ctx_fail(c->where, ctx, err, errlen);
        redisFree(ctx);
        return -1;
    }
    c->ctx = ctx;
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
            return fail(err, errlen, "redis %s: not reconnecting: shutting down", c->where);
        if (ts_before(give_up, c->next_try))
            return fail(err, errlen, "%s (reconnecting for %d ms)", c->last_err,
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
            return fail(err, errlen, "redis: option %zu out of range (0..3600000 ms)", i);
        if (*ms[i] == 0)
            *ms[i] = def[i];
    }
    if (c->opts.backoff_max_ms < c->opts.backoff_min_ms)
        return fail(err, errlen, "redis: backoff_max_ms < backoff_min_ms");
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
        return fail(err, errlen, "redis: client name longer than 64 bytes");
    for (size_t i = 0; i < nlen; i++)
        if (name[i] < '!' || name[i] > '~')
            return fail(err, errlen, "redis: client name may only hold printable ASCII, no space");
    memcpy(c->client_name, name, nlen + 1);
    c->opts.client_name = c->client_name;
    return 0;
}

q_conn *q_conn_open(const q_redis_addr *addr, const q_conn_opts *opts, char *err,
                    size_t errlen)
{
    if (addr->is_unix ? !addr->path[0] : !addr->host[0]) {
        (void)fail(err, errlen, "redis: address has no %s", addr->is_unix ? "path" : "host");
        return NULL;
    }
    q_conn *c = calloc(1, sizeof *c);
    if (!c) {
        (void)fail(err, errlen, "redis: out of memory");
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

void q_args_init(q_args *a)
{
    a->argc = 0;
    a->nnums = 0;
    a->overflow = false;
}

void q_args_bin(q_args *a, const void *p, size_t n)
{
    if (a->argc == Q_ARGS_MAX) {
        a->overflow = true;
        return;
    }
    a->argv[a->argc] = n ? p : ""; /* hiredis needs a pointer even for "" */
    a->len[a->argc++] = n;
}

void q_args_str(q_args *a, const char *s)
{
    q_args_bin(a, s, strlen(s));
}

void q_args_ll(q_args *a, long long v)
{
    if (a->nnums == Q_ARGS_NUMS) {
        a->overflow = true;
        return;
    }
    char *buf = a->nums[a->nnums++];
    q_args_bin(a, buf, (size_t)snprintf(buf, sizeof a->nums[0], "%lld", v));
}

/* Appends every argument of `src` (pointers only: `src` must outlive `dst`). */
static void args_append(q_args *dst, const q_args *src)
{
    dst->overflow |= src->overflow;
    for (int i = 0; i < src->argc; i++)
        q_args_bin(dst, src->argv[i], src->len[i]);
}

/* Turns an error reply into NULL + "redis: LABEL<error text>". */
static redisReply *reply_or_error(redisReply *r, const char *label, char *err, size_t errlen)
{
    if (r->type != REDIS_REPLY_ERROR)
        return r;
    (void)fail(err, errlen, "redis: %s%.*s", label, (int)r->len, r->str);
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
    return reply_or_error(r, "", err, errlen);
}

/* The connection's cache slot for `s`, created empty on first use. */
static int script_slot(q_conn *c, const q_script *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < c->nscripts; i++)
        if (c->scripts[i].script == s)
            return (int)i;
    if (c->nscripts == SCRIPTS_MAX)
        return fail(err, errlen, "redis: more than %d scripts on one connection", SCRIPTS_MAX);
    c->scripts[c->nscripts].script = s;
    c->scripts[c->nscripts].sha[0] = '\0';
    return (int)c->nscripts++;
}

/* SCRIPT LOAD + EVAL pipelined: runs the script once and caches it on the
 * server and its SHA1 here, in one round trip. */
static redisReply *load_and_eval(q_conn *c, int slot, int nkeys, const q_args *a,
                                 const char *label, char *err, size_t errlen)
{
    const char *body = c->scripts[slot].script->body;
    q_args load, ev;
    q_args_init(&load);
    q_args_str(&load, "SCRIPT");
    q_args_str(&load, "LOAD");
    q_args_str(&load, body);
    q_args_init(&ev);
    q_args_str(&ev, "EVAL");
    q_args_str(&ev, body);
    q_args_ll(&ev, nkeys);
    args_append(&ev, a);
    const q_args *cmds[2] = { &load, &ev };
    redisReply *r[2];
    if (q_pipeline(c, 2, cmds, r, err, errlen) < 0)
        return NULL;
    if (r[0]->type == REDIS_REPLY_STRING && r[0]->len == 40)
        memcpy(c->scripts[slot].sha, r[0]->str, 41);
    freeReplyObject(r[0]);
    return reply_or_error(r[1], label, err, errlen);
}

redisReply *q_eval(q_conn *c, const q_script *s, int nkeys, const q_args *a, char *err,
                   size_t errlen)
{
    char label[64];
    (void)snprintf(label, sizeof label, "script %s: ", s->name);
    if (nkeys < 0 || nkeys > a->argc) {
        (void)fail(err, errlen, "redis: %s%d keys for %d arguments", label, nkeys, a->argc);
        return NULL;
    }
    int slot = script_slot(c, s, err, errlen);
    if (slot < 0)
        return NULL;
    if (!c->scripts[slot].sha[0])
        return load_and_eval(c, slot, nkeys, a, label, err, errlen);
    q_args cmd;
    q_args_init(&cmd);
    q_args_str(&cmd, "EVALSHA");
    q_args_str(&cmd, c->scripts[slot].sha);
    q_args_ll(&cmd, nkeys);
    args_append(&cmd, a);
    redisReply *r;
    if (q_pipeline(c, 1, (const q_args *const[]){ &cmd }, &r, err, errlen) < 0)
        return NULL;
    /* NOSCRIPT: Redis restarted or ran SCRIPT FLUSH; the script did not run. */
    if (r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "NOSCRIPT", 8)) {
        freeReplyObject(r);
        return load_and_eval(c, slot, nkeys, a, label, err, errlen);
    }
    return reply_or_error(r, label, err, errlen);
}
