/* dbus_msg.c -- the two D-Bus messages of a scope request: the
 * StartTransientUnit call we send systemd, and the reply we read back.
 *
 * Only what that takes of the wire format (the D-Bus specification,
 * "Message Format"): we write little-endian whatever the host, and read
 * either byte order. A message is a 16-byte fixed header, an array of
 * (code, variant) header fields padded to 8, then the body; every value is
 * aligned to its size from the message's start.
 *
 * INVARIANTS. Nothing here allocates. The writer never writes past its
 * buffer (a message that does not fit is refused whole); the reader checks
 * every length against what is left before it reads, and takes only the
 * few header types a header field may have.
 */
#include <stdio.h>
#include <string.h>

#include "sandbox/internal.h"

/* ---- writing ---------------------------------------------------------- */

typedef struct wbuf {
    uint8_t *b;
    size_t size, len;
    bool full;
} wbuf;

static void put(wbuf *w, const void *p, size_t n)
{
    if (w->full || n > w->size - w->len) {
        w->full = true;
        return;
    }
    memcpy(w->b + w->len, p, n);
    w->len += n;
}

static void pad(wbuf *w, size_t align)
{
    static const uint8_t zero[8];
    put(w, zero, (align - w->len % align) % align);
}

static void le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put_u8(wbuf *w, uint8_t v)
{
    put(w, &v, 1);
}

static void put_u32(wbuf *w, uint32_t v)
{
    uint8_t b[4];
    pad(w, 4);
    le32(b, v);
    put(w, b, 4);
}

/* s and o: a u32 length, the bytes, a NUL. */
static void put_str(wbuf *w, const char *s)
{
    put_u32(w, (uint32_t)strlen(s));
    put(w, s, strlen(s) + 1);
}

/* g: a one-byte length, the bytes, a NUL. */
static void put_sig(wbuf *w, const char *s)
{
    put_u8(w, (uint8_t)strlen(s));
    put(w, s, strlen(s) + 1);
}

/* An array: its u32 length, then padding to its elements' alignment,
 * which the length does not count. array_end fills the length in. */
static size_t array_begin(wbuf *w, size_t elem_align, size_t *start)
{
    put_u32(w, 0);
    size_t at = w->len - 4;
    pad(w, elem_align);
    *start = w->len;
    return at;
}

static void array_end(wbuf *w, size_t at, size_t start)
{
    if (!w->full)
        le32(w->b + at, (uint32_t)(w->len - start));
}

/* A header field (code, variant of one basic type). */
static void field(wbuf *w, uint8_t code, const char *sig, const char *value)
{
    pad(w, 8);
    put_u8(w, code);
    put_sig(w, sig);
    if (sig[0] == 'g')
        put_sig(w, value);
    else
        put_str(w, value);
}

/* A property of the a(sv) array whose value is a string or a boolean. */
static void prop_str(wbuf *w, const char *name, const char *value)
{
    pad(w, 8);
    put_str(w, name);
    put_sig(w, "s");
    put_str(w, value);
}

long dbm_start_scope(uint8_t *buf, size_t size, uint32_t serial, const char *unit, const char *description)
{
    wbuf w = { buf, size, 0, false };
    const uint8_t fixed[4] = { 'l', DBM_METHOD_CALL, 0, 1 };
    put(&w, fixed, 4);
    put_u32(&w, 0); /* the body's length, filled in below */
    put_u32(&w, serial);
    size_t start, at = array_begin(&w, 8, &start);
    field(&w, 1, "o", "/org/freedesktop/systemd1");
    field(&w, 2, "s", "org.freedesktop.systemd1.Manager");
    field(&w, 3, "s", "StartTransientUnit");
    field(&w, 6, "s", "org.freedesktop.systemd1");
    field(&w, 8, "g", "ssa(sv)a(sa(sv))");
    array_end(&w, at, start);
    pad(&w, 8);
    size_t body = w.len;
    put_str(&w, unit);
    put_str(&w, "fail");
    at = array_begin(&w, 8, &start);
    /* PIDs [0]: "the sender of this message". systemd takes the sender's
     * process from the kernel (the peer credentials of this connection),
     * so the process it moves is the one that connected, in systemd's own
     * PID namespace, whatever namespace the sender is in. */
    pad(&w, 8);
    put_str(&w, "PIDs");
    put_sig(&w, "au");
    put_u32(&w, 4);
    put_u32(&w, 0);
    pad(&w, 8);
    put_str(&w, "Delegate");
    put_sig(&w, "b");
    put_u32(&w, 1);
    prop_str(&w, "CollectMode", "inactive-or-failed");
    prop_str(&w, "Description", description);
    array_end(&w, at, start);
    at = array_begin(&w, 8, &start); /* no auxiliary units */
    array_end(&w, at, start);
    if (w.full)
        return -1;
    le32(buf + 4, (uint32_t)(w.len - body));
    return (long)w.len;
}

