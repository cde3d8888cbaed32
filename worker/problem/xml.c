/* xml.c -- a bounded XML reader (xml.h).
 *
 * One pass over the bytes, which are first checked whole for NUL and
 * ill-formed UTF-8 (so every later step may treat them as text). Markup
 * is matched by hand: a start tag with its attributes, an end tag against
 * the name on top of the stack, and the three things skipped (comments,
 * processing instructions, the XML declaration, whose encoding is
 * checked). Any "<!" that is not a comment or CDATA is a declaration and
 * refused: without a DTD no entity but the five predefined exists, so
 * nothing ever expands beyond a character reference's few bytes.
 *
 * Scratch buffers (attribute values, text) grow to the largest tag or
 * text seen and are reused; the names of open elements are copied into a
 * fixed stack, so events may point at them.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "worker/common/text.h"
#include "worker/problem/xml.h"

typedef struct xr {
    const char *b;
    size_t n, at;
    char names[WK_XML_DEPTH][WK_XML_NAME_MAX + 1];
    const char *path[WK_XML_DEPTH];
    int depth;
    bool child;                  /* the element on top had a child */
    char *text;                  /* its own text so far */
    size_t tlen, tcap;
    char *vals;                  /* a start tag's decoded values */
    size_t vcap;
    wk_xml_attr attrs[WK_XML_ATTRS];
    size_t offs[WK_XML_ATTRS];   /* values' offsets in vals while it may move */
    char anames[WK_XML_ATTRS][WK_XML_NAME_MAX + 1];
    size_t line, line_at;        /* lines counted up to offset line_at */
    char *err;
    size_t errlen;
} xr;

/* "line L, column C: why" for the byte at offset `at`. Returns -1. */
static int fail_at(xr *x, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(xr *x, size_t at, const char *fmt, ...)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < x->n; i++) {
        if (x->b[i] == '\n')
            line++, col = 1;
        else if (((unsigned char)x->b[i] & 0xc0) != 0x80)
            col++;
    }
    int k = snprintf(x->err, x->errlen, "line %zu, column %zu: ", line, col);
    if (k >= 0 && (size_t)k < x->errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(x->err + k, x->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool starts(const xr *x, const char *s)
{
    size_t k = strlen(s);
    return x->n - x->at >= k && memcmp(x->b + x->at, s, k) == 0;
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(xr *x)
{
    while (x->at < x->n && space(x->b[x->at]))
        x->at++;
}

/* Moves past the next `end` ("-->", "?>", "]]>"); -1 when there is none. */
static int past(xr *x, const char *end, const char *what)
{
    size_t start = x->at;
    const char *e = memmem(x->b + x->at, x->n - x->at, end, strlen(end));
    if (!e)
        return fail_at(x, start, "%s not closed", what);
    x->at = (size_t)(e - x->b) + strlen(end);
    return 0;
}

static bool name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static bool name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* A name at x->at into out (WK_XML_NAME_MAX + 1). */
static int read_name(xr *x, char *out, const char *what)
{
    size_t s = x->at;
    if (s >= x->n || !name_start((unsigned char)x->b[s]))
        return fail_at(x, s, "%s: a name was expected", what);
    while (x->at < x->n && name_char((unsigned char)x->b[x->at]))
        x->at++;
    size_t k = x->at - s;
    if (k > WK_XML_NAME_MAX)
        return fail_at(x, s, "%s: a name over %d bytes", what, WK_XML_NAME_MAX);
    memcpy(out, x->b + s, k);
    out[k] = 0;
    return 0;
}

static int grow(xr *x, char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 256, most = x->n + 1;
    c = c > most ? most : c; /* decoding never lengthens: the document bounds it */
    c = c < need ? need : c;
    char *p = realloc(*buf, c);
    if (!p)
        return fail_at(x, x->at, "out of memory");
    *buf = p;
    *cap = c;
    return 0;
}

/* Appends code point cp as UTF-8 to out at *o. */
static void put_utf8(char *out, size_t *o, uint32_t cp)
{
    if (cp < 0x80) {
        out[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*o)++] = (char)(0xc0 | cp >> 6);
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*o)++] = (char)(0xe0 | cp >> 12);
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*o)++] = (char)(0xf0 | cp >> 18);
        out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*o)++] = (char)(0x80 | (cp & 0x3f));
    }
}

