/* text.c -- bytes a program or a job chose, made safe to show: base64,
 * JSON strings, what a terminal may print as text, escaped (text.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/common/text.h"

void wk_base64(FILE *f, const void *data, size_t len)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    char out[4096];
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? tab[v & 63] : '=';
        if (o + 4 > sizeof out) {
            fwrite(out, 1, o, f);
            o = 0;
        }
    }
    fwrite(out, 1, o, f);
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), 0 when there is none. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned char c = p[0];
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (!n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

size_t wk_text_char(const char *p, size_t n)
{
    unsigned char c = (unsigned char)p[0], b[5] = { 0 };
    if (c < 0x80)
        return c >= 0x20 && c != 0x7f;
    memcpy(b, p, n < 4 ? n : 4);
    size_t k = utf8_len(b);
    return b[0] == 0xc2 && b[1] < 0xa0 ? 0 : k; /* C1 controls: U+0080..U+009F */
}

/* The next piece of p[0..n) as shown: a character to copy (*len of it), or
 * a byte to escape (returns false). */
static bool shown_as_is(const char *p, size_t n, bool lines, size_t *len)
{
    if (lines && (p[0] == '\n' || p[0] == '\t'))
        return *len = 1, true;
    *len = wk_text_char(p, n);
    if (*len)
        return true;
    *len = 1;
    return false;
}

void wk_text_write(FILE *f, const void *data, size_t n, bool lines)
{
    const char *p = data;
    size_t start = 0, i = 0, k;
    if (!n)
        return; /* data may be NULL then */
    while (i < n) {
        if (shown_as_is(p + i, n - i, lines, &k)) {
            i += k;
            continue;
        }
        fwrite(p + start, 1, i - start, f);
        fprintf(f, "\\x%02x", (unsigned char)p[i]);
        start = ++i;
    }
    fwrite(p + start, 1, n - start, f);
}

size_t wk_text_escape(char *out, size_t size, const char *s)
{
    size_t n = strlen(s), o = 0, k;
    if (!size)
        return 0;
    for (size_t i = 0; i < n; i += k) {
        bool as_is = shown_as_is(s + i, n - i, false, &k);
        size_t need = as_is ? k : 4;
        if (o + need >= size)
            break;
        if (as_is)
            memcpy(out + o, s + i, k);
        else
            snprintf(out + o, 5, "\\x%02x", (unsigned char)s[i]);
        o += need;
    }
    out[o] = 0;
    return o;
}

void wk_text_output(FILE *f, const void *p, size_t n)
{
    if (!n)
        return;
    if (isatty(fileno(f)))
        wk_text_write(f, p, n, true);
    else
        fwrite(p, 1, n, f);
}

size_t wk_utf8_bad(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t i = 0;
    while (i < n) {
        if (u[i] >= 0x01 && u[i] < 0x80) {
            i++;
            continue;
        }
        if (u[i] == 0)
            return i;
        unsigned char b[5] = { 0 };
        memcpy(b, u + i, n - i < 4 ? n - i : 4);
        size_t k = utf8_len(b);
        if (!k)
            return i;
        i += k;
    }
    return n;
}

void wk_vformat_safe(char *out, size_t size, const char *fmt, va_list ap)
{
    char raw[1024];
    vsnprintf(raw, sizeof raw, fmt, ap);
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)raw; *p && o + 5 < size; p++) {
        if (*p >= 0x20 && *p < 0x7f)
            out[o++] = (char)*p;
        else
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", *p);
    }
    if (size)
        out[o < size ? o : size - 1] = 0;
}

/* Any bytes in, valid JSON out: a byte that is not part of well-formed
 * UTF-8 (a file name a program chose, say) becomes U+FFFD. */
void wk_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t n;
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else if (*p < 0x80)
            fputc(*p, f);
        else if ((n = utf8_len(p)) != 0) {
            fwrite(p, 1, n, f);
            p += n - 1;
        } else
            fputs("\\ufffd", f);
    }
    fputc('"', f);
}
