/* std_checkers.c -- testlib's standard checkers, ours (std_checkers.h).
 *
 * Each file is a stream read front to back: tokens, lines, numbers. The
 * answer file is the judge's: a malformed one FAILS (testlib's _fail);
 * the output is the program's: malformed, short or long, it is REJECTED
 * (testlib's _pe and _wa, which gradeq both calls WRONG_ANSWER). The
 * comparisons follow testlib's: doubles by its doubleCompare (absolute or
 * relative error, 1e-15 of slack), abs-only ones as their checkers write
 * them, integers exactly, YES/NO without case.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "worker/engine/std_checkers.h"

typedef struct tin {
    const char *p;
    size_t n, at;
    bool ans;       /* the answer file: its faults are the judge's */
} tin;

typedef struct tok {
    const char *p;
    size_t n;
} tok;

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool seek_eof(tin *s)
{
    while (s->at < s->n && blank(s->p[s->at]))
        s->at++;
    return s->at == s->n;
}

static bool next_tok(tin *s, tok *t)
{
    if (seek_eof(s))
        return false;
    size_t b = s->at;
    while (s->at < s->n && !blank(s->p[s->at]))
        s->at++;
    *t = (tok){ s->p + b, s->at - b };
    return true;
}

/* A line as testlib reads one: up to LF (a CR right before it dropped),
 * "" at the end. */
static tok next_line(tin *s)
{
    size_t b = s->at;
    const char *nl = memchr(s->p + b, '\n', s->n - b);
    size_t e = nl ? (size_t)(nl - s->p) : s->n;
    s->at = nl ? e + 1 : s->n;
    if (e > b && s->p[e - 1] == '\r')
        e--;
    return (tok){ s->p + b, e - b };
}

static int say(char *msg, int verdict, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *msg, int verdict, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, WK_CHECK_MSG_LEN, fmt, ap);
    va_end(ap);
    return verdict;
}

/* A file's fault: the answer's fails the judge, the output's is wrong. */
static int bad(const tin *s, char *msg, const char *what, const tok *t)
{
    char q[WK_CHECK_QUOTE_LEN];
    if (!t)
        return say(msg, s->ans ? WK_CHECK_FAILED : WK_CHECK_REJECTED, "%s: unexpected end of the %s", what,
                   s->ans ? "answer" : "output");
    return say(msg, s->ans ? WK_CHECK_FAILED : WK_CHECK_REJECTED, "%s: expected %s in the %s, found %s", what,
               what, s->ans ? "answer" : "output", wk_check_quote(q, sizeof q, t->p, t->n));
}

/* testlib's strict integer in [lo, hi]. */
static bool integer(const tok *t, int64_t lo, int64_t hi, int64_t *v)
{
    size_t i = 0;
    bool neg = t->n > 1 && t->p[0] == '-';
    i = neg;
    if (i == t->n || t->n > 20)
        return false;
    if (t->p[i] == '0' && (t->n - i > 1 || neg))
        return false;
    uint64_t u = 0, lim = neg ? (uint64_t)(-(lo + 1)) + 1 : (uint64_t)hi;
    for (; i < t->n; i++) {
        if (!isdigit((unsigned char)t->p[i]) || u > (lim - (unsigned)(t->p[i] - '0')) / 10)
            return false;
        u = u * 10 + (unsigned)(t->p[i] - '0');
    }
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

/* A finite decimal double: [+-] digits [. digits] [e [+-] digits]. */
static bool dbl(const tok *t, double *v)
{
    char buf[64], *end;
    size_t i = 0, digits = 0;
    const char *p = t->p;
    if (t->n == 0 || t->n >= sizeof buf)
        return false;
    if (p[i] == '+' || p[i] == '-')
        i++;
    for (; i < t->n && isdigit((unsigned char)p[i]); i++)
        digits++;
    if (i < t->n && p[i] == '.')
        for (i++; i < t->n && isdigit((unsigned char)p[i]); i++)
            digits++;
    if (!digits)
        return false;
    if (i < t->n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < t->n && (p[i] == '+' || p[i] == '-'))
            i++;
        size_t e0 = i;
        while (i < t->n && isdigit((unsigned char)p[i]))
            i++;
        if (i == e0)
            return false;
    }
    if (i != t->n)
        return false;
    memcpy(buf, p, t->n);
    buf[t->n] = 0;
    *v = strtod(buf, &end);
    return *end == 0 && isfinite(*v);
}

