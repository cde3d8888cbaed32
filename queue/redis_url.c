/* redis_url.c -- q_redis_url_parse: a Redis URL into a q_redis_addr (see
 * redis.h for the accepted forms).
 *
 * DESIGN. Each part of the URL has its own parser working on a pointer and
 * a length, so no part is copied before it is checked; percent-decoding
 * writes straight into the fixed fields of the address.
 *
 * INVARIANTS
 *   - Messages never echo a password: only the scheme, the port, the
 *     database and parameter names are quoted back, each cut short.
 *   - Every field is NUL-terminated within its array, or the parse fails.
 */
#include <limits.h>
#include <string.h>

#include "queue/err.h"
#include "queue/redis.h"

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
        return q_fail(err, errlen, "redis URL: user without a password (write user:password@)");
    size_t ulen = (size_t)(colon - s);
    if (pct_decode(s, ulen, out->user, sizeof out->user) < 0)
        return q_fail(err, errlen, "redis URL: bad or too long user name");
    if (pct_decode(colon + 1, n - ulen - 1, out->password, sizeof out->password) < 0)
        return q_fail(err, errlen, "redis URL: bad or too long password");
    if (out->password[0] == '\0')
        return q_fail(err, errlen, "redis URL: empty password");
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
            return q_fail(err, errlen, "redis URL: unclosed '[' in host");
        host = s + 1;
        hlen = (size_t)(close - host);
        if (close + 1 < s + n) {
            if (close[1] != ':')
                return q_fail(err, errlen, "redis URL: junk after ']' in host");
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
        return q_fail(err, errlen, "redis URL: missing host");
    if (hlen >= sizeof out->host)
        return q_fail(err, errlen, "redis URL: host name too long");
    memcpy(out->host, host, hlen);
    out->host[hlen] = '\0';
    if (port && parse_num(port, (size_t)(s + n - port), 1, 65535, &out->port) < 0)
        return q_fail(err, errlen, "redis URL: bad port \"%.*s\" (1..65535)",
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
        return q_fail(err, errlen, "redis URL: bad database number \"%.20s\"", slash + 1);
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
            return q_fail(err, errlen, "redis URL: bad database number \"%.*s\"", (int)vlen, v);
    } else if (klen == 4 && !memcmp(s, "user", 4)) {
        if (pct_decode(v, vlen, out->user, sizeof out->user) < 0)
            return q_fail(err, errlen, "redis URL: bad or too long user name");
    } else if (klen == 8 && !memcmp(s, "password", 8)) {
        if (pct_decode(v, vlen, out->password, sizeof out->password) < 0 || vlen == 0)
            return q_fail(err, errlen, "redis URL: bad, empty or too long password");
    } else {
        return q_fail(err, errlen, "redis URL: unknown parameter \"%.*s\" (db, user, password)",
                      (int)(klen > 32 ? 32 : klen), s);
    }
    return 0;
}

/* After "unix://": /absolute/path[?params]. */
static int parse_unix(const char *s, q_redis_addr *out, char *err, size_t errlen)
{
    out->is_unix = true;
    if (s[0] != '/')
        return q_fail(err, errlen, "redis URL: unix socket path must be absolute (unix:///path)");
    const char *q = strchr(s, '?');
    size_t plen = q ? (size_t)(q - s) : strlen(s);
    if (plen >= sizeof out->path)
        return q_fail(err, errlen, "redis URL: unix socket path longer than %zu bytes",
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
        return q_fail(err, errlen, "redis URL: user without a password");
    return 0;
}

int q_redis_url_parse(const char *url, q_redis_addr *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->port = 6379;
    if (!url || !url[0])
        return q_fail(err, errlen, "redis URL: empty");
    if (!strncmp(url, "redis://", 8))
        return parse_tcp(url + 8, out, err, errlen);
    if (!strncmp(url, "unix://", 7))
        return parse_unix(url + 7, out, err, errlen);
    if (!strncmp(url, "rediss://", 9))
        return q_fail(err, errlen, "redis URL: TLS (rediss://) is not supported by hiredis 0.14; "
                      "use a unix socket or a tunnel");
    const char *sep = strstr(url, "://");
    if (!sep)
        return q_fail(err, errlen, "redis URL: no scheme (expected redis://host:port/db "
                      "or unix:///path)");
    /* Only the scheme is echoed: the rest may hold a password. */
    return q_fail(err, errlen, "redis URL: unknown scheme \"%.*s\" (expected redis:// or unix://)",
                  (int)(sep - url > 16 ? 16 : sep - url), url);
}
