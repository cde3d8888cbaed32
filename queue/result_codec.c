/* result_codec.c -- encode a result map; decode one for clients and tests.
 *
 * DESIGN. A result and its interactor share seven fields (status,
 * exit_code, signal, stderr, cpu_us, wall_us, memory_bytes), so both are
 * read and written through q_proc_result: the main run is viewed as one
 * while encoding and gathered into one while decoding. Decoding goes through
 * q_unpack and copies into a single block sized before the first copy: the
 * bytes copied are distinct regions of the input, so they total at most its
 * length, plus one NUL per string and the isolation pointer array.
 *
 * Invariants: a decode allocates exactly one block (priv) and every pointer
 * in the result points into it; an encode that fails leaves the output
 * buffer as it found it.
 */
#include "queue/result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/codec_util.h"
#include "queue/err.h"
#include "queue/grade.h"
#include "queue/prescan.h"

/* Result keys; the interactor map uses the first PROC_KEYS of them. */
enum { F_STATUS, F_EXIT, F_SIGNAL, F_STDERR, F_CPU, F_WALL, F_MEM, PROC_KEYS,
       F_ID = PROC_KEYS, F_STDOUT, F_STDOUT_TR, F_STDERR_TR, F_WORKER, F_ATTEMPT,
       F_ERROR, F_ISOLATION, F_INTERACTOR, F_TRANSCRIPT, RESULT_KEYS };
static const char *const result_keys[RESULT_KEYS] = {
    "status", "exit_code", "signal", "stderr", "cpu_us", "wall_us", "memory_bytes",
    "id", "stdout", "stdout_truncated", "stderr_truncated", "worker", "attempt",
    "error", "isolation", "interactor", "transcript",
};

/* NULs for the strings and buffers outside isolation, with room to spare. */
#define FIXED_COPIES 16

/* Encoding. */

/* A str, or nil for NULL. */
static int put_str(q_enc *e, const char *key, const char *s)
{
    if (q_enc_cstr(e, key) < 0)
        return -1;
    return s ? q_enc_cstr(e, s) : q_enc_packed(e, msgpack_pack_nil(&e->pk));
}

static int put_bin(q_enc *e, const char *key, const void *p, size_t n)
{
    /* Checked here too, to name the field: q_enc_bin's line cannot. */
    if (n > UINT32_MAX)
        return q_fail(e->err, e->errlen, "%s: %zu bytes exceed msgpack's 32 bits", key, n);
    return q_enc_cstr(e, key) < 0 ? -1 : q_enc_bin(e, p, n);
}

static int put_int(q_enc *e, const char *key, bool has, int64_t v)
{
    if (q_enc_cstr(e, key) < 0)
        return -1;
    return q_enc_packed(e, has ? msgpack_pack_int64(&e->pk, v) : msgpack_pack_nil(&e->pk));
}

/* The PROC_KEYS entries of p, not a map header. */
static int put_proc(q_enc *e, const q_proc_result *p)
{
    if (put_str(e, "status", p->status) < 0 ||
        put_int(e, "exit_code", p->has_exit_code, p->exit_code) < 0 ||
        put_int(e, "signal", p->has_signal, p->signal) < 0 ||
        put_bin(e, "stderr", p->stderr_buf, p->stderr_len) < 0)
        return -1;
    if (q_enc_uint(e, "cpu_us", p->cpu_us) < 0 || q_enc_uint(e, "wall_us", p->wall_us) < 0)
        return -1;
    return q_enc_uint(e, "memory_bytes", p->memory_bytes);
}

static q_proc_result main_proc(const q_result *r)
{
    return (q_proc_result){r->status, r->has_exit_code, r->exit_code, r->has_signal, r->signal,
                           r->stderr_buf, r->stderr_len, r->cpu_us, r->wall_us, r->memory_bytes};
}