/* The reference at b[i] ('&') decoded onto out at *o (never longer than
 * the reference); returns its length, or 0 after fail_at. */
static size_t reference(xr *x, size_t i, size_t end, char *out, size_t *o)
{
    static const struct { const char *name; char c; } pre[] = {
        { "lt;", '<' }, { "gt;", '>' }, { "amp;", '&' }, { "quot;", '"' }, { "apos;", '\'' },
    };
    const char *p = x->b + i + 1;
    size_t left = end - i - 1;
    for (size_t k = 0; k < 5; k++) {
        size_t l = strlen(pre[k].name);
        if (left >= l && memcmp(p, pre[k].name, l) == 0) {
            out[(*o)++] = pre[k].c;
            return l + 1;
        }
    }
    if (left >= 1 && p[0] == '#') {
        bool hex = left >= 2 && p[1] == 'x';
        size_t k = hex ? 2 : 1, d0 = k;
        uint32_t cp = 0;
        for (; k < left && k < d0 + 8; k++) {
            char c = p[k];
            unsigned v = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                       : hex && c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                       : hex && c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 99;
            if (v == 99)
                break;
            cp = cp * (hex ? 16 : 10) + v;
        }
        if (k == d0 || k >= left || p[k] != ';' || cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            fail_at(x, i, "a character reference that is not a character (or a NUL)");
            return 0;
        }
        put_utf8(out, o, cp);
        return k + 2;
    }
    size_t k = 0;
    while (k < left && k < 32 && p[k] != ';' && !space(p[k]) && p[k] != '<')
        k++;
    fail_at(x, i, "the entity &%.*s; is none of XML's five (no DTD is read, so none other exists)", (int)k, p);
    return 0;
}

/* Decodes b[s..e) into out at *o (room for e - s more bytes); attribute
 * values have their blanks normalized. -1 after fail_at. */
static int decode(xr *x, size_t s, size_t e, char *out, size_t *o, bool attr)
{
    for (size_t i = s; i < e;) {
        char c = x->b[i];
        if (c == '&') {
            size_t k = reference(x, i, e, out, o);
            if (!k)
                return -1;
            i += k;
        } else if (attr && c == '<') {
            return fail_at(x, i, "a '<' in an attribute value");
        } else {
            out[(*o)++] = attr && space(c) ? ' ' : c;
            i++;
        }
    }
    return 0;
}

/* The XML declaration or a processing instruction, at "<?". */
static int instruction(xr *x, bool first)
{
    size_t s = x->at;
    if (past(x, "?>", "a processing instruction") < 0)
        return -1;
    if (x->at - s >= 6 && memcmp(x->b + s, "<?xml", 5) == 0 && space(x->b[s + 5])) {
        if (!first)
            return fail_at(x, s, "an XML declaration not at the start");
        const char *enc = memmem(x->b + s, x->at - s, "encoding", 8);
        if (enc) {
            const char *q = enc + 8;
            while (q < x->b + x->at && (space(*q) || *q == '='))
                q++;
            char quote = q < x->b + x->at ? *q : 0;
            const char *v = q + 1, *ve = quote ? memchr(v, quote, (size_t)(x->b + x->at - v)) : NULL;
            if ((quote != '"' && quote != '\'') || !ve)
                return fail_at(x, s, "an XML declaration whose encoding cannot be read");
            size_t vl = (size_t)(ve - v);
            if (!((vl == 5 && strncasecmp(v, "utf-8", 5) == 0) || (vl == 4 && strncasecmp(v, "utf8", 4) == 0) ||
                  (vl == 8 && strncasecmp(v, "us-ascii", 8) == 0)))
                return fail_at(x, s, "encoding \"%.*s\": only UTF-8 is read", (int)(vl < 32 ? vl : 32), v);
        }
    }
    return 0;
}

/* The line of offset at, never before the last one asked (linear). */
static size_t line_of(xr *x, size_t at)
{
    for (; x->line_at < at; x->line_at++)
        x->line += x->b[x->line_at] == '\n';
    return x->line;
}

