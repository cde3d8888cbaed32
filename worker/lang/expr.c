/* expr.c -- placeholder expressions (see expr.h): a recursive descent
 * over the operator's text, depth-bounded, saturating arithmetic. The
 * text is the operator's file, but a mistake in it must be an error with a
 * reason, never a crash or an overflow.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "worker/lang/expr.h"

#define DEPTH_MAX 16

const char *const wk_expr_names[WK_V_COUNT] = {
    "memory_mb", "memory_kb", "memory_bytes", "heap_mb", "heap_kb", "heap_bytes",
    "stack_mb", "stack_kb", "cpu_ms", "wall_ms", "processes", "open_files",
};

typedef struct parser {
    const char *p, *end;
    const int64_t *vars;
    int depth;
    char *err;
    size_t errlen;
} parser;

static int fail(parser *s, const char *why)
{
    snprintf(s->err, s->errlen, "%s", why);
    return -1;
}

static void blanks(parser *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
        s->p++;
}

static bool eat(parser *s, char c)
{
    blanks(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

static int64_t sat(__int128 v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

static int expr(parser *s, int64_t *out);

/* A name: a variable, or min/max followed by their two arguments. */
static int name(parser *s, int64_t *out)
{
    const char *start = s->p;
    while (s->p < s->end && (isalnum((unsigned char)*s->p) || *s->p == '_'))
        s->p++;
    size_t n = (size_t)(s->p - start);
    if ((n == 3 && (strncmp(start, "min", 3) == 0 || strncmp(start, "max", 3) == 0)) && eat(s, '(')) {
        int64_t a, b;
        if (expr(s, &a) < 0 || !eat(s, ',') || expr(s, &b) < 0 || !eat(s, ')'))
            return s->err[0] ? -1 : fail(s, "min and max take (a, b)");
        *out = (start[1] == 'i') == (a < b) ? a : b;
        return 0;
    }
    for (int i = 0; i < WK_V_COUNT; i++)
        if (strlen(wk_expr_names[i]) == n && strncmp(wk_expr_names[i], start, n) == 0) {
            *out = s->vars[i];
            return 0;
        }
    char why[96];
    snprintf(why, sizeof why, "unknown name \"%.*s\"", (int)(n < 32 ? n : 32), start);
    return fail(s, why);
}

static int factor(parser *s, int64_t *out)
{
    blanks(s);
    if (s->p >= s->end)
        return fail(s, "an expression ends too soon");
    if (++s->depth > DEPTH_MAX)
        return fail(s, "nested too deep");
    int rc = 0;
    if (*s->p == '(') {
        s->p++;
        rc = expr(s, out) < 0 ? -1 : eat(s, ')') ? 0 : fail(s, "a '(' is not closed");
    } else if (*s->p == '-') {
        s->p++;
        rc = factor(s, out);
        *out = sat(-(__int128)*out);
    } else if (isdigit((unsigned char)*s->p)) {
        __int128 v = 0;
        for (; s->p < s->end && isdigit((unsigned char)*s->p); s->p++)
            v = v * 10 + (*s->p - '0') > INT64_MAX ? INT64_MAX : v * 10 + (*s->p - '0');
        *out = (int64_t)v;
    } else if (isalpha((unsigned char)*s->p) || *s->p == '_') {
        rc = name(s, out);
    } else {
        char why[48];
        snprintf(why, sizeof why, "unexpected '%c'", isprint((unsigned char)*s->p) ? *s->p : '?');
        rc = fail(s, why);
    }
    s->depth--;
    return rc;
}

static int term(parser *s, int64_t *out)
{
    if (factor(s, out) < 0)
        return -1;
    for (;;) {
        bool mul = eat(s, '*');
        if (!mul && !eat(s, '/'))
            return 0;
        int64_t b;
        if (factor(s, &b) < 0)
            return -1;
        if (!mul && b == 0)
            return fail(s, "a division by zero");
        *out = mul ? sat((__int128)*out * b) : sat((__int128)*out / b);
    }
}

static int expr(parser *s, int64_t *out)
{
    if (term(s, out) < 0)
        return -1;
    for (;;) {
        bool add = eat(s, '+');
        if (!add && !eat(s, '-'))
            return 0;
        int64_t b;
        if (term(s, &b) < 0)
            return -1;
        *out = sat(add ? (__int128)*out + b : (__int128)*out - b);
    }
}

int wk_expr_eval(const char *str, size_t len, const int64_t *vars, int64_t *out, char *err, size_t errlen)
{
    parser s = { str, str + len, vars, 0, err, errlen };
    err[0] = 0;
    if (expr(&s, out) < 0)
        return -1;
    blanks(&s);
    if (s.p != s.end)
        return fail(&s, "unexpected text after an expression");
    return 0;
}

int wk_expand(const char *in, const int64_t *vars, char *out, size_t outlen, char *err, size_t errlen)
{
    size_t o = 0;
    for (const char *p = in; *p; p++) {
        char lit = 0;
        int64_t v = 0;
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            lit = *p++;
        } else if (*p == '}') {
            return snprintf(err, errlen, "a '}' without its '{' (write }} for a brace)"), -1;
        } else if (*p == '{') {
            const char *close = strchr(p + 1, '}');
            if (!close)
                return snprintf(err, errlen, "a '{' is not closed (write {{ for a brace)"), -1;
            char why[96];
            if (wk_expr_eval(p + 1, (size_t)(close - p - 1), vars, &v, why, sizeof why) < 0)
                return snprintf(err, errlen, "{%.*s}: %s", (int)(close - p - 1 < 48 ? close - p - 1 : 48), p + 1,
                                why), -1;
            p = close;
        } else {
            lit = *p;
        }
        int n = lit ? snprintf(out + o, outlen - o, "%c", lit)
                    : snprintf(out + o, outlen - o, "%lld", (long long)(v < 1 ? 1 : v));
        if (n < 0 || (size_t)n >= outlen - o)
            return snprintf(err, errlen, "longer than %zu bytes once expanded", outlen - 1), -1;
        o += (size_t)n;
    }
    if (outlen)
        out[o] = 0;
    return (int)o;
}
