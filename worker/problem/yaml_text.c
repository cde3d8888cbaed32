/* yaml_text.c -- the text level of the YAML reader (yaml_text.h):
 * positions and errors, the scalar buffer and events, and every kind of
 * scalar (plain, quoted with escapes and folding, block). yaml.c reads
 * the structure around them.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/text.h"
#include "worker/problem/yaml_text.h"

int wk_yt_fail_at(yr *y, size_t at, const char *fmt, ...)
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

char wk_yt_at_c(const yr *y, size_t i)
{
    return i < y->n ? y->b[i] : 0;
}

bool wk_yt_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* End of a line's content: a newline, "\r\n", or the end. */
bool wk_yt_eol(const yr *y, size_t i)
{
    return i >= y->n || y->b[i] == '\n' || (y->b[i] == '\r' && wk_yt_at_c(y, i + 1) == '\n');
}

bool wk_yt_spaceish(const yr *y, size_t i)
{
    return wk_yt_eol(y, i) || wk_yt_blank(y->b[i]);
}

void wk_yt_skip_blanks(yr *y)
{
    while (y->at < y->n && wk_yt_blank(y->b[y->at]))
        y->at++;
}

void wk_yt_next_row(yr *y)
{
    const char *nl = memchr(y->b + y->at, '\n', y->n - y->at);
    y->at = nl ? (size_t)(nl - y->b) + 1 : y->n;
}

size_t wk_yt_line_start(const yr *y, size_t i)
{
    while (i > 0 && y->b[i - 1] != '\n')
        i--;
    return i;
}

/* The line of offset at, counted on (or back) from the last one asked:
 * events come in the order of their offsets (an END at where its
 * collection ended), so the whole stays linear. */
size_t wk_yt_line_of(yr *y, size_t at)
{
    for (; y->line_at > at; y->line_at--)
        y->line -= y->b[y->line_at - 1] == '\n';
    for (; y->line_at < at; y->line_at++)
        y->line += y->b[y->line_at] == '\n';
    return y->line;
}

/* After a value: only blanks and a comment may end the line. */
int wk_yt_end_line(yr *y)
{
    size_t s = y->at;
    wk_yt_skip_blanks(y);
    if (!wk_yt_eol(y, y->at) && !(y->b[y->at] == '#' && y->at > s))
        return wk_yt_fail_at(y, y->at, "more after the value on this line");
    wk_yt_next_row(y);
    return 0;
}

/* Room for k more bytes of a scalar (and its NUL). */
int wk_yt_room(yr *y, size_t k)
{
    if (y->vlen + k + 1 <= y->vcap)
        return 0;
    size_t need = y->vlen + k + 1, c = y->vcap ? 2 * y->vcap : 256, most = y->n + y->n / 2 + 2;
    c = c > most ? most : c; /* a scalar decodes to at most 1.5 times its text (\L is 3 bytes from 2) */
    c = c < need ? need : c;
    char *p = realloc(y->val, c);
    if (!p)
        return wk_yt_fail_at(y, y->at, "out of memory");
    y->val = p;
    y->vcap = c;
    return 0;
}

int wk_yt_emit(yr *y, int type, int d, bool null, bool quoted, size_t where)
{
    if (type == WK_YAML_SCALAR) {
        if (wk_yt_room(y, 0) < 0)
            return -1;
        y->val[y->vlen] = 0;
        if (memchr(y->val, 0, y->vlen))
            return wk_yt_fail_at(y, where, "a NUL character in a value");
    }
    wk_yaml_ev ev = { type, d, type == WK_YAML_END ? NULL : y->kp[d], y->index[d], y->kp,
                      type == WK_YAML_SCALAR ? y->val : NULL,
                      type == WK_YAML_SCALAR ? y->vlen : 0, null, quoted, wk_yt_line_of(y, where) };
    return y->fn(y->ctx, &ev, y->err, y->errlen);
}