/* testlib's doubleCompare for finite values. */
static bool close_rel(double expected, double got, double eps)
{
    if (fabs(got - expected) <= eps + 1e-15)
        return true;
    double a = expected * (1.0 - eps), b = expected * (1.0 + eps);
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return got + 1e-15 >= lo && got <= hi + 1e-15;
}

/* Accepted, unless the output holds more than blanks. */
static int ok_if_done(tin *out, char *msg)
{
    if (!seek_eof(out))
        return say(msg, WK_CHECK_REJECTED, "extra information in the output after the answer");
    msg[0] = 0;
    return WK_CHECK_ACCEPTED;
}

static bool same(const tok *a, const tok *b)
{
    return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

static int differ(char *msg, const char *what, size_t k, const tok *a, const tok *b)
{
    char qa[WK_CHECK_QUOTE_LEN], qb[WK_CHECK_QUOTE_LEN];
    return say(msg, WK_CHECK_REJECTED, "%s %zu: expected %s, got %s", what, k, wk_check_quote(qa, sizeof qa, a->p, a->n),
               wk_check_quote(qb, sizeof qb, b->p, b->n));
}

static int wcmp(tin *ans, tin *out, char *msg)
{
    tok a, b;
    size_t k = 0;
    while (!seek_eof(ans) && !seek_eof(out)) {
        next_tok(ans, &a);
        next_tok(out, &b);
        if (!same(&a, &b))
            return differ(msg, "token", ++k, &a, &b);
        k++;
    }
    if (!seek_eof(ans))
        return say(msg, WK_CHECK_REJECTED, "the output ends after %zu tokens, the answer has more", k);
    if (!seek_eof(out))
        return say(msg, WK_CHECK_REJECTED, "the output has more than the answer's %zu tokens", k);
    msg[0] = 0;
    return WK_CHECK_ACCEPTED;
}

/* The next integer of s into v; false with *verdict set (after bad()). */
static bool read_int(tin *s, int64_t lo, int64_t hi, int64_t *v, int *verdict, char *msg, const char *what)
{
    tok t;
    if (!next_tok(s, &t))
        return *verdict = bad(s, msg, what, NULL), false;
    if (!integer(&t, lo, hi, v))
        return *verdict = bad(s, msg, what, &t), false;
    return true;
}

static bool read_dbl(tin *s, double *v, int *verdict, char *msg)
{
    tok t;
    if (!next_tok(s, &t))
        return *verdict = bad(s, msg, "a number", NULL), false;
    if (!dbl(&t, v))
        return *verdict = bad(s, msg, "a number", &t), false;
    return true;
}

static int ncmp(tin *ans, tin *out, char *msg)
{
    int64_t a, b;
    size_t k = 0;
    int v;
    while (!seek_eof(ans) && !seek_eof(out)) {
        k++;
        if (!read_int(ans, INT64_MIN, INT64_MAX, &a, &v, msg, "an integer") ||
            !read_int(out, INT64_MIN, INT64_MAX, &b, &v, msg, "an integer"))
            return v;
        if (a != b)
            return say(msg, WK_CHECK_REJECTED, "number %zu: expected %lld, got %lld", k, (long long)a, (long long)b);
    }
    size_t extra_ans = 0, extra_out = 0;
    for (; !seek_eof(ans); extra_ans++)
        if (!read_int(ans, INT64_MIN, INT64_MAX, &a, &v, msg, "an integer"))
            return v;
    for (; !seek_eof(out); extra_out++)
        if (!read_int(out, INT64_MIN, INT64_MAX, &b, &v, msg, "an integer"))
            return v;
    if (extra_ans)
        return say(msg, WK_CHECK_REJECTED, "the answer has %zu numbers, the output %zu", k + extra_ans, k);
    if (extra_out)
        return say(msg, WK_CHECK_REJECTED, "the output has %zu numbers, the answer %zu", k + extra_out, k);
    msg[0] = 0;
    return WK_CHECK_ACCEPTED;
}

static int by_value(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* All the integers of s, malloc'd: count in *n; NULL with a verdict. */
static int64_t *all_ints(tin *s, size_t *n, int *verdict, char *msg)
{
    size_t cap = 64;
    int64_t *v = malloc(cap * sizeof *v);
    *n = 0;
    while (v && !seek_eof(s)) {
        if (*n == cap) {
            int64_t *w = realloc(v, 2 * cap * sizeof *v);
            if (!w)
                break;
            v = w;
            cap *= 2;
        }
        if (!read_int(s, INT64_MIN, INT64_MAX, &v[*n], verdict, msg, "an integer")) {
            free(v);
            return NULL;
        }
        (*n)++;
    }
    if (!v || !seek_eof(s)) {
        free(v);
        *verdict = say(msg, WK_CHECK_FAILED, "out of memory for the numbers");
        return NULL;
    }
    return v;
}

static int uncmp(tin *ans, tin *out, char *msg)
{
    size_t na, no;
    int verdict;
    int64_t *a = all_ints(ans, &na, &verdict, msg), *b = a ? all_ints(out, &no, &verdict, msg) : NULL;
    if (!a || !b) {
        free(a);
        return verdict;
    }
    if (na != no)
        verdict = say(msg, WK_CHECK_REJECTED, "expected %zu numbers, got %zu", na, no);
    else {
        qsort(a, na, sizeof *a, by_value);
        qsort(b, no, sizeof *b, by_value);
        verdict = na && memcmp(a, b, na * sizeof *a) ? say(msg, WK_CHECK_REJECTED,
                                                           "the numbers differ (as unordered sequences of %zu)", na)
                                                     : (msg[0] = 0, WK_CHECK_ACCEPTED);
    }
    free(a);
    free(b);
    return verdict;
}

static int icmp(tin *ans, tin *out, char *msg)
{
    int64_t a, b;
    int v;
    if (!read_int(ans, INT32_MIN, INT32_MAX, &a, &v, msg, "an int32") ||
        !read_int(out, INT32_MIN, INT32_MAX, &b, &v, msg, "an int32"))
        return v;
    if (a != b)
        return say(msg, WK_CHECK_REJECTED, "expected %lld, got %lld", (long long)a, (long long)b);
    return ok_if_done(out, msg);
}

static bool huge(const tok *t)
{
    size_t i = t->n > 1 && t->p[0] == '-';
    if (i == t->n || (t->p[i] == '0' && (t->n - i > 1 || i)))
        return false;
    for (; i < t->n; i++)
        if (!isdigit((unsigned char)t->p[i]))
            return false;
    return true;
}

static int hcmp(tin *ans, tin *out, char *msg)
{
    tok a, b;
    if (!next_tok(ans, &a))
        return bad(ans, msg, "an integer", NULL);
    if (!next_tok(out, &b))
        return bad(out, msg, "an integer", NULL);
    if (!huge(&a))
        return bad(ans, msg, "an integer", &a);
    if (!seek_eof(ans))
        return say(msg, WK_CHECK_FAILED, "the answer has more than one token");
    if (!huge(&b))
        return bad(out, msg, "an integer", &b);
    if (!same(&a, &b))
        return differ(msg, "number", 1, &a, &b);
    return ok_if_done(out, msg);
}

/* fcmp and lcmp: the answer's lines (a last empty one ignored), each
 * against the output's line, exactly or as tokens. */
static bool same_words(const tok *a, const tok *b)
{
    tin x = { a->p, a->n, 0, true }, y = { b->p, b->n, 0, false };
    tok s, t;
    for (;;) {
        bool hs = next_tok(&x, &s), ht = next_tok(&y, &t);
        if (!hs || !ht)
            return hs == ht;
        if (!same(&s, &t))
            return false;
    }
}

static int lines(tin *ans, tin *out, bool words, char *msg)
{
    size_t k = 0;
    while (ans->at < ans->n) {
        tok a = next_line(ans);
        if (a.n == 0 && ans->at == ans->n)
            break;
        tok b = next_line(out);
        k++;
        if (words ? !same_words(&a, &b) : !same(&a, &b))
            return differ(msg, "line", k, &a, &b);
    }
    return ok_if_done(out, msg);
}

static int yes_no(const tok *t)
{
    if (t->n == 3 && strncasecmp(t->p, "yes", 3) == 0)
        return 1;
    return t->n == 2 && strncasecmp(t->p, "no", 2) == 0 ? 0 : -1;
}

static int yesno(tin *ans, tin *out, bool many, char *msg)
{
    tok a, b;
    size_t k = 0;
    while (many ? !seek_eof(ans) && !seek_eof(out) : k == 0) {
        k++;
        if (!next_tok(ans, &a))
            return bad(ans, msg, "YES or NO", NULL);
        if (!next_tok(out, &b))
            return bad(out, msg, "YES or NO", NULL);
        if (yes_no(&a) < 0)
            return bad(ans, msg, "YES or NO", &a);
        if (yes_no(&b) < 0)
            return bad(out, msg, "YES or NO", &b);
        if (yes_no(&a) != yes_no(&b))
            return differ(msg, "token", k, &a, &b);
    }
    if (!many)
        return ok_if_done(out, msg);
    size_t extra_ans = 0, extra_out = 0;
    while (next_tok(ans, &a))
        extra_ans++;
    while (next_tok(out, &b))
        extra_out++;
    if (extra_ans || extra_out)
        return say(msg, WK_CHECK_REJECTED, "the answer has %zu tokens, the output %zu", k + extra_ans, k + extra_out);
    msg[0] = 0;
    return WK_CHECK_ACCEPTED;
}

/* One double (rcmp, acmp, dcmp) or one per answer number (rncmp, rcmpN):
 * within eps, absolute only (abs) or testlib's absolute-or-relative. */
static int doubles(tin *ans, tin *out, bool seq, double eps, bool abs_only, double slack, char *msg)
{
    double a, b;
    size_t k = 0;
    int v;
    while (seq ? !seek_eof(ans) : k == 0) {
        k++;
        if (!read_dbl(ans, &a, &v, msg) || !read_dbl(out, &b, &v, msg))
            return v;
        if (abs_only ? fabs(a - b) > eps + slack : !close_rel(a, b, eps))
            return say(msg, WK_CHECK_REJECTED, "number %zu: expected %.10g, got %.10g (error %.3g over %g)", k, a, b,
                       fabs(a - b), eps);
    }
    return ok_if_done(out, msg);
}

int wk_check_std(q_std_checker k, const void *out, size_t outlen, const void *ans, size_t anslen,
                 char msg[WK_CHECK_MSG_LEN])
{
    tin a = { ans, anslen, 0, true }, o = { out, outlen, 0, false };
    msg[0] = 0;
    switch (k) {
    case Q_STD_WCMP: return wcmp(&a, &o, msg);
    case Q_STD_NCMP: return ncmp(&a, &o, msg);
    case Q_STD_UNCMP: return uncmp(&a, &o, msg);
    case Q_STD_ICMP: return icmp(&a, &o, msg);
    case Q_STD_HCMP: return hcmp(&a, &o, msg);
    case Q_STD_FCMP: return lines(&a, &o, false, msg);
    case Q_STD_LCMP: return lines(&a, &o, true, msg);
    case Q_STD_YESNO: return yesno(&a, &o, false, msg);
    case Q_STD_NYESNO: return yesno(&a, &o, true, msg);
    case Q_STD_RCMP: return doubles(&a, &o, false, 1.5e-6, true, 1e-15, msg);
    case Q_STD_ACMP: return doubles(&a, &o, false, 1.5e-6, true, 1e-15, msg);
    case Q_STD_DCMP: return doubles(&a, &o, false, 1e-6, false, 0, msg);
    case Q_STD_RNCMP: return doubles(&a, &o, true, 1.5e-5, true, 1e-15, msg);
    case Q_STD_RCMP4: return doubles(&a, &o, true, 1e-4, false, 0, msg);
    case Q_STD_RCMP6: return doubles(&a, &o, true, 1e-6, false, 0, msg);
    case Q_STD_RCMP9: return doubles(&a, &o, true, 1e-9, false, 0, msg);
    case Q_STD_COUNT: break;
    }
    return say(msg, WK_CHECK_FAILED, "no such standard checker");
}
