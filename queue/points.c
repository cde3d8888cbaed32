/* points.c -- decimal text to micro-points and back (points.h).
 *
 * The parser reads any number of digits without converting them to a
 * double: the digits that make whole micro-points are accumulated (each
 * step checked against Q_POINTS_MAX, so nothing overflows), the first
 * digit past them decides the rounding. An exponent is read saturated, so
 * "1e99999999999" is refused as too large, never wrapped.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "queue/points.h"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Digit i of the digits d1[0..n1) followed by d2[0..n2). */
static int digit_at(const char *d1, size_t n1, const char *d2, size_t i)
{
    return (i < n1 ? d1[i] : d2[i - n1]) - '0';
}

int q_points_parse(const char *s, size_t n, bool round, q_points *out)
{
    size_t i = 0;
    if (i < n && s[i] == '+')
        i++;
    const char *d1 = s + i;
    while (i < n && is_digit(s[i]))
        i++;
    size_t n1 = (size_t)(s + i - d1), n2 = 0;
    const char *d2 = s + i;
    if (i < n && s[i] == '.') {
        d2 = s + ++i;
        while (i < n && is_digit(s[i]))
            i++;
        n2 = (size_t)(s + i - d2);
    }
    if (n1 + n2 == 0)
        return -1;
    long long e = 0;
    if (round && i < n && (s[i] == 'e' || s[i] == 'E')) {
        bool neg = false;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        size_t e0 = i;
        for (; i < n && is_digit(s[i]); i++)
            if (e < 1000000000LL)
                e = e * 10 + (s[i] - '0');
        if (i == e0)
            return -1;
        e = neg ? -e : e;
    }
    if (i != n || (!round && n2 > 6))
        return -1;
    /* The value is the digits times 10^(e - n2); in micro-points, times
     * 10^shift. */
    long long shift = e - (long long)n2 + 6, total = (long long)(n1 + n2);
    long long kept = shift >= 0 ? total : total + shift;
    uint64_t acc = 0;
    for (long long k = 0; k < kept && k < total; k++) {
        acc = acc * 10 + (uint64_t)digit_at(d1, n1, d2, (size_t)k);
        if (acc > (uint64_t)Q_POINTS_MAX)
            return -1;
    }
    for (long long k = 0; shift > 0 && acc && k < shift; k++)
        if ((acc *= 10) > (uint64_t)Q_POINTS_MAX)
            return -1;
    if (shift < 0 && kept >= 0 && kept < total && digit_at(d1, n1, d2, (size_t)kept) >= 5)
        acc++;
    if (acc > (uint64_t)Q_POINTS_MAX)
        return -1;
    *out = (q_points)acc;
    return 0;
}

int q_points_from_double(double v, q_points *out)
{
    if (!isfinite(v) || v < 0 || v > (double)(Q_POINTS_MAX / Q_POINTS_ONE))
        return -1;
    double m = floor(v * (double)Q_POINTS_ONE + 0.5);
    if (m > (double)Q_POINTS_MAX)
        return -1;
    *out = (q_points)m;
    return 0;
}

const char *q_points_format(q_points p, char out[Q_POINTS_TEXT])
{
    long long whole = (long long)(p / Q_POINTS_ONE), frac = (long long)(p % Q_POINTS_ONE);
    if (!frac) {
        snprintf(out, Q_POINTS_TEXT, "%lld", whole);
        return out;
    }
    int n = snprintf(out, Q_POINTS_TEXT, "%lld.%06lld", whole, frac);
    while (n > 0 && out[n - 1] == '0')
        out[--n] = 0;
    return out;
}

q_points q_points_muldiv(q_points a, q_points b, q_points c)
{
    unsigned __int128 ab = (unsigned __int128)(uint64_t)a * (uint64_t)b;
    unsigned __int128 q = ab / (uint64_t)c, r = ab % (uint64_t)c;
    if (2 * r >= (unsigned __int128)(uint64_t)c)
        q++;
    return (q_points)q;
}