static int put_result(q_enc *e, const q_result *r)
{
    q_proc_result m = main_proc(r);
    size_t n = RESULT_KEYS - 2 + r->has_interactor + (r->transcript != NULL) + q_grade_result_entries(r->grade);

    if (q_enc_map(e, n) < 0 || put_str(e, "id", r->id) < 0 || put_proc(e, &m) < 0)
        return -1;
    if (put_bin(e, "stdout", r->stdout_buf, r->stdout_len) < 0 ||
        q_enc_bool(e, "stdout_truncated", r->stdout_truncated) < 0 ||
        q_enc_bool(e, "stderr_truncated", r->stderr_truncated) < 0)
        return -1;
    if (put_str(e, "worker", r->worker) < 0 || q_enc_uint(e, "attempt", r->attempt) < 0 ||
        put_str(e, "error", r->error) < 0 ||
        q_enc_strings(e, "isolation", r->isolation, r->nisolation) < 0)
        return -1;
    if (r->has_interactor && (q_enc_cstr(e, "interactor") < 0 || q_enc_map(e, PROC_KEYS) < 0 ||
                              put_proc(e, &r->interactor) < 0))
        return -1;
    if (r->transcript && put_bin(e, "transcript", r->transcript, r->transcript_len) < 0)
        return -1;
    return q_grade_result_put(e, r->grade);
}

static int check_proc(const q_proc_result *p, const char *pre, char *err, size_t errlen)
{
    if (!p->status)
        return q_fail(err, errlen, "%sstatus: NULL", pre);
    if (!p->stderr_buf && p->stderr_len)
        return q_fail(err, errlen, "%sstderr: NULL with %zu bytes", pre, p->stderr_len);
    return 0;
}

/* What put_result dereferences must be there; the rest is the worker's. */
static int check_result(const q_result *r, char *err, size_t errlen)
{
    q_proc_result m = main_proc(r);

    if (!r->id || !r->worker)
        return q_fail(err, errlen, "%s: NULL", r->id ? "worker" : "id");
    if (check_proc(&m, "", err, errlen) < 0 ||
        (r->has_interactor && check_proc(&r->interactor, "interactor.", err, errlen) < 0))
        return -1;
    if (!r->stdout_buf && r->stdout_len)
        return q_fail(err, errlen, "stdout: NULL with %zu bytes", r->stdout_len);
    if (r->nisolation > UINT32_MAX || (r->nisolation && !r->isolation))
        return q_fail(err, errlen, "isolation: NULL or too long (%zu)", r->nisolation);
    for (size_t i = 0; i < r->nisolation; i++)
        if (!r->isolation[i])
            return q_fail(err, errlen, "isolation[%zu]: NULL", i);
    return 0;
}

int q_result_encode(const q_result *r, msgpack_sbuffer *out, char *err, size_t errlen)
{
    size_t start = out->size;
    q_enc e;

    if (check_result(r, err, errlen) < 0)
        return -1;
    q_enc_init(&e, out, "result", err, errlen);
    if (put_result(&e, r) < 0) {
        out->size = start;
        return -1;
    }
    return 0;
}

int q_result_encode_refs(const q_result *r, msgpack_sbuffer *out, q_refs *refs, char *err, size_t errlen)
{
    size_t start = out->size;
    q_enc e;
    refs->n = 0;
    if (check_result(r, err, errlen) < 0)
        return -1;
    q_enc_init(&e, out, "result", err, errlen);
    e.refs = refs;
    if (put_result(&e, r) < 0) {
        out->size = start;
        refs->n = 0;
        return -1;
    }
    return 0;
}

int q_refs_iov(const msgpack_sbuffer *out, const q_refs *refs, struct iovec *iov)
{
    int k = 0;
    size_t from = 0;
    for (int i = 0; i < refs->n; i++) {
        if (refs->ref[i].at > from)
            iov[k++] = (struct iovec){ out->data + from, refs->ref[i].at - from };
        iov[k++] = (struct iovec){ (void *)refs->ref[i].p, refs->ref[i].len };
        from = refs->ref[i].at;
    }
    if (out->size > from)
        iov[k++] = (struct iovec){ out->data + from, out->size - from };
    return k;
}

/* Decoding. */

typedef struct dec {
    char *base; /* the result's one block */
    size_t used, cap;
    const char *pre; /* "" or "interactor." */
    char *err;
    size_t errlen;
} dec;

static int dfail(dec *d, const char *key, const char *why)
{
    return q_fail(d->err, d->errlen, "%s%s: %s", d->pre, key, why);
}

