/* yaml.c -- a bounded reader of package YAML (yaml.h).
 *
 * Recursive descent over lines, at most WK_YAML_DEPTH levels deep (the C
 * stack is bounded with it). The block functions keep one invariant:
 * they start at their first entry's first byte (which may be mid-line:
 * "- key: v") and return at the start of the first line that is not
 * theirs, so each line is looked at a fixed number of times and the
 * whole is linear. Flow collections are read character by character,
 * newlines as blanks. Every scalar is decoded into one scratch buffer and
 * handed to the callback before the next is read.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/text.h"
#include "worker/problem/yaml.h"

typedef struct yr {
    const char *b;
    size_t n, at;
    char keys[WK_YAML_DEPTH + 2][WK_YAML_KEY_MAX + 1];
    const char *kp[WK_YAML_DEPTH + 2];
    size_t index[WK_YAML_DEPTH + 2];
    char *val;
    size_t vlen, vcap;
    wk_yaml_fn fn;
    void *ctx;
    char *err;
    size_t errlen;
    size_t line, line_at;        /* lines counted up to offset line_at */
} yr;

static int fail_at(yr *y, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(yr *y, size_t at, const char *fmt, ...)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < y->n; i++) {
        if (y->b[i] == '\n')
            line++, col = 1;
        else if (((unsigned char)y->b[i] & 0xc0) != 0x80)
            col++;
    }
    int k = snprintf(y->err, y->errlen, "line %zu, column %zu: ", line, col);
    if (k >= 0 && (size_t)k < y->errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(y->err + k, y->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char at_c(const yr *y, size_t i)
{
    return i < y->n ? y->b[i] : 0;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* End of a line's content: a newline, "\r\n", or the end. */
static bool eol(const yr *y, size_t i)
{
    return i >= y->n || y->b[i] == '\n' || (y->b[i] == '\r' && at_c(y, i + 1) == '\n');
}

static bool spaceish(const yr *y, size_t i)
{
    return eol(y, i) || blank(y->b[i]);
}

static void skip_blanks(yr *y)
{
    while (y->at < y->n && blank(y->b[y->at]))
        y->at++;
}

static void next_row(yr *y)
{
    const char *nl = memchr(y->b + y->at, '\n', y->n - y->at);
    y->at = nl ? (size_t)(nl - y->b) + 1 : y->n;
}

static size_t line_start(const yr *y, size_t i)
{
    while (i > 0 && y->b[i - 1] != '\n')
        i--;
    return i;
}

/* The line of offset at; events come in order, so counting on from the
 * last one keeps the whole linear. */
static size_t line_of(yr *y, size_t at)
{
    if (at < y->line_at)
        y->line = 1, y->line_at = 0;
    for (; y->line_at < at; y->line_at++)
        y->line += y->b[y->line_at] == '\n';
    return y->line;
}

/* After a value: only blanks and a comment may end the line. */
static int end_line(yr *y)
{
    size_t s = y->at;
    skip_blanks(y);
    if (!eol(y, y->at) && !(y->b[y->at] == '#' && y->at > s))
        return fail_at(y, y->at, "more after the value on this line");
    next_row(y);
    return 0;
}

/* From a line start: past blank and comment lines to the next line with
 * content; 1 with *indent (y->at at that line's start), 0 at the end of
 * the document, -1 on a tab in indentation or a second document. */
static int next_line(yr *y, size_t *indent)
{
    while (y->at < y->n) {
        size_t s = y->at, i = s;
        while (i < y->n && y->b[i] == ' ')
            i++;
        size_t j = i;
        while (j < y->n && blank(y->b[j]))
            j++;
        if (eol(y, j) || y->b[j] == '#') {
            y->at = j;
            next_row(y);
            continue;
        }
        if (j != i)
            return fail_at(y, i, "a tab in indentation");
        if (i == s && (memcmp(y->b + s, "---", y->n - s >= 3 ? 3 : y->n - s) == 0 && y->n - s >= 3 &&
                       spaceish(y, s + 3)))
            return fail_at(y, s, "a second document (one is read)");
        if (i == s && y->n - s >= 3 && memcmp(y->b + s, "...", 3) == 0 && spaceish(y, s + 3)) {
            y->at = s + 3;
            next_row(y);
            size_t ignored;
            int rc = next_line(y, &ignored);
            return rc < 0 ? -1 : rc ? fail_at(y, y->at, "content after the document's end (...)") : 0;
        }
        *indent = i - s;
        y->at = s;
        return 1;
    }
    return 0;
}

/* Room for k more bytes of a scalar (and its NUL). */
static int room(yr *y, size_t k)
{
    if (y->vlen + k + 1 <= y->vcap)
        return 0;
    size_t need = y->vlen + k + 1, c = y->vcap ? 2 * y->vcap : 256, most = y->n + y->n / 2 + 2;
    c = c > most ? most : c; /* a scalar decodes to at most 1.5 times its text (\L is 3 bytes from 2) */
    c = c < need ? need : c;
    char *p = realloc(y->val, c);
    if (!p)
        return fail_at(y, y->at, "out of memory");
    y->val = p;
    y->vcap = c;
    return 0;
}

static int emit(yr *y, int type, int d, bool null, bool quoted, size_t where)
{
    if (type == WK_YAML_SCALAR) {
        if (room(y, 0) < 0)
            return -1;
        y->val[y->vlen] = 0;
        if (memchr(y->val, 0, y->vlen))
            return fail_at(y, where, "a NUL character in a value");
    }
    wk_yaml_ev ev = { type, d, type == WK_YAML_END ? NULL : y->kp[d], y->index[d], y->kp,
                      type == WK_YAML_SCALAR ? y->val : NULL,
                      type == WK_YAML_SCALAR ? y->vlen : 0, null, quoted, line_of(y, where) };
    return y->fn(y->ctx, &ev, y->err, y->errlen);
}

static int put(yr *y, const char *p, size_t k)
{
    if (room(y, k) < 0)
        return -1;
    memcpy(y->val + y->vlen, p, k);
    y->vlen += k;
    return 0;
}

static void put_utf8(yr *y, uint32_t cp)
{
    char *o = y->val + y->vlen;
    size_t k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (k == 1)
        o[0] = (char)cp;
    else {
        static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
        for (size_t i = k - 1; i > 0; i--, cp >>= 6)
            o[i] = (char)(0x80 | (cp & 0x3f));
        o[0] = (char)(lead[k] | cp);
    }
    y->vlen += k;
}

static int depth_ok(yr *y, int d)
{
    return d > WK_YAML_DEPTH ? fail_at(y, y->at, "collections nested deeper than %d", WK_YAML_DEPTH) : 0;
}

/* The indicators that start no plain scalar we read: why, or NULL. */
static const char *refused_start(const yr *y, size_t i)
{
    char c = at_c(y, i);
    if (c == '&')
        return "an anchor (&): refused, no node is ever shared";
    if (c == '*')
        return "an alias (*): refused, no node is ever repeated";
    if (c == '!')
        return "a tag (!): refused, nothing is constructed";
    if (c == '%' || c == '@' || c == '`')
        return "a reserved indicator (%, @ or `)";
    if (c == '?' && spaceish(y, i + 1))
        return "a complex key (?): refused";
    return NULL;
}

/* Folds the line break at y->at (inside quotes): trailing blanks already
 * dropped; one break is a space, each further empty line a newline. */
static int fold(yr *y)
{
    size_t breaks = 0;
    while (y->at < y->n && (y->b[y->at] == '\n' || y->b[y->at] == '\r' || blank(y->b[y->at]))) {
        if (y->b[y->at] == '\n')
            breaks++;
        y->at++;
    }
    if (room(y, breaks) < 0)
        return -1;
    if (breaks == 1)
        y->val[y->vlen++] = ' ';
    for (size_t k = 1; k < breaks; k++)
        y->val[y->vlen++] = '\n';
    return 0;
}

/* Drops the blanks just put before a line break. */
static void trim_put(yr *y, size_t from)
{
    while (y->vlen > from && blank(y->val[y->vlen - 1]))
        y->vlen--;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A double-quoted escape at y->at (past the backslash). */
static int escape(yr *y)
{
    static const char from[] = "abtnvfre \"/\\N_LP\t";
    static const char *const to[] = { "\a", "\b", "\t", "\n", "\v", "\f", "\r", "\x1b", " ", "\"", "/", "\\",
                                      "\xc2\x85", "\xc2\xa0", "\xe2\x80\xa8", "\xe2\x80\xa9", "\t" };
    size_t s = y->at - 1;
    char c = at_c(y, y->at);
    if (eol(y, y->at)) { /* an escaped line break joins the lines */
        next_row(y);
        skip_blanks(y);
        return 0;
    }
    const char *f = c ? strchr(from, c) : NULL;
    if (f) {
        y->at++;
        return put(y, to[f - from], strlen(to[f - from]));
    }
    size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (!digits)
        return fail_at(y, s, c == '0' ? "a NUL character (\\0) in a value" : "an unknown escape \\%c", c);
    uint32_t cp = 0;
    for (size_t k = 1; k <= digits; k++) {
        int v = hexval(at_c(y, y->at + k));
        if (v < 0)
            return fail_at(y, s, "\\%c needs %zu hex digits", c, digits);
        cp = cp * 16 + (uint32_t)v;
    }
    if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return fail_at(y, s, "an escape that is not a character (or a NUL)");
    y->at += digits + 1;
    if (room(y, 4) < 0)
        return -1;
    put_utf8(y, cp);
    return 0;
}

/* A quoted scalar at y->at into y->val (several lines folded). */
static int quoted(yr *y)
{
    char q = y->b[y->at];
    size_t s = y->at++;
    y->vlen = 0;
    for (;;) {
        if (y->at >= y->n)
            return fail_at(y, s, "a quoted value not closed");
        char c = y->b[y->at];
        if (c == q) {
            if (q == '\'' && at_c(y, y->at + 1) == '\'') {
                y->at += 2;
                if (put(y, "'", 1) < 0)
                    return -1;
                continue;
            }
            y->at++;
            return 0;
        }
        if (q == '"' && c == '\\') {
            y->at++;
            if (escape(y) < 0)
                return -1;
        } else if (c == '\n' || (c == '\r' && at_c(y, y->at + 1) == '\n')) {
            trim_put(y, 0);
            if (fold(y) < 0)
                return -1;
        } else {
            const char *e = y->b + y->at;
            while (e < y->b + y->n && *e != q && *e != '\n' && *e != '\r' && !(q == '"' && *e == '\\'))
                e++;
            if (e == y->b + y->at)
                e++;
            if (put(y, y->b + y->at, (size_t)(e - (y->b + y->at))) < 0)
                return -1;
            y->at = (size_t)(e - y->b);
        }
    }
}

/* A plain scalar's extent from y->at: in a block up to a comment or the
 * line's end; in a flow also up to , [ ] { } and ": ". Trailing blanks
 * are not part of it. */
static size_t plain_end(const yr *y, bool flow)
{
    size_t i = y->at, last = y->at;
    while (!eol(y, i)) {
        char c = y->b[i];
        if (c == '#' && i > y->at && blank(y->b[i - 1]))
            break;
        if (flow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}'))
            break;
        if (c == ':' && (spaceish(y, i + 1) || (flow && strchr(",[]{}", at_c(y, i + 1)) && at_c(y, i + 1))))
            break;
        i++;
        if (!blank(c))
            last = i;
    }
    return last;
}

static bool null_text(const char *p, size_t n)
{
    return n == 0 || (n == 1 && p[0] == '~') ||
           (n == 4 && (!memcmp(p, "null", 4) || !memcmp(p, "Null", 4) || !memcmp(p, "NULL", 4)));
}

static int plain(yr *y, int d, bool flow)
{
    size_t s = y->at, e = plain_end(y, flow);
    if (e == s)
        return fail_at(y, s, "a value was expected");
    y->vlen = 0;
    if (put(y, y->b + s, e - s) < 0)
        return -1;
    y->at = e;
    return emit(y, WK_YAML_SCALAR, d, null_text(y->b + s, e - s), false, s);
}

/* A block scalar (| or >) at y->at, its content indented more than
 * `parent` (the indentation of the line its key or entry is on). */
static int block_scalar(yr *y, int d, size_t parent)
{
    size_t s = y->at;
    bool folded = y->b[y->at++] == '>';
    char chomp = 0;
    size_t ind = 0;
    for (int k = 0; k < 2; k++) {
        char c = at_c(y, y->at);
        if ((c == '-' || c == '+') && !chomp)
            chomp = c, y->at++;
        else if (c >= '1' && c <= '9' && !ind)
            ind = parent + (size_t)(c - '0'), y->at++;
    }
    if (end_line(y) < 0)
        return -1;
    y->vlen = 0;
    size_t breaks = 0;
    int prev = 0; /* 0 none yet, 1 a normal line, 2 a more-indented one */
    while (y->at < y->n) {
        size_t ls = y->at, i = ls;
        while (i < y->n && y->b[i] == ' ')
            i++;
        bool empty = eol(y, i);
        if (!empty && !ind) {
            if (i - ls <= parent)
                break;
            ind = i - ls;
        }
        if (!empty && i - ls < ind)
            break;
        if (empty) {
            breaks++;
            y->at = i;
            next_row(y);
            continue;
        }
        size_t cs = ls + ind, ce = cs;
        while (!eol(y, ce))
            ce++;
        int kind = blank(y->b[cs]) ? 2 : 1;
        size_t nl = prev == 0 ? breaks : folded && prev == 1 && kind == 1 ? breaks : breaks + 1;
        bool space = prev && folded && prev == 1 && kind == 1 && breaks == 0;
        if (room(y, nl + 1 + (ce - cs)) < 0)
            return -1;
        if (space)
            y->val[y->vlen++] = ' ';
        else
            for (size_t k = 0; k < nl; k++)
                y->val[y->vlen++] = '\n';
        memcpy(y->val + y->vlen, y->b + cs, ce - cs);
        y->vlen += ce - cs;
        prev = kind;
        breaks = 0;
        y->at = ce;
        next_row(y);
    }
    size_t tail = chomp == '-' || !prev ? 0 : chomp == '+' ? breaks + 1 : 1;
    if (room(y, tail) < 0)
        return -1;
    for (size_t k = 0; k < tail; k++)
        y->val[y->vlen++] = '\n';
    return emit(y, WK_YAML_SCALAR, d, false, true, s);
}

/* Blanks, line breaks and comments inside a flow collection. */
static void skip_flow_space(yr *y)
{
    for (;;) {
        size_t s = y->at;
        while (y->at < y->n && (blank(y->b[y->at]) || y->b[y->at] == '\n' || y->b[y->at] == '\r'))
            y->at++;
        if (at_c(y, y->at) == '#' && (y->at > s || y->at == 0 || y->b[y->at - 1] == '\n'))
            next_row(y);
        else
            return;
    }
}

static int flow_node(yr *y, int d);

/* A key inside a flow mapping or a block one, quoted or plain, into
 * y->keys[d]. */
static int read_key(yr *y, int d, bool flow)
{
    size_t s = y->at;
    const char *why = refused_start(y, y->at);
    if (why)
        return fail_at(y, s, "%s", why);
    char c = at_c(y, y->at);
    if (c == '[' || c == '{')
        return fail_at(y, s, "a collection as a key: refused");
    if (c == '"' || c == '\'') {
        if (quoted(y) < 0)
            return -1;
    } else {
        size_t e = plain_end(y, flow);
        y->vlen = 0;
        if (put(y, y->b + s, e - s) < 0)
            return -1;
        y->at = e;
    }
    if (y->vlen > WK_YAML_KEY_MAX)
        return fail_at(y, s, "a key over %d bytes", WK_YAML_KEY_MAX);
    memcpy(y->keys[d], y->val, y->vlen);
    y->keys[d][y->vlen] = 0;
    if (strlen(y->keys[d]) != y->vlen)
        return fail_at(y, s, "a NUL character in a key");
    y->kp[d] = y->keys[d];
    return 0;
}

static int flow_seq(yr *y, int d)
{
    size_t s = y->at++;
    if (depth_ok(y, d + 1) < 0 || emit(y, WK_YAML_SEQ, d, false, false, s) < 0)
        return -1;
    for (size_t i = 0;; i++) {
        skip_flow_space(y);
        if (y->at >= y->n)
            return fail_at(y, s, "a [ not closed");
        if (at_c(y, y->at) == ']')
            break;
        y->kp[d + 1] = NULL;
        y->index[d + 1] = i;
        if (flow_node(y, d + 1) < 0)
            return -1;
        skip_flow_space(y);
        char c = at_c(y, y->at);
        if (y->at >= y->n)
            return fail_at(y, s, "a [ not closed");
        if (c == ',')
            y->at++;
        else if (c != ']')
            return fail_at(y, y->at, c == ':' ? "a mapping inside [ ] without { }: refused"
                                              : "',' or ']' was expected");
    }
    y->at++;
    return emit(y, WK_YAML_END, d, false, false, s);
}

static int flow_map(yr *y, int d)
{
    size_t s = y->at++;
    if (depth_ok(y, d + 1) < 0 || emit(y, WK_YAML_MAP, d, false, false, s) < 0)
        return -1;
    for (;;) {
        skip_flow_space(y);
        if (at_c(y, y->at) == '}')
            break;
        if (y->at >= y->n)
            return fail_at(y, s, "a { not closed");
        if (read_key(y, d + 1, true) < 0)
            return -1;
        skip_flow_space(y);
        char c = at_c(y, y->at);
        if (c == ':') {
            y->at++;
            skip_flow_space(y);
            c = at_c(y, y->at);
            if (c != ',' && c != '}') {
                if (flow_node(y, d + 1) < 0)
                    return -1;
                skip_flow_space(y);
                c = at_c(y, y->at);
            } else {
                y->vlen = 0;
                if (room(y, 0) < 0 || emit(y, WK_YAML_SCALAR, d + 1, true, false, y->at) < 0)
                    return -1;
            }
        } else {
            y->vlen = 0;
            if (room(y, 0) < 0 || emit(y, WK_YAML_SCALAR, d + 1, true, false, y->at) < 0)
                return -1;
        }
        if (y->at >= y->n)
            return fail_at(y, s, "a { not closed");
        if (c == ',')
            y->at++;
        else if (c != '}')
            return fail_at(y, y->at, "',' or '}' was expected");
    }
    y->at++;
    return emit(y, WK_YAML_END, d, false, false, s);
}

static int flow_node(yr *y, int d)
{
    const char *why = refused_start(y, y->at);
    if (why)
        return fail_at(y, y->at, "%s", why);
    char c = at_c(y, y->at);
    if (y->at >= y->n)
        return fail_at(y, y->at, "a collection not closed");
    if (c == '[')
        return flow_seq(y, d);
    if (c == '{')
        return flow_map(y, d);
    if (c == '"' || c == '\'') {
        size_t s = y->at;
        return quoted(y) < 0 ? -1 : emit(y, WK_YAML_SCALAR, d, false, true, s);
    }
    if (c == '|' || c == '>')
        return fail_at(y, y->at, "a block scalar inside [ ] or { }");
    return plain(y, d, true);
}

/* Whether the content at i is a sequence entry ("-" then a blank or the
 * line's end). */
static bool is_dash(const yr *y, size_t i)
{
    return at_c(y, i) == '-' && spaceish(y, i + 1);
}

/* Whether the content at i is a mapping key ("key:" then a blank or the
 * line's end; the key plain or quoted on this line). */
static bool is_key(const yr *y, size_t i)
{
    char c = at_c(y, i);
    if (c == '"' || c == '\'') {
        size_t k = i + 1;
        while (!eol(y, k) && y->b[k] != c)
            k += c == '"' && y->b[k] == '\\' ? 2 : 1;
        if (eol(y, k))
            return false;
        k++;
        while (!eol(y, k) && blank(y->b[k]))
            k++;
        return at_c(y, k) == ':' && spaceish(y, k + 1);
    }
    if (c == '[' || c == '{' || c == '#' || is_dash(y, i) || refused_start(y, i))
        return false;
    for (size_t k = i; !eol(y, k); k++) {
        if (y->b[k] == '#' && k > i && blank(y->b[k - 1]))
            return false;
        if (y->b[k] == ':' && spaceish(y, k + 1))
            return true;
    }
    return false;
}

static int block_seq(yr *y, int d, size_t n);
static int block_map(yr *y, int d, size_t n);

/* A value on the rest of this line (block context), then the line's end. */
static int inline_value(yr *y, int d, size_t parent)
{
    size_t s = y->at;
    const char *why = refused_start(y, s);
    if (why)
        return fail_at(y, s, "%s", why);
    char c = at_c(y, s);
    if (c == '|' || c == '>')
        return block_scalar(y, d, parent);
    if (c == '[' || c == '{' || c == '"' || c == '\'') {
        if (flow_node(y, d) < 0)
            return -1;
    } else if (is_dash(y, s)) {
        return fail_at(y, s, "a sequence entry after a key on its line: put it on the next line");
    } else if (plain(y, d, false) < 0) {
        return -1;
    } else if (at_c(y, y->at) == ':') {
        return fail_at(y, y->at, "a mapping inside a plain value: quote the value");
    }
    return end_line(y);
}

/* The value of a key or an entry whose own line ended: the block below it
 * (indented more than `parent`; a sequence may also sit at `parent` when
 * seq_same), else null. */
static int block_value(yr *y, int d, size_t parent, bool seq_same, bool top)
{
    size_t i;
    int rc = next_line(y, &i);
    if (rc < 0)
        return -1;
    size_t c = y->at + i;
    bool deeper = top || i > parent;
    if (rc > 0 && (deeper || (seq_same && i == parent && is_dash(y, c)))) {
        if (depth_ok(y, d) < 0)
            return -1;
        y->at = c;
        if (is_dash(y, c))
            return block_seq(y, d, i);
        if (is_key(y, c))
            return block_map(y, d, i);
        return inline_value(y, d, top ? 0 : parent);
    }
    y->vlen = 0;
    if (room(y, 0) < 0)
        return -1;
    return emit(y, WK_YAML_SCALAR, d, true, false, y->at);
}

/* After an entry: 1 when the next line holds another entry of the
 * collection at indentation n (y->at on it), 0 when the collection ends
 * (y->at at that line's start), -1 on bad indentation. */
static int next_entry(yr *y, size_t n, bool seq)
{
    size_t i;
    int rc = next_line(y, &i);
    if (rc <= 0)
        return rc;
    size_t c = y->at + i;
    if (i > n)
        return fail_at(y, c, "bad indentation (or a plain value over several lines: quote it)");
    if (i < n)
        return 0;
    if (seq != is_dash(y, c)) {
        if (seq)
            return 0; /* "key:\n- a\nnext:" -- the sequence was the key's value */
        return fail_at(y, c, "a sequence entry where a key was expected");
    }
    if (!seq && !is_key(y, c))
        return fail_at(y, c, "a key was expected (key: value)");
    y->at = c;
    return 1;
}

static int block_seq(yr *y, int d, size_t n)
{
    size_t s = y->at;
    if (emit(y, WK_YAML_SEQ, d, false, false, s) < 0)
        return -1;
    int more = 1;
    for (size_t idx = 0; more > 0; idx++) {
        if (depth_ok(y, d + 1) < 0)
            return -1;
        y->kp[d + 1] = NULL;
        y->index[d + 1] = idx;
        y->at++; /* the '-' */
        skip_blanks(y);
        size_t c = y->at, col = c - line_start(y, c);
        int rc;
        if (eol(y, c) || at_c(y, c) == '#') {
            next_row(y);
            rc = block_value(y, d + 1, n, false, false);
        } else if (is_dash(y, c)) {
            rc = block_seq(y, d + 1, col);
        } else if (is_key(y, c)) {
            rc = block_map(y, d + 1, col);
        } else {
            rc = inline_value(y, d + 1, n);
        }
        if (rc < 0 || (more = next_entry(y, n, true)) < 0)
            return -1;
    }
    return emit(y, WK_YAML_END, d, false, false, s);
}

static int block_map(yr *y, int d, size_t n)
{
    size_t s = y->at;
    if (emit(y, WK_YAML_MAP, d, false, false, s) < 0)
        return -1;
    int more = 1;
    while (more > 0) {
        if (depth_ok(y, d + 1) < 0 || read_key(y, d + 1, false) < 0)
            return -1;
        y->index[d + 1] = 0;
        skip_blanks(y);
        if (at_c(y, y->at) != ':')
            return fail_at(y, y->at, "':' was expected after the key");
        y->at++;
        skip_blanks(y);
        int rc;
        if (eol(y, y->at) || at_c(y, y->at) == '#') {
            next_row(y);
            rc = block_value(y, d + 1, n, true, false);
        } else {
            rc = inline_value(y, d + 1, n);
        }
        if (rc < 0 || (more = next_entry(y, n, false)) < 0)
            return -1;
    }
    return emit(y, WK_YAML_END, d, false, false, s);
}

int wk_yaml_parse(const char *buf, size_t len, wk_yaml_fn fn, void *ctx, char *err, size_t errlen)
{
    yr *y = calloc(1, sizeof *y);
    if (!y)
        return snprintf(err, errlen, "out of memory"), -1;
    y->b = buf;
    y->n = len;
    y->fn = fn;
    y->ctx = ctx;
    y->err = err;
    y->errlen = errlen;
    y->line = 1;
    size_t bad = wk_utf8_bad(buf, len);
    int rc = 0;
    if (len > WK_YAML_MAX)
        rc = fail_at(y, 0, "over %u bytes", WK_YAML_MAX);
    else if (bad < len)
        rc = buf[bad] ? fail_at(y, bad, "a byte (0x%02x) not of well-formed UTF-8", (unsigned char)buf[bad])
                      : fail_at(y, bad, "a NUL byte");
    if (rc == 0 && len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
        y->at = 3;
    /* Before the document: comments, blank lines, at most one "---". */
    while (rc == 0 && y->at < y->n) {
        size_t s = y->at;
        skip_blanks(y);
        if (eol(y, y->at) || at_c(y, y->at) == '#') {
            next_row(y);
            continue;
        }
        y->at = s;
        if (at_c(y, s) == '%')
            rc = fail_at(y, s, "a directive (%%YAML, %%TAG): refused");
        else if (y->n - s >= 3 && memcmp(buf + s, "---", 3) == 0 && spaceish(y, s + 3)) {
            y->at = s + 3;
            rc = end_line(y);
        }
        break;
    }
    if (rc == 0)
        rc = block_value(y, 0, 0, false, true);
    if (rc == 0) {
        size_t i;
        int more = next_line(y, &i);
        if (more < 0)
            rc = -1;
        else if (more > 0)
            rc = fail_at(y, y->at + i, "bad indentation (content after the document's top level)");
    }
    free(y->val);
    free(y);
    return rc;
}
