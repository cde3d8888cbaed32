/* codec_util.c -- packing helpers and error-line quoting shared by the job
 * and result codecs (see codec_util.h).
 *
 * Invariants: a q_enc_ function either packs its whole value or fails with
 * one line in err; none allocates outside the packer's buffer. q_quote
 * writes at most Q_QUOTE_LEN bytes, NUL included, whatever the input.
 */
#include "queue/codec_util.h"
#include "queue/result.h"

#include <stdlib.h>
#include <string.h>

#include "queue/err.h"
#include "queue/prescan.h"

void q_enc_init(q_enc *e, msgpack_sbuffer *out, const char *what, char *err, size_t errlen)
{
    msgpack_packer_init(&e->pk, out, msgpack_sbuffer_write);
    e->what = what;
    e->err = err;
    e->errlen = errlen;
    e->refs = NULL;
}

int q_enc_packed(q_enc *e, int rc)
{
    return rc < 0 ? q_fail(e->err, e->errlen, "%s: out of memory", e->what) : 0;
}

int q_enc_fits(q_enc *e, size_t n)
{
    if (n > UINT32_MAX)
        return q_fail(e->err, e->errlen, "%s: %zu items or bytes exceed msgpack's 32 bits",
                      e->what, n);
    return 0;
}

int q_enc_map(q_enc *e, size_t n)
{
    return q_enc_fits(e, n) < 0 ? -1 : q_enc_packed(e, msgpack_pack_map(&e->pk, n));
}

int q_enc_array(q_enc *e, size_t n)
{
    return q_enc_fits(e, n) < 0 ? -1 : q_enc_packed(e, msgpack_pack_array(&e->pk, n));
}

int q_enc_str(q_enc *e, const void *p, size_t n)
{
    return q_enc_fits(e, n) < 0 ? -1 : q_enc_packed(e, msgpack_pack_str_with_body(&e->pk, p, n));
}

int q_enc_cstr(q_enc *e, const char *s)
{
    return q_enc_str(e, s, strlen(s));
}

int q_enc_bin(q_enc *e, const void *p, size_t n)
{
    if (q_enc_fits(e, n) < 0)
        return -1;
    q_refs *r = e->refs;
    if (!r || n < Q_REF_MIN || r->n == Q_REFS_MAX)
        return q_enc_packed(e, msgpack_pack_bin_with_body(&e->pk, p, n));
    /* The header here, the body where it already is. */
    if (q_enc_packed(e, msgpack_pack_bin(&e->pk, (uint32_t)n)) < 0)
        return -1;
    r->ref[r->n].at = ((const msgpack_sbuffer *)e->pk.data)->size;
    r->ref[r->n].p = p;
    r->ref[r->n++].len = n;
    return 0;
}

int q_enc_uint(q_enc *e, const char *key, uint64_t v)
{
    return q_enc_cstr(e, key) < 0 ? -1 : q_enc_packed(e, msgpack_pack_uint64(&e->pk, v));
}

int q_enc_bool(q_enc *e, const char *key, bool v)
{
    if (q_enc_cstr(e, key) < 0)
        return -1;
    return q_enc_packed(e, v ? msgpack_pack_true(&e->pk) : msgpack_pack_false(&e->pk));
}

int q_enc_strings(q_enc *e, const char *key, const char *const *v, size_t n)
{
    if (q_enc_cstr(e, key) < 0 || q_enc_array(e, n) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (q_enc_cstr(e, v[i]) < 0)
            return -1;
    return 0;
}

const char *q_quote(char out[Q_QUOTE_LEN], const char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, i;

    out[o++] = '"';
    for (i = 0; i < n && i < Q_QUOTE_SHOWN; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

char *q_dup_bytes(const char *p, size_t n)
{
    char *s = malloc(n + 1);

    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

int q_unpack_result(const void *buf, size_t len, msgpack_unpacked *out, char *err, size_t errlen)
{
    char why[Q_ERR_LEN];
    q_bounds b;
    q_bounds_default(&b);
    b.max_job_bytes = Q_RESULT_BYTES_MAX;
    if (q_unpack(buf, len, &b, out, why, sizeof why) < 0)
        return q_fail(err, errlen, "result: %s", why);
    return 0;
}