/* A NUL-terminated copy of p[0..n) in the block. */
static char *copy(dec *d, const char *key, const char *p, size_t n)
{
    char *s;

    if (n >= d->cap - d->used) {
        (void)dfail(d, key, "no room left (the block is mis-sized)");
        return NULL;
    }
    s = d->base + d->used;
    memcpy(s, p, n);
    s[n] = '\0';
    d->used += n + 1;
    return s;
}

/* A string field: str or bin without NUL bytes; nil gives NULL when
 * nil_ok. Absent leaves *out alone. */
static int get_text(dec *d, const msgpack_object *o, const char *key, bool nil_ok,
                    const char **out)
{
    const char *p;
    size_t n;

    if (!o || (nil_ok && o->type == MSGPACK_OBJECT_NIL))
        return 0;
    if (!q_bytes(o, &p, &n))
        return dfail(d, key, nil_ok ? "not a string or nil" : "not a string");
    if (memchr(p, '\0', n))
        return dfail(d, key, "contains a NUL byte");
    *out = copy(d, key, p, n);
    return *out ? 0 : -1;
}

static int get_bytes(dec *d, const msgpack_object *o, const char *key, const void **out,
                     size_t *len)
{
    const char *p;

    if (!o)
        return 0;
    if (!q_bytes(o, &p, len))
        return dfail(d, key, "not bytes (bin or str)");
    *out = copy(d, key, p, *len);
    return *out ? 0 : -1;
}

static int get_int(dec *d, const msgpack_object *o, const char *key, bool *has, int64_t *v)
{
    if (!o || o->type == MSGPACK_OBJECT_NIL)
        return 0;
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        *v = o->via.i64;
    else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= INT64_MAX)
        *v = (int64_t)o->via.u64;
    else
        return dfail(d, key, "not a 64-bit integer or nil");
    *has = true;
    return 0;
}

static int get_uint(dec *d, const msgpack_object *o, const char *key, uint64_t *v)
{
    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return dfail(d, key, "not a non-negative integer");
    *v = o->via.u64;
    return 0;
}

static int get_bool(dec *d, const msgpack_object *o, const char *key, bool *v)
{
    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_BOOLEAN)
        return dfail(d, key, "not a boolean");
    *v = o->via.boolean;
    return 0;
}

/* v holds the values of result_keys[0..PROC_KEYS). */
static int get_proc(dec *d, const msgpack_object *const *v, q_proc_result *p)
{
    if (!v[F_STATUS])
        return dfail(d, "status", "missing");
    if (get_text(d, v[F_STATUS], "status", false, &p->status) < 0 ||
        get_int(d, v[F_EXIT], "exit_code", &p->has_exit_code, &p->exit_code) < 0 ||
        get_int(d, v[F_SIGNAL], "signal", &p->has_signal, &p->signal) < 0 ||
        get_bytes(d, v[F_STDERR], "stderr", &p->stderr_buf, &p->stderr_len) < 0)
        return -1;
    if (get_uint(d, v[F_CPU], "cpu_us", &p->cpu_us) < 0 ||
        get_uint(d, v[F_WALL], "wall_us", &p->wall_us) < 0)
        return -1;
    return get_uint(d, v[F_MEM], "memory_bytes", &p->memory_bytes);
}

static int get_interactor(dec *d, const msgpack_object *o, q_result *r)
{
    const msgpack_object *v[PROC_KEYS];
    unsigned dups;
    int rc;

    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_MAP)
        return dfail(d, "interactor", "not a map");
    dups = q_map_fields(&o->via.map, result_keys, PROC_KEYS, v);
    if (dups)
        return q_fail(d->err, d->errlen, "interactor: duplicate key \"%s\"",
                      result_keys[__builtin_ctz(dups)]);
    d->pre = "interactor.";
    rc = get_proc(d, v, &r->interactor);
    d->pre = "";
    r->has_interactor = true;
    return rc;
}

/* isolation's pointer array is the first thing in the block (alloc_block),
 * so it is aligned as malloc aligns. */
