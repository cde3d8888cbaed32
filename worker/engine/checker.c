/* checker.c -- the built-in answer rules, and a judge's message line.
 *
 * The rules read both texts once, front to back, allocating nothing:
 *   exact   the bytes are equal
 *   lines   line by line, trailing blanks (space, \t, \r, \v, \f) of each
 *           line ignored, and trailing empty lines ignored
 *   tokens  the whitespace-separated tokens are equal
 *   float   tokens; two that both read as finite decimal numbers are
 *           equal within an absolute or relative error eps
 * The program's output is the adversary's: a token is parsed from a
 * bounded copy, and what the messages show of it is escaped and cut.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/engine/checker.h"
#include "worker/common/text.h"

#define SHOWN 24

const char *wk_check_quote(char *out, size_t size, const char *p, size_t n)
{
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n && i < SHOWN && o + 6 < size; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
    }
    if (n > SHOWN && o + 4 < size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '"';
    out[o] = 0;
    return out;
}

static void differ(char msg[WK_CHECK_MSG_LEN], const char *what, size_t at, const char *a, size_t an,
                   const char *b, size_t bn, bool a_there, bool b_there)
{
    char qa[SHOWN * 4 + 8], qb[SHOWN * 4 + 8];
    snprintf(msg, WK_CHECK_MSG_LEN, "%s %zu: expected %s, got %s", what, at,
             a_there ? wk_check_quote(qa, sizeof qa, a, an) : "nothing", b_there ? wk_check_quote(qb, sizeof qb, b, bn) : "nothing");
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next line of p[*at..n), trailing blanks cut; false at the end. */
static bool next_line(const char *p, size_t n, size_t *at, const char **line, size_t *len)
{
    if (*at >= n)
        return false;
    const char *s = p + *at, *nl = memchr(s, '\n', n - *at);
    size_t l = nl ? (size_t)(nl - s) : n - *at;
    *at += l + 1;
    while (l > 0 && blank(s[l - 1]))
        l--;
    *line = s;
    *len = l;
    return true;
}

/* True when only empty lines (after trimming) are left. */
static bool rest_empty(const char *p, size_t n, size_t at)
{
    const char *l;
    size_t len;
    while (next_line(p, n, &at, &l, &len))
        if (len)
            return false;
    return true;
}

static bool check_lines(const char *out, size_t on, const char *ans, size_t an, char msg[WK_CHECK_MSG_LEN])
{
    size_t oa = 0, aa = 0, lineno = 0;
    const char *ol, *al;
    size_t oln, aln;
    for (;;) {
        lineno++;
        bool ho = next_line(out, on, &oa, &ol, &oln), ha = next_line(ans, an, &aa, &al, &aln);
        if (!ho && !ha)
            return true;
        if (!ho || !ha) {
            if (ho ? (oln == 0 && rest_empty(out, on, oa)) : (aln == 0 && rest_empty(ans, an, aa)))
                return true;
            differ(msg, "line", lineno, al, aln, ol, oln, ha, ho);
            return false;
        }
        if (oln != aln || memcmp(ol, al, oln) != 0) {
            differ(msg, "line", lineno, al, aln, ol, oln, true, true);
            return false;
        }
    }
}

static bool next_token(const char *p, size_t n, size_t *at, const char **tok, size_t *len)
{
    size_t i = *at;
    while (i < n && isspace((unsigned char)p[i]))
        i++;
    if (i >= n) {
        *at = n;
        return false;
    }
    size_t s = i;
    while (i < n && !isspace((unsigned char)p[i]))
        i++;
    *tok = p + s;
    *len = i - s;
    *at = i;
    return true;
}

/* Whether t is spelled as judges write numbers: [+-] digits [. digits]
 * [e [+-] digits], a side of the point possibly empty but not both.
 * strtod alone would also take hex ("0x10" is 16), "inf" and "nan(...)". */
static bool decimal(const char *t, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (t[i] == '+' || t[i] == '-'))
        i++;
    for (; i < n && isdigit((unsigned char)t[i]); i++)
        digits++;
    if (i < n && t[i] == '.')
        for (i++; i < n && isdigit((unsigned char)t[i]); i++)
            digits++;
    if (!digits)
        return false;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        size_t e = i;
        while (i < n && isdigit((unsigned char)t[i]))
            i++;
        if (i == e)
            return false;
    }
    return i == n;
}

/* A finite decimal number spelled by the whole token, else false. */
static bool number(const char *t, size_t n, double *v)
{
    char buf[64], *end;
    if (n == 0 || n >= sizeof buf || !decimal(t, n))
        return false;
    memcpy(buf, t, n);
    buf[n] = 0;
    *v = strtod(buf, &end);
    return *end == 0 && isfinite(*v);
}

static bool same_token(q_check_kind k, double eps, const char *a, size_t an, const char *b, size_t bn)
{
    if (an == bn && memcmp(a, b, an) == 0)
        return true;
    double x, y;
    if (k != Q_CHECK_FLOAT || !number(a, an, &x) || !number(b, bn, &y))
        return false;
    double d = fabs(x - y);
    return d <= eps || d <= eps * fabs(x);
}

static bool check_tokens(q_check_kind k, double eps, const char *out, size_t on, const char *ans, size_t an,
                         char msg[WK_CHECK_MSG_LEN])
{
    size_t oa = 0, aa = 0, n = 0;
    const char *ot = NULL, *at = NULL;
    size_t otn = 0, atn = 0;
    for (;;) {
        n++;
        bool ho = next_token(out, on, &oa, &ot, &otn), ha = next_token(ans, an, &aa, &at, &atn);
        if (!ho && !ha)
            return true;
        if (!ho || !ha || !same_token(k, eps, at, atn, ot, otn)) {
            differ(msg, "token", n, at, atn, ot, otn, ha, ho);
            return false;
        }
    }
}

bool wk_check_text(q_check_kind k, double eps, const void *out, size_t outlen, const void *ans, size_t anslen,
                   char msg[WK_CHECK_MSG_LEN])
{
    msg[0] = 0;
    if (k == Q_CHECK_LINES)
        return check_lines(out, outlen, ans, anslen, msg);
    if (k == Q_CHECK_TOKENS || k == Q_CHECK_FLOAT)
        return check_tokens(k, eps, out, outlen, ans, anslen, msg);
    if (outlen == anslen && (outlen == 0 || memcmp(out, ans, outlen) == 0))
        return true;
    size_t i = 0;
    while (i < outlen && i < anslen && ((const char *)out)[i] == ((const char *)ans)[i])
        i++;
    snprintf(msg, WK_CHECK_MSG_LEN, "byte %zu differs (output %zu bytes, expected %zu)", i, outlen, anslen);
    return false;
}

void wk_first_line(char msg[WK_CHECK_MSG_LEN], const char *p, size_t n)
{
    size_t o = 0, k;
    for (size_t i = 0; i < n && p[i] != '\n'; i += k ? k : 1) {
        k = wk_text_char(p + i, n - i);
        if (o + (k ? k : 1) >= WK_CHECK_MSG_LEN)
            break; /* never half a character */
        if (k)
            memcpy(msg + o, p + i, k);
        else
            msg[o] = p[i] == '\r' ? '\r' : '?';
        o += k ? k : 1;
    }
    while (o > 0 && msg[o - 1] == '\r')
        o--;
    for (size_t i = 0; i < o; i++)
        if (msg[i] == '\r')
            msg[i] = '?';
    msg[o] = 0;
}