/* ---- reading ---------------------------------------------------------- */

typedef struct rbuf {
    const uint8_t *b;
    size_t len, pos;
    bool be; /* big-endian message */
} rbuf;

static uint32_t get32(const rbuf *r, size_t at)
{
    const uint8_t *p = r->b + at;
    if (r->be)
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int skip_to(rbuf *r, size_t align)
{
    size_t to = r->pos + (align - r->pos % align) % align;
    if (to > r->len)
        return -1;
    r->pos = to;
    return 0;
}

static int read_u32(rbuf *r, uint32_t *v)
{
    if (skip_to(r, 4) < 0 || r->len - r->pos < 4)
        return -1;
    *v = get32(r, r->pos);
    r->pos += 4;
    return 0;
}

/* A string of n bytes at pos, NUL-terminated in the message: *s points
 * into it. */
static int read_bytes(rbuf *r, size_t n, const char **s)
{
    if (r->len - r->pos < n + 1 || r->b[r->pos + n] != 0 || memchr(r->b + r->pos, 0, n))
        return -1;
    *s = (const char *)r->b + r->pos;
    r->pos += n + 1;
    return 0;
}

static int read_str(rbuf *r, const char **s)
{
    uint32_t n;
    return read_u32(r, &n) < 0 ? -1 : read_bytes(r, n, s);
}

static int read_sig(rbuf *r, const char **s)
{
    if (r->pos >= r->len)
        return -1;
    uint8_t n = r->b[r->pos++];
    return read_bytes(r, n, s);
}

long dbm_message_size(const uint8_t *hdr)
{
    if ((hdr[0] != 'l' && hdr[0] != 'B') || hdr[3] != 1)
        return -1;
    rbuf r = { hdr, DBM_FIXED, 0, hdr[0] == 'B' };
    uint64_t fields = get32(&r, 12), body = get32(&r, 4);
    uint64_t total = (DBM_FIXED + fields + 7) / 8 * 8 + body;
    return total > DBM_MESSAGE_MAX ? -1 : (long)total;
}

int dbm_parse(const uint8_t *msg, size_t len, dbm_reply *out)
{
    memset(out, 0, sizeof *out);
    if (len < DBM_FIXED)
        return -1;
    rbuf r = { msg, len, DBM_FIXED, msg[0] == 'B' };
    out->type = msg[1];
    size_t end = DBM_FIXED + (size_t)get32(&r, 12);
    if (end > len)
        return -1;
    const char *body_sig = "";
    while (r.pos < end) {
        const char *sig, *s;
        uint32_t u;
        if (skip_to(&r, 8) < 0 || r.pos >= end)
            return -1;
        uint8_t code = msg[r.pos++];
        if (read_sig(&r, &sig) < 0 || strlen(sig) != 1)
            return -1;
        switch (sig[0]) {
        case 'u':
            if (read_u32(&r, &u) < 0)
                return -1;
            if (code == 5)
                out->reply_serial = u;
            break;
        case 's':
        case 'o':
            if (read_str(&r, &s) < 0)
                return -1;
            if (code == 4)
                snprintf(out->error, sizeof out->error, "%s", s);
            break;
        case 'g':
            if (read_sig(&r, &s) < 0)
                return -1;
            if (code == 8)
                body_sig = s;
            break;
        case 'y':
            if (r.pos >= end)
                return -1;
            r.pos++;
            break;
        default:
            return -1;
        }
        if (r.pos > end)
            return -1;
    }
    r.pos = end;
    if (skip_to(&r, 8) < 0)
        return -1;
    if (len - r.pos < get32(&r, 4))
        return -1;
    r.len = r.pos + get32(&r, 4);
    if (out->type == DBM_ERROR && body_sig[0] == 's') {
        const char *s;
        if (read_str(&r, &s) < 0)
            return -1;
        snprintf(out->message, sizeof out->message, "%s", s);
    }
    return 0;
}
