/* prescan.c -- bounded, allocation-free walk of raw msgpack, and the gated
 * unpack built on it.
 *
 * DESIGN. The walk is iterative: a fixed stack (Q_DEPTH_MAX entries on the C
 * stack) holds, for each open container, how many children are still to be
 * read. Each item is classified from its type byte into a fixed-size scalar,
 * a length-prefixed body (str, bin, ext) or a container. A container's
 * children are counted as objects when its header is read, before msgpack-c
 * would allocate room for them, so max_objects bounds what msgpack-c can
 * allocate (at most max_objects msgpack_object_kv) whatever the bytes say.
 *
 * scan_object reads one whole object and leaves the containers that were
 * already open alone, so q_prescan is one scan_object over the input, and
 * q_prescan_lookup opens the top-level map itself and then reads its keys
 * and values one scan_object each, seeing each entry as it completes.
 *
 * Invariants: s->off never exceeds s->len and every read is preceded by a
 * check that the bytes exist; no arithmetic on a length from the input can
 * overflow (lengths are at most 32 bits, held in uint64_t, and compared with
 * what remains rather than added to an offset first).
 */
#include "queue/prescan.h"

#include <stdint.h>
#include <string.h>

#include "queue/err.h"

enum kind { K_FIXED, K_STR, K_BIN, K_EXT, K_ARRAY, K_MAP, K_INVALID };

/* What a type byte announces: for K_FIXED, n payload bytes follow; for the
 * others, a big-endian length or count of lenbytes bytes follows (ext adds
 * its type byte), or, when lenbytes is 0, n is that length or count. */
typedef struct head {
    enum kind kind;
    unsigned lenbytes;
    uint64_t n;
} head;

typedef struct scan {
    const unsigned char *p;
    size_t len;
    size_t off;                /* next unread byte */
    size_t objects;            /* objects declared so far */
    unsigned depth;            /* containers open */
    uint64_t left[Q_DEPTH_MAX]; /* children still to read, per open container */
    const q_bounds *b;
    char *err;
    size_t errlen;
} scan;

void q_bounds_default(q_bounds *b)
{
    b->max_job_bytes = (size_t)64 << 20;
    b->max_depth = 16;
    b->max_objects = 1000000;
    b->max_argv = 4096;
    b->max_files = 4096;
    b->max_env = 1024;
}

static head classify(unsigned t)
{
    if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3)
        return (head){K_FIXED, 0, 0};
    if (t <= 0x8f)
        return (head){K_MAP, 0, t & 0x0f};
    if (t <= 0x9f)
        return (head){K_ARRAY, 0, t & 0x0f};
    if (t <= 0xbf)
        return (head){K_STR, 0, t & 0x1f};
    if (t >= 0xc4 && t <= 0xc6)
        return (head){K_BIN, 1u << (t - 0xc4), 0};
    if (t >= 0xc7 && t <= 0xc9)
        return (head){K_EXT, 1u << (t - 0xc7), 0};
    if (t == 0xca || t == 0xcb)
        return (head){K_FIXED, 0, t == 0xca ? 4 : 8};
    if (t >= 0xcc && t <= 0xcf)
        return (head){K_FIXED, 0, 1u << (t - 0xcc)};
    if (t >= 0xd0 && t <= 0xd3)
        return (head){K_FIXED, 0, 1u << (t - 0xd0)};
    if (t >= 0xd4 && t <= 0xd8) /* fixext: type byte + 1..16 data bytes */
        return (head){K_FIXED, 0, 1 + (1u << (t - 0xd4))};
    if (t >= 0xd9 && t <= 0xdb)
        return (head){K_STR, 1u << (t - 0xd9), 0};
    if (t == 0xdc || t == 0xdd)
        return (head){K_ARRAY, 2u << (t - 0xdc), 0};
    if (t == 0xde || t == 0xdf)
        return (head){K_MAP, 2u << (t - 0xde), 0};
    return (head){K_INVALID, 0, 0}; /* 0xc1, never used */
}