/* A start tag at "<": emits START (and END when it closes itself). */
static int start_tag(xr *x, wk_xml_fn fn, void *ctx)
{
    size_t s = x->at++;
    if (x->depth == WK_XML_DEPTH)
        return fail_at(x, s, "elements nested deeper than %d", WK_XML_DEPTH);
    char *name = x->names[x->depth];
    if (read_name(x, name, "a start tag") < 0)
        return -1;
    const char *gt = memchr(x->b + x->at, '>', x->n - x->at);
    if (!gt)
        return fail_at(x, s, "<%s> not closed", name);
    if (grow(x, &x->vals, &x->vcap, (size_t)(gt - x->b) - x->at + 1) < 0)
        return -1;
    size_t na = 0, o = 0;
    bool empty = false;
    for (;;) {
        size_t before = x->at;
        skip_space(x);
        if (x->at >= x->n)
            return fail_at(x, s, "<%s> not closed", name);
        if (x->b[x->at] == '>') {
            x->at++;
            break;
        }
        if (starts(x, "/>")) {
            x->at += 2;
            empty = true;
            break;
        }
        if (x->at == before)
            return fail_at(x, x->at, "<%s>: a blank was expected before an attribute", name);
        if (na == WK_XML_ATTRS)
            return fail_at(x, x->at, "<%s>: more than %d attributes", name, WK_XML_ATTRS);
        if (read_name(x, x->anames[na], "an attribute") < 0)
            return -1;
        for (size_t k = 0; k < na; k++)
            if (strcmp(x->anames[k], x->anames[na]) == 0)
                return fail_at(x, x->at, "<%s>: attribute %s given twice", name, x->anames[na]);
        skip_space(x);
        if (x->at >= x->n || x->b[x->at] != '=')
            return fail_at(x, x->at, "<%s>: '=' was expected after %s", name, x->anames[na]);
        x->at++;
        skip_space(x);
        char q = x->at < x->n ? x->b[x->at] : 0;
        const char *ve = q == '"' || q == '\'' ? memchr(x->b + x->at + 1, q, x->n - x->at - 1) : NULL;
        if (!ve)
            return fail_at(x, x->at, "<%s>: the value of %s is not quoted and closed", name, x->anames[na]);
        size_t vs = x->at + 1, vend = (size_t)(ve - x->b);
        if (vend - vs + o + 1 > x->vcap && grow(x, &x->vals, &x->vcap, vend - vs + o + 1) < 0)
            return -1;
        x->attrs[na].name = x->anames[na];
        size_t at0 = o;
        if (decode(x, vs, vend, x->vals, &o, true) < 0)
            return -1;
        x->vals[o++] = 0;
        x->offs[na] = at0;
        na++;
        x->at = vend + 1;
    }
    for (size_t k = 0; k < na; k++)
        x->attrs[k].value = x->vals + x->offs[k];
    x->path[x->depth] = name;
    x->depth++;
    x->child = false;
    x->tlen = 0;
    size_t line = line_of(x, s);
    wk_xml_ev ev = { WK_XML_START, name, x->path, x->depth, x->attrs, na, NULL, 0, line };
    if (fn(ctx, &ev, x->err, x->errlen) < 0)
        return -1;
    if (empty) {
        ev = (wk_xml_ev){ WK_XML_END, name, x->path, x->depth, NULL, 0, "", 0, line };
        x->depth--;
        x->child = true;
        return fn(ctx, &ev, x->err, x->errlen);
    }
    return 0;
}

/* An end tag at "</": must close the element on top; emits END. */
static int end_tag(xr *x, wk_xml_fn fn, void *ctx)
{
    size_t s = x->at;
    char name[WK_XML_NAME_MAX + 1];
    x->at += 2;
    if (read_name(x, name, "an end tag") < 0)
        return -1;
    skip_space(x);
    if (x->at >= x->n || x->b[x->at] != '>')
        return fail_at(x, s, "</%s> not closed", name);
    x->at++;
    if (x->depth == 0 || strcmp(name, x->names[x->depth - 1]) != 0)
        return fail_at(x, s, "</%s> closes %s%s%s", name, x->depth ? "<" : "no element",
                       x->depth ? x->names[x->depth - 1] : "", x->depth ? ">" : "");
    if (grow(x, &x->text, &x->tcap, x->tlen + 1) < 0)
        return -1;
    if (x->child)
        x->tlen = 0;
    x->text[x->tlen] = 0;
    wk_xml_ev ev = { WK_XML_END, x->names[x->depth - 1], x->path, x->depth, NULL, 0, x->text, x->tlen,
                     line_of(x, s) };
    int rc = fn(ctx, &ev, x->err, x->errlen);
    x->depth--;
    x->child = true; /* the parent had a child */
    x->tlen = 0;
    return rc;
}

