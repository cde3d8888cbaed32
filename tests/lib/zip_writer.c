/* zip_writer.c -- zip archives for tests (zip_writer.h): local headers,
 * the data (raw deflate by zlib, or stored), the central directory, the
 * end record. */
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "tests/lib/zip_writer.h"

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void add(buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void le(buf *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) {
        unsigned char c = (unsigned char)(v >> (8 * i));
        add(b, &c, 1);
    }
}

static unsigned char *deflated(const void *data, size_t len, size_t *out)
{
    z_stream z = { 0 };
    deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&z, (uLong)len) + 16;
    unsigned char *p = malloc(cap);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)len;
    z.next_out = p;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    *out = z.total_out;
    deflateEnd(&z);
    return p;
}

unsigned char *tl_zip_build(const tl_zip_member *m, size_t n, size_t *len)
{
    buf b = { 0 }, cd = { 0 };
    size_t *offs = calloc(n + 1, sizeof *offs), *csz = calloc(n + 1, sizeof *csz);
    uint32_t *crcs = calloc(n + 1, sizeof *crcs);
    for (size_t i = 0; i < n; i++) {
        size_t clen = m[i].len;
        unsigned char *c = m[i].deflate ? deflated(m[i].data, m[i].len, &clen) : NULL;
        crcs[i] = (uint32_t)crc32(crc32(0, NULL, 0), m[i].data, (uInt)m[i].len) ^ (m[i].bad_crc ? 1u : 0u);
        uint16_t method = m[i].method ? m[i].method : m[i].deflate ? 8 : 0;
        uint32_t usize = m[i].usize ? m[i].usize : (uint32_t)m[i].len;
        size_t nl = strlen(m[i].name);
        if (m[i].same_data_as > 0) {
            offs[i] = offs[m[i].same_data_as - 1];
            csz[i] = csz[m[i].same_data_as - 1];
        } else {
            offs[i] = b.n;
            csz[i] = clen;
            le(&b, 0x04034b50, 4);
            le(&b, 20, 2);
            le(&b, m[i].flags, 2);
            le(&b, method, 2);
            le(&b, 0, 4);
            le(&b, crcs[i], 4);
            le(&b, clen, 4);
            le(&b, usize, 4);
            le(&b, nl, 2);
            le(&b, 0, 2);
            add(&b, m[i].name, nl);
            add(&b, c ? c : m[i].data, clen);
        }
        free(c);
        le(&cd, 0x02014b50, 4);
        le(&cd, m[i].mode ? 0x031e : 0x0014, 2);
        le(&cd, 20, 2);
        le(&cd, m[i].flags, 2);
        le(&cd, method, 2);
        le(&cd, 0, 4);
        le(&cd, crcs[i], 4);
        le(&cd, csz[i], 4);
        le(&cd, usize, 4);
        le(&cd, nl, 2);
        le(&cd, 0, 2);
        le(&cd, 0, 2);
        le(&cd, 0, 2);
        le(&cd, 0, 2);
        le(&cd, (uint64_t)m[i].mode << 16, 4);
        le(&cd, offs[i], 4);
        add(&cd, m[i].name, nl);
    }
    size_t cd_off = b.n;
    add(&b, cd.p, cd.n);
    le(&b, 0x06054b50, 4);
    le(&b, 0, 2);
    le(&b, 0, 2);
    le(&b, n, 2);
    le(&b, n, 2);
    le(&b, cd.n, 4);
    le(&b, cd_off, 4);
    le(&b, 0, 2);
    free(cd.p);
    free(offs);
    free(csz);
    free(crcs);
    *len = b.n;
    return b.p;
}