static uint64_t be(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static int truncated(scan *s, size_t at)
{
    return q_fail(s->err, s->errlen, "not msgpack (truncated at byte %zu of %zu)", at, s->len);
}

/* Declares a container's children; returns 1 when it is left open. */
static int open_container(scan *s, size_t at, enum kind kind, uint64_t count)
{
    uint64_t children = kind == K_MAP ? 2 * count : count;
    size_t rest = s->len - s->off;

    if (children > rest && kind == K_MAP)
        return q_fail(s->err, s->errlen,
                      "map count %llu (%llu keys and values) at byte %zu exceeds the %zu "
                      "remaining bytes", (unsigned long long)count, (unsigned long long)children,
                      at, rest);
    if (children > rest)
        return q_fail(s->err, s->errlen,
                      "array count %llu at byte %zu exceeds the %zu remaining bytes",
                      (unsigned long long)count, at, rest);
    if (s->depth >= s->b->max_depth)
        return q_fail(s->err, s->errlen, "nesting deeper than %u at byte %zu",
                      s->b->max_depth, at);
    if (children > s->b->max_objects - s->objects)
        return q_fail(s->err, s->errlen, "more than %zu objects (at byte %zu)",
                      s->b->max_objects, at);
    s->objects += (size_t)children;
    if (children == 0)
        return 0;
    s->left[s->depth++] = children;
    return 1;
}

/* Reads the item at s->off. Returns 0 when it is complete, 1 when it opened
 * a container whose children come next, -1 on error. */
static int scan_item(scan *s)
{
    static const char *const body_name[] = {[K_STR] = "str", [K_BIN] = "bin", [K_EXT] = "ext"};
    size_t at = s->off;
    unsigned t = s->p[at];
    head h = classify(t);
    size_t hdr = h.lenbytes + (h.kind == K_EXT); /* ext: its type byte */
    uint64_t n;
    size_t rest;

    if (h.kind == K_INVALID)
        return q_fail(s->err, s->errlen, "not msgpack (type byte 0x%02x at byte %zu)", t, at);
    if (s->len - at - 1 < hdr)
        return truncated(s, at);
    n = h.lenbytes ? be(s->p + at + 1, h.lenbytes) : h.n;
    s->off = at + 1 + hdr;
    rest = s->len - s->off;
    switch (h.kind) {
    case K_FIXED:
        if (n > rest)
            return truncated(s, at);
        break;
    case K_STR:
    case K_BIN:
    case K_EXT:
        if (n > rest)
            return q_fail(s->err, s->errlen,
                          "%s of %llu bytes at byte %zu exceeds the %zu remaining bytes",
                          body_name[h.kind], (unsigned long long)n, at, rest);
        break;
    default:
        return open_container(s, at, h.kind, n);
    }
    s->off += (size_t)n;
    return 0;
}

/* Reads one whole object at s->off: an item and, when it opens a
 * container, everything inside. Containers open on entry are left alone:
 * the caller counts the object as one of their children. Returns 0, or -1
 * at the first item refused. */
static int scan_object(scan *s)
{
    unsigned base = s->depth;
    int r;

    do {
        if (s->off == s->len)
            return truncated(s, s->len);
        r = scan_item(s);
        if (r < 0)
            return -1;
        if (r == 0) /* complete: close every container it completes */
            while (s->depth > base && --s->left[s->depth - 1] == 0)
                s->depth--;
    } while (s->depth > base);
    return 0;
}

/* The checks made before the first byte is read. */
static int scan_start(scan *s)
{
    if (s->b->max_depth > Q_DEPTH_MAX)
        return q_fail(s->err, s->errlen, "bounds: max_depth %u exceeds %d", s->b->max_depth,
                      Q_DEPTH_MAX);
    if (s->len > s->b->max_job_bytes)
        return q_fail(s->err, s->errlen, "%zu bytes exceeds the %zu-byte limit", s->len,
                      s->b->max_job_bytes);
    if (s->b->max_objects < 1)
        return q_fail(s->err, s->errlen, "more than 0 objects (at byte 0)");
    s->objects = 1;
    return 0;
}

int q_prescan(const void *buf, size_t len, const q_bounds *b, char *err, size_t errlen)
{
    scan s = {.p = buf, .len = len, .b = b, .err = err, .errlen = errlen};

    if (scan_start(&s) < 0 || scan_object(&s) < 0)
        return -1;
    if (s.off != len)
        return q_fail(err, errlen, "trailing bytes after the object (byte %zu of %zu)",
                      s.off, len);
    return 0;
}

/* When the object read from byte `from` up to byte `to` is a str or bin,
 * points *p and *n at its body and returns true. */
static bool raw_bytes(const scan *s, size_t from, size_t to, const char **p, size_t *n)
{
    head h = classify(s->p[from]);

    if (h.kind != K_STR && h.kind != K_BIN)
        return false;
    *p = (const char *)s->p + from + 1 + h.lenbytes;
    *n = to - from - 1 - h.lenbytes;
    return true;
}

unsigned q_prescan_lookup(const void *buf, size_t len, const q_bounds *b, const char *name,
                          const char **val, size_t *vlen)
{
    scan s = {.p = buf, .len = len, .b = b}; /* no err: the reasons are not wanted */
    size_t nlen = strlen(name), key, value;
    unsigned hits = 0;
    uint64_t left;
    const char *p;
    size_t n;

    *val = NULL;
    *vlen = 0;
    if (scan_start(&s) < 0 || len == 0 || classify(s.p[0]).kind != K_MAP ||
        scan_item(&s) != 1)
        return 0; /* not a map, refused at its header, or empty */
    /* scan_object leaves the map open: its keys and values are counted here. */
    for (left = s.left[0]; left > 0; left -= 2) {
        key = s.off;
        if (scan_object(&s) < 0)
            break;
        value = s.off;
        bool match = raw_bytes(&s, key, value, &p, &n) && n == nlen && memcmp(p, name, n) == 0;
        hits += match;
        if (scan_object(&s) < 0)
            break;
        if (match && hits == 1 && raw_bytes(&s, value, s.off, &p, &n)) {
            *val = p;
            *vlen = n;
        }
    }
    return hits;
}

int q_unpack(const void *buf, size_t len, const q_bounds *b, msgpack_unpacked *out,
             char *err, size_t errlen)
{
    msgpack_unpack_return rc;
    size_t off = 0;

    msgpack_unpacked_init(out);
    if (q_prescan(buf, len, b, err, errlen) < 0)
        return -1;
    rc = msgpack_unpack_next(out, buf, len, &off);
    if (rc == MSGPACK_UNPACK_NOMEM_ERROR)
        return q_fail(err, errlen, "out of memory unpacking %zu bytes", len);
    if (rc != MSGPACK_UNPACK_SUCCESS || off != len)
        return q_fail(err, errlen, "not msgpack (rejected by msgpack-c at byte %zu of %zu)",
                      off, len);
    return 0;
}

bool q_bytes(const msgpack_object *o, const char **p, size_t *n)
{
    if (o->type == MSGPACK_OBJECT_STR) {
        *p = o->via.str.ptr;
        *n = o->via.str.size;
        return true;
    }
    if (o->type == MSGPACK_OBJECT_BIN) {
        *p = o->via.bin.ptr;
        *n = o->via.bin.size;
        return true;
    }
    return false;
}

unsigned q_map_fields(const msgpack_object_map *m, const char *const *names, size_t n,
                      const msgpack_object **slots)
{
    unsigned dups = 0;
    const char *p;
    size_t len;

    for (size_t i = 0; i < n; i++)
        slots[i] = NULL;
    for (uint32_t k = 0; k < m->size; k++) {
        if (!q_bytes(&m->ptr[k].key, &p, &len))
            continue;
        for (size_t i = 0; i < n; i++) {
            if (strlen(names[i]) != len || memcmp(names[i], p, len) != 0)
                continue;
            if (slots[i])
                dups |= 1u << i;
            else
                slots[i] = &m->ptr[k].val;
            break;
        }
    }
    return dups;
}

void q_nil_absent(const msgpack_object **slots, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (slots[i] && slots[i]->type == MSGPACK_OBJECT_NIL)
            slots[i] = NULL;
}

int q_whole_number(const msgpack_object *o, uint64_t *out)
{
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        *out = o->via.u64;
        return 0;
    }
    if (o->type != MSGPACK_OBJECT_FLOAT32 && o->type != MSGPACK_OBJECT_FLOAT64)
        return -1;
    double f = o->via.f64;
    /* 2^64 is exact as a double; NaN fails every comparison. */
    if (!(f >= 0.0 && f < 18446744073709551616.0) || f != (double)(uint64_t)f)
        return -1;
    *out = (uint64_t)f;
    return 0;
}