int wk_yt_put(yr *y, const char *p, size_t k)
{
    if (wk_yt_room(y, k) < 0)
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

/* The indicators that start no plain scalar we read: why, or NULL. */
const char *wk_yt_refused_start(const yr *y, size_t i)
{
    char c = wk_yt_at_c(y, i);
    if (c == '&')
        return "an anchor (&): refused, no node is ever shared";
    if (c == '*')
        return "an alias (*): refused, no node is ever repeated";
    if (c == '!')
        return "a tag (!): refused, nothing is constructed";
    if (c == '%' || c == '@' || c == '`')
        return "a reserved indicator (%, @ or `)";
    if (c == '?' && wk_yt_spaceish(y, i + 1))
        return "a complex key (?): refused";
    return NULL;
}

/* Folds the line break at y->at (inside quotes): trailing blanks already
 * dropped; one break is a space, each further empty line a newline. */
static int fold(yr *y)
{
    size_t breaks = 0;
    while (y->at < y->n && (y->b[y->at] == '\n' || y->b[y->at] == '\r' || wk_yt_blank(y->b[y->at]))) {
        if (y->b[y->at] == '\n')
            breaks++;
        y->at++;
    }
    if (wk_yt_room(y, breaks) < 0)
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
    while (y->vlen > from && wk_yt_blank(y->val[y->vlen - 1]))
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
    char c = wk_yt_at_c(y, y->at);
    if (wk_yt_eol(y, y->at)) { /* an escaped line break joins the lines */
        wk_yt_next_row(y);
        wk_yt_skip_blanks(y);
        return 0;
    }
    const char *f = c ? strchr(from, c) : NULL;
    if (f) {
        y->at++;
        return wk_yt_put(y, to[f - from], strlen(to[f - from]));
    }
    size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (!digits)
        return wk_yt_fail_at(y, s, c == '0' ? "a NUL character (\\0) in a value" : "an unknown escape \\%c", c);
    uint32_t cp = 0;
    for (size_t k = 1; k <= digits; k++) {
        int v = hexval(wk_yt_at_c(y, y->at + k));
        if (v < 0)
            return wk_yt_fail_at(y, s, "\\%c needs %zu hex digits", c, digits);
        cp = cp * 16 + (uint32_t)v;
    }
    if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return wk_yt_fail_at(y, s, "an escape that is not a character (or a NUL)");
    y->at += digits + 1;
    if (wk_yt_room(y, 4) < 0)
        return -1;
    put_utf8(y, cp);
    return 0;
}

/* A quoted scalar at y->at into y->val (several lines folded). */
int wk_yt_quoted(yr *y)
{
    char q = y->b[y->at];
    size_t s = y->at++;
    y->vlen = 0;
    for (;;) {
        if (y->at >= y->n)
            return wk_yt_fail_at(y, s, "a quoted value not closed");
        char c = y->b[y->at];
        if (c == q) {
            if (q == '\'' && wk_yt_at_c(y, y->at + 1) == '\'') {
                y->at += 2;
                if (wk_yt_put(y, "'", 1) < 0)
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
        } else if (c == '\n' || (c == '\r' && wk_yt_at_c(y, y->at + 1) == '\n')) {
            trim_put(y, 0);
            if (fold(y) < 0)
                return -1;
        } else {
            const char *e = y->b + y->at;
            while (e < y->b + y->n && *e != q && *e != '\n' && *e != '\r' && !(q == '"' && *e == '\\'))
                e++;
            if (e == y->b + y->at)
                e++;
            if (wk_yt_put(y, y->b + y->at, (size_t)(e - (y->b + y->at))) < 0)
                return -1;
            y->at = (size_t)(e - y->b);
        }
    }
}

/* A plain scalar's extent from y->at: in a block up to a comment or the
 * line's end; in a flow also up to , [ ] { } and ": ". Trailing blanks
 * are not part of it. */
size_t wk_yt_plain_end(const yr *y, bool flow)
{
    size_t i = y->at, last = y->at;
    while (!wk_yt_eol(y, i)) {
        char c = y->b[i];
        if (c == '#' && i > y->at && wk_yt_blank(y->b[i - 1]))
            break;
        if (flow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}'))
            break;
        if (c == ':' && (wk_yt_spaceish(y, i + 1) || (flow && strchr(",[]{}", wk_yt_at_c(y, i + 1)) && wk_yt_at_c(y, i + 1))))
            break;
        i++;
        if (!wk_yt_blank(c))
            last = i;
    }
    return last;
}

bool wk_yt_null_text(const char *p, size_t n)
{
    return n == 0 || (n == 1 && p[0] == '~') ||
           (n == 4 && (!memcmp(p, "null", 4) || !memcmp(p, "Null", 4) || !memcmp(p, "NULL", 4)));
}

int wk_yt_plain(yr *y, int d, bool flow)
{
    size_t s = y->at, e = wk_yt_plain_end(y, flow);
    if (e == s)
        return wk_yt_fail_at(y, s, "a value was expected");
    y->vlen = 0;
    if (wk_yt_put(y, y->b + s, e - s) < 0)
        return -1;
    y->at = e;
    return wk_yt_emit(y, WK_YAML_SCALAR, d, wk_yt_null_text(y->b + s, e - s), false, s);
}

/* A block scalar (| or >) at y->at, its content indented more than
 * `parent` (the indentation of the line its key or entry is on). */
int wk_yt_block_scalar(yr *y, int d, size_t parent)
{
    size_t s = y->at;
    bool folded = y->b[y->at++] == '>';
    char chomp = 0;
    size_t ind = 0;
    for (int k = 0; k < 2; k++) {
        char c = wk_yt_at_c(y, y->at);
        if ((c == '-' || c == '+') && !chomp)
            chomp = c, y->at++;
        else if (c >= '1' && c <= '9' && !ind)
            ind = parent + (size_t)(c - '0'), y->at++;
    }
    if (wk_yt_end_line(y) < 0)
        return -1;
    y->vlen = 0;
    size_t breaks = 0;
    int prev = 0; /* 0 none yet, 1 a normal line, 2 a more-indented one */
    while (y->at < y->n) {
        size_t ls = y->at, i = ls;
        while (i < y->n && y->b[i] == ' ')
            i++;
        bool empty = wk_yt_eol(y, i);
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
            wk_yt_next_row(y);
            continue;
        }
        size_t cs = ls + ind, ce = cs;
        while (!wk_yt_eol(y, ce))
            ce++;
        int kind = wk_yt_blank(y->b[cs]) ? 2 : 1;
        size_t nl = prev == 0 ? breaks : folded && prev == 1 && kind == 1 ? breaks : breaks + 1;
        bool space = prev && folded && prev == 1 && kind == 1 && breaks == 0;
        if (wk_yt_room(y, nl + 1 + (ce - cs)) < 0)
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
        wk_yt_next_row(y);
    }
    size_t tail = chomp == '-' || !prev ? 0 : chomp == '+' ? breaks + 1 : 1;
    if (wk_yt_room(y, tail) < 0)
        return -1;
    for (size_t k = 0; k < tail; k++)
        y->val[y->vlen++] = '\n';
    return wk_yt_emit(y, WK_YAML_SCALAR, d, false, true, s);
}