/* Character data up to the next '<': the element's own text, or (outside
 * the root) only blanks. */
static int chars(xr *x)
{
    const char *lt = memchr(x->b + x->at, '<', x->n - x->at);
    size_t e = lt ? (size_t)(lt - x->b) : x->n;
    if (x->depth == 0) {
        for (size_t i = x->at; i < e; i++)
            if (!space(x->b[i]))
                return fail_at(x, i, "text outside the root element");
        x->at = e;
        return 0;
    }
    if (grow(x, &x->text, &x->tcap, x->tlen + (e - x->at) + 1) < 0)
        return -1;
    if (decode(x, x->at, e, x->text, &x->tlen, false) < 0)
        return -1;
    x->at = e;
    return 0;
}

static int cdata(xr *x)
{
    size_t s = x->at + 9;
    if (past(x, "]]>", "a CDATA section") < 0)
        return -1;
    size_t e = x->at - 3;
    if (x->depth == 0)
        return fail_at(x, s, "CDATA outside the root element");
    if (grow(x, &x->text, &x->tcap, x->tlen + (e - s) + 1) < 0)
        return -1;
    memcpy(x->text + x->tlen, x->b + s, e - s);
    x->tlen += e - s;
    return 0;
}

int wk_xml_parse(const char *buf, size_t len, wk_xml_fn fn, void *ctx, char *err, size_t errlen)
{
    xr *x = calloc(1, sizeof *x);
    if (!x)
        return snprintf(err, errlen, "out of memory"), -1;
    *x = (xr){ .b = buf, .n = len, .err = err, .errlen = errlen, .line = 1 };
    int rc = 0;
    size_t bad = wk_utf8_bad(buf, len);
    bool root = false, first = true;
    if (len > WK_XML_MAX)
        rc = fail_at(x, 0, "over %u bytes", WK_XML_MAX);
    else if (bad < len)
        rc = buf[bad] ? fail_at(x, bad, "a byte (0x%02x) not of well-formed UTF-8", (unsigned char)buf[bad])
                      : fail_at(x, bad, "a NUL byte");
    if (rc == 0 && starts(x, "\xef\xbb\xbf"))
        x->at = 3;
    while (rc == 0 && x->at < x->n) {
        if (x->b[x->at] != '<')
            rc = chars(x);
        else if (starts(x, "<!--"))
            rc = past(x, "-->", "a comment");
        else if (starts(x, "<![CDATA["))
            rc = cdata(x);
        else if (starts(x, "<!"))
            rc = fail_at(x, x->at, "a declaration (<!DOCTYPE, <!ENTITY ...): no DTD is read");
        else if (starts(x, "<?"))
            rc = instruction(x, first);
        else if (starts(x, "</"))
            rc = end_tag(x, fn, ctx);
        else if (x->depth == 0 && root)
            rc = fail_at(x, x->at, "a second root element");
        else {
            root = true;
            rc = start_tag(x, fn, ctx);
        }
        first = false;
    }
    if (rc == 0 && x->depth > 0)
        rc = fail_at(x, x->n, "<%s> not closed at the end", x->names[x->depth - 1]);
    if (rc == 0 && !root)
        rc = fail_at(x, x->n, "no root element");
    free(x->text);
    free(x->vals);
    free(x);
    return rc;
}

const char *wk_xml_attr_get(const wk_xml_ev *ev, const char *name)
{
    for (size_t i = 0; i < ev->nattrs; i++)
        if (strcmp(ev->attrs[i].name, name) == 0)
            return ev->attrs[i].value;
    return NULL;
}
