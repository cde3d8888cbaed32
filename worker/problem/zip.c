/* zip.c -- a zip archive's members into memory (zip.h).
 *
 * The central directory is the truth: it is found from the end record,
 * every entry is checked (name, kind, method, sizes, ratio, the sum of
 * sizes) and its local header is matched to it (same name, data within
 * the archive and before the directory) before a single byte is
 * inflated. Then the members' data ranges, sorted by offset, must not
 * overlap: an archive whose members share compressed bytes is a bomb.
 * Inflation writes into a buffer of exactly the declared size and must
 * end there with the declared CRC.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "worker/common/text.h"
#include "worker/problem/material.h"
#include "worker/problem/zip.h"

#define EOCD_SIG 0x06054b50u
#define CEN_SIG 0x02014b50u
#define LOC_SIG 0x04034b50u
#define EOCD_LEN 22
#define CEN_LEN 46
#define LOC_LEN 30

typedef struct member {
    char *name;
    uint32_t crc;
    uint64_t csize, usize;
    uint64_t data;       /* offset of the compressed bytes */
    uint16_t method;
} member;

static uint16_t u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int fail(char *err, size_t errlen, const char *what, const char *member_name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t errlen, const char *what, const char *member_name, const char *fmt, ...)
{
    char q[WK_MAT_QUOTE_MAX], w[WK_MAT_QUOTE_MAX];
    int k = snprintf(err, errlen, "%s%s%s: ", wk_mat_quote(w, sizeof w, what), member_name ? ": " : "",
                     member_name ? wk_mat_quote(q, sizeof q, member_name) : "");
    if (k >= 0 && (size_t)k < errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The end record: the last signature whose comment reaches exactly the
 * archive's end. */
static long find_end(const unsigned char *b, size_t len)
{
    if (len < EOCD_LEN)
        return -1;
    size_t lo = len > EOCD_LEN + 65535 ? len - EOCD_LEN - 65535 : 0;
    for (size_t i = len - EOCD_LEN + 1; i-- > lo;)
        if (u32(b + i) == EOCD_SIG && i + EOCD_LEN + u16(b + i + 20) == len)
            return (long)i;
    return -1;
}

static int by_data(const void *x, const void *y)
{
    const member *a = x, *b = y;
    return a->data < b->data ? -1 : a->data > b->data;
}

static void free_members(member *m, size_t n)
{
    for (size_t i = 0; m && i < n; i++)
        free(m[i].name);
    free(m);
}

/* Entry i of the central directory at *at: checked, into m (n so far);
 * 1 when it is a folder (skipped). */
static int entry(const unsigned char *b, size_t len, size_t *at, size_t cd_end, uint64_t *total, uint64_t max,
                 const char *what, member *m, char *err, size_t errlen)
{
    const unsigned char *e = b + *at;
    if (cd_end - *at < CEN_LEN || u32(e) != CEN_SIG)
        return fail(err, errlen, what, NULL, "a broken central directory");
    uint16_t made = u16(e + 4), flags = u16(e + 8), method = u16(e + 10), nlen = u16(e + 28),
             xlen = u16(e + 30), clen = u16(e + 32), disk = u16(e + 34);
    uint32_t crc = u32(e + 16), csize = u32(e + 20), usize = u32(e + 24), ext = u32(e + 38), loc = u32(e + 42);
    if (cd_end - *at - CEN_LEN < (size_t)nlen + xlen + clen)
        return fail(err, errlen, what, NULL, "a broken central directory");
    char name[Q_PATH_MAX + 2], why[128];
    if (nlen == 0 || nlen > Q_PATH_MAX + 1)
        return fail(err, errlen, what, NULL, "a member name of %u bytes", nlen);
    memcpy(name, e + CEN_LEN, nlen);
    name[nlen] = 0;
    *at += CEN_LEN + (size_t)nlen + xlen + clen;
    if (strlen(name) != nlen)
        return fail(err, errlen, what, name, "a NUL in a member name");
    bool folder = name[nlen - 1] == '/';
    if (folder)
        name[nlen - 1] = 0;
    if (wk_mat_path_check(name, why, sizeof why) < 0)
        return fail(err, errlen, what, name, "%s", why);
    unsigned mode = ext >> 16;
    if ((made >> 8) == 3 && (mode & S_IFMT)) { /* made on Unix: the mode is in the high half (some
                                                 * writers give only permissions: a file) */
        if (S_ISLNK(mode))
            return fail(err, errlen, what, name, "a symbolic link (archives are read without links)");
        if (!S_ISREG(mode) && !S_ISDIR(mode))
            return fail(err, errlen, what, name, "neither a file nor a folder");
        folder = folder || S_ISDIR(mode);
    }
    if (folder)
        return 1;
    if (flags & 1)
        return fail(err, errlen, what, name, "encrypted");
    if (method != 0 && method != 8)
        return fail(err, errlen, what, name, "compressed with method %u (stored and deflate are read)", method);
    if (csize == 0xffffffffu || usize == 0xffffffffu || loc == 0xffffffffu || disk)
        return fail(err, errlen, what, name, "zip64 or multi-disk: not read");
    if (method == 0 && csize != usize)
        return fail(err, errlen, what, name, "stored, but its sizes differ");
    if (usize > (uint64_t)csize * WK_ZIP_RATIO + 1024)
        return fail(err, errlen, what, name, "would inflate %u bytes from %u (over %d:1, a bomb)", usize, csize,
                    WK_ZIP_RATIO);
    if (usize > max - *total)
        return fail(err, errlen, what, name, "the members together would pass %llu bytes",
                    (unsigned long long)max);
    *total += usize;
    const unsigned char *l = b + loc;
    if (loc > len || len - loc < LOC_LEN || u32(l) != LOC_SIG)
        return fail(err, errlen, what, name, "its local header is not where the directory says");
    uint64_t data = (uint64_t)loc + LOC_LEN + u16(l + 26) + u16(l + 28);
    if (u16(l + 26) != nlen || memcmp(l + LOC_LEN, e + CEN_LEN, nlen) != 0)
        return fail(err, errlen, what, name, "its local header names another member");
    if (data > len || len - data < csize)
        return fail(err, errlen, what, name, "its bytes pass the archive's end");
    *m = (member){ strdup(name), crc, csize, usize, data, method };
    return m->name ? 0 : fail(err, errlen, what, NULL, "out of memory");
}

static int inflate_member(const unsigned char *b, const member *m, const char *what, q_file *f, char *err,
                          size_t errlen)
{
    unsigned char *out = malloc(m->usize + 1);
    if (!out)
        return fail(err, errlen, what, m->name, "out of memory");
    if (m->method == 0) {
        memcpy(out, b + m->data, m->usize);
    } else {
        z_stream z = { 0 };
        if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
            free(out);
            return fail(err, errlen, what, m->name, "cannot start inflating");
        }
        z.next_in = (unsigned char *)(b + m->data);
        z.avail_in = (uInt)m->csize;
        z.next_out = out;
        z.avail_out = (uInt)m->usize + 1; /* a byte past the declared size shows a lie */
        int rc = inflate(&z, Z_FINISH);
        uint64_t got = z.total_out;
        inflateEnd(&z);
        if (rc != Z_STREAM_END || got != m->usize) {
            free(out);
            return fail(err, errlen, what, m->name, "%s",
                        got > m->usize ? "inflates past its declared size" : "broken compressed data");
        }
    }
    if (crc32(crc32(0, NULL, 0), out, (uInt)m->usize) != m->crc) {
        free(out);
        return fail(err, errlen, what, m->name, "its CRC does not match");
    }
    out[m->usize] = 0;
    *f = (q_file){ m->name, out, m->usize };
    return 0;
}

int wk_zip_read(const void *buf, size_t len, const char *what, uint64_t max_bytes, wk_zip *out, char *err,
                size_t errlen)
{
    const unsigned char *b = buf;
    memset(out, 0, sizeof *out);
    long eo = find_end(b, len);
    if (eo < 0)
        return fail(err, errlen, what, NULL, "not a zip archive (no end record)");
    const unsigned char *e = b + eo;
    uint16_t disk = u16(e + 4), cd_disk = u16(e + 6), here = u16(e + 8), count = u16(e + 10);
    uint32_t cd_size = u32(e + 12), cd_off = u32(e + 16);
    if (disk || cd_disk || here != count || count == 0xffff || cd_off == 0xffffffffu)
        return fail(err, errlen, what, NULL, "zip64 or multi-disk: not read");
    if (count > WK_ZIP_MEMBERS)
        return fail(err, errlen, what, NULL, "%u members (at most %d)", count, WK_ZIP_MEMBERS);
    if ((uint64_t)cd_off + cd_size > (uint64_t)eo)
        return fail(err, errlen, what, NULL, "a central directory past its end record");
    member *m = calloc(count + 1u, sizeof *m);
    if (!m)
        return fail(err, errlen, what, NULL, "out of memory");
    size_t at = cd_off, n = 0, cd_end = (size_t)cd_off + cd_size;
    uint64_t total = 0;
    for (unsigned i = 0; i < count; i++) {
        int rc = entry(b, cd_off, &at, cd_end, &total, max_bytes, what, &m[n], err, errlen);
        if (rc < 0) {
            free_members(m, n);
            return -1;
        }
        n += rc == 0;
    }
    qsort(m, n, sizeof *m, by_data);
    for (size_t i = 1; i < n; i++)
        if (m[i - 1].data + m[i - 1].csize > m[i].data) {
            fail(err, errlen, what, m[i].name, "its bytes overlap another member's (a zip bomb)");
            free_members(m, n);
            return -1;
        }
    out->files = calloc(n + 1, sizeof *out->files);
    if (!out->files) {
        free_members(m, n);
        return fail(err, errlen, what, NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (inflate_member(b, &m[i], what, &out->files[i], err, errlen) < 0) {
            for (size_t k = i; k < n; k++)
                free(m[k].name);
            free(m);
            wk_zip_free(out);
            return -1;
        }
        out->n++;
    }
    free(m); /* the names now belong to out->files */
    return 0;
}

void wk_zip_free(wk_zip *z)
{
    for (size_t i = 0; z->files && i < z->n; i++) {
        free(z->files[i].name);
        free((void *)z->files[i].data);
    }
    free(z->files);
    memset(z, 0, sizeof *z);
}