static int get_isolation(dec *d, const msgpack_object *o, q_result *r)
{
    const char **v = (const char **)(void *)d->base;
    char key[32];

    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return dfail(d, "isolation", "not an array");
    for (size_t i = 0; i < o->via.array.size; i++) {
        (void)snprintf(key, sizeof key, "isolation[%zu]", i);
        if (get_text(d, &o->via.array.ptr[i], key, false, &v[i]) < 0)
            return -1;
    }
    r->isolation = v;
    r->nisolation = o->via.array.size;
    return 0;
}

static void set_main_proc(q_result *r, const q_proc_result *m)
{
    r->status = m->status;
    r->has_exit_code = m->has_exit_code;
    r->exit_code = m->exit_code;
    r->has_signal = m->has_signal;
    r->signal = m->signal;
    r->stderr_buf = m->stderr_buf;
    r->stderr_len = m->stderr_len;
    r->cpu_us = m->cpu_us;
    r->wall_us = m->wall_us;
    r->memory_bytes = m->memory_bytes;
}

static int get_result(dec *d, const msgpack_object *const *v, q_result *r)
{
    q_proc_result m = {0};

    /* What the encoder requires, so a decoded result can be encoded again. */
    if (!v[F_ID] || !v[F_STATUS] || !v[F_WORKER])
        return dfail(d, !v[F_ID] ? "id" : !v[F_STATUS] ? "status" : "worker", "missing");
    if (get_text(d, v[F_ID], "id", false, &r->id) < 0 || get_proc(d, v, &m) < 0)
        return -1;
    set_main_proc(r, &m);
    if (get_bytes(d, v[F_STDOUT], "stdout", &r->stdout_buf, &r->stdout_len) < 0 ||
        get_bool(d, v[F_STDOUT_TR], "stdout_truncated", &r->stdout_truncated) < 0 ||
        get_bool(d, v[F_STDERR_TR], "stderr_truncated", &r->stderr_truncated) < 0)
        return -1;
    if (get_text(d, v[F_WORKER], "worker", false, &r->worker) < 0 ||
        get_uint(d, v[F_ATTEMPT], "attempt", &r->attempt) < 0 ||
        get_text(d, v[F_ERROR], "error", true, &r->error) < 0)
        return -1;
    if (get_isolation(d, v[F_ISOLATION], r) < 0 || get_interactor(d, v[F_INTERACTOR], r) < 0)
        return -1;
    return get_bytes(d, v[F_TRANSCRIPT], "transcript", &r->transcript, &r->transcript_len);
}

/* Sizes and allocates the block, isolation's pointer array first: every
 * other copy is a distinct region of the input plus a NUL. */
static int alloc_block(dec *d, const msgpack_object *iso, size_t len, q_result *r)
{
    size_t niso = iso && iso->type == MSGPACK_OBJECT_ARRAY ? iso->via.array.size : 0;

    d->used = niso * sizeof(char *);
    d->cap = d->used + len + niso + FIXED_COPIES;
    d->base = malloc(d->cap);
    if (!d->base)
        return q_fail(d->err, d->errlen, "result: out of memory for %zu bytes", d->cap);
    r->priv = d->base;
    return 0;
}

static int decode_root(dec *d, const msgpack_object *root, size_t len, q_result *r)
{
    const msgpack_object *v[RESULT_KEYS];
    unsigned dups;

    if (root->type != MSGPACK_OBJECT_MAP)
        return q_fail(d->err, d->errlen, "result: not a map");
    dups = q_map_fields(&root->via.map, result_keys, RESULT_KEYS, v);
    if (dups)
        return q_fail(d->err, d->errlen, "result: duplicate key \"%s\"",
                      result_keys[__builtin_ctz(dups)]);
    if (alloc_block(d, v[F_ISOLATION], len, r) < 0)
        return -1;
    return get_result(d, v, r);
}

int q_result_decode(const void *buf, size_t len, q_result *out, char *err, size_t errlen)
{
    msgpack_unpacked up;
    dec d = {.pre = "", .err = err, .errlen = errlen};
    memset(out, 0, sizeof *out);
    int rc = q_unpack_result(buf, len, &up, err, errlen);
    if (rc == 0)
        rc = decode_root(&d, &up.data, len, out);
    msgpack_unpacked_destroy(&up);
    if (rc < 0)
        q_result_free(out);
    return rc;
}

void q_result_free(q_result *r)
{
    free(r->priv);
    memset(r, 0, sizeof *r);
}
