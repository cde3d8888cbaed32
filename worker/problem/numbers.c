/* numbers.c -- numbers of problem material, read exactly (numbers.h).
 *
 * A decimal is read as its significant digits D and a power of ten p
 * (value = D x 10^p, p already shifted by the scale); the whole part is
 * accumulated with an overflow check at each digit, and any digit left
 * over past the point makes it round up. An exponent is read with its own
 * bound, so "1e999999999999" is "too large" rather than a wrapped int.
 */
#include <stdbool.h>
#include <string.h>

#include "worker/problem/numbers.h"

#define NAN_ "is not a number"
#define NEG "is negative"
#define BIG "is too large"

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* acc = acc * 10 + d, false on overflow past max. */
static bool push(uint64_t *acc, unsigned d, uint64_t max)
{
    if (*acc > (max - d) / 10)
        return false;
    *acc = *acc * 10 + d;
    return true;
}

const char *wk_num_uint(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    if (n > 0 && s[0] == '-') {
        bool num = n > 1;
        for (size_t i = 1; i < n; i++)
            num = num && digit(s[i]);
        return num ? NEG : NAN_;
    }
    if (n == 0)
        return NAN_;
    for (size_t i = 0; i < n; i++)
        if (!digit(s[i]))
            return NAN_;
    if (n > 1 && s[0] == '0')
        return "has a leading zero (octal to some readers)";
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        if (!push(&v, (unsigned)(s[i] - '0'), max))
            return BIG;
    *out = v;
    return NULL;
}

const char *wk_num_scaled(const char *s, size_t n, unsigned scale, uint64_t max, uint64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    size_t int0 = i;
    while (i < n && digit(s[i]))
        i++;
    size_t int1 = i, frac0 = i, frac1 = i;
    if (i < n && s[i] == '.') {
        frac0 = ++i;
        while (i < n && digit(s[i]))
            i++;
        frac1 = i;
    }
    if (int1 == int0 && frac1 == frac0)
        return NAN_;
    int64_t e = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = i < n && s[i] == '-';
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i == n || !digit(s[i]))
            return NAN_;
        for (; i < n && digit(s[i]); i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        if (eneg)
            e = -e;
    }
    if (i != n)
        return NAN_;
    /* The digits, int then frac, as one run d; value = d x 10^p. */
    int64_t p = e - (int64_t)(frac1 - frac0) + (int64_t)scale;
    size_t nd = (int1 - int0) + (frac1 - frac0);
    bool zero = true;
    for (size_t k = 0; k < nd; k++) {
        char c = k < int1 - int0 ? s[int0 + k] : s[frac0 + k - (int1 - int0)];
        zero = zero && c == '0';
    }
    if (neg && !zero)
        return NEG;
    if (zero)
        return *out = 0, NULL;
    /* The whole part: the first nd + p digits (then p more zeros if p > 0);
     * a nonzero digit after them rounds up. */
    int64_t whole = (int64_t)nd + p;
    if (whole > 40)
        return BIG;
    uint64_t v = 0;
    bool rest = false;
    for (int64_t k = 0; k < (int64_t)nd; k++) {
        char c = k < (int64_t)(int1 - int0) ? s[int0 + (size_t)k] : s[frac0 + (size_t)k - (int1 - int0)];
        if (k < whole) {
            if (!push(&v, (unsigned)(c - '0'), max))
                return BIG;
        } else if (c != '0') {
            rest = true;
        }
    }
    for (int64_t k = nd; k < whole; k++)
        if (!push(&v, 0, max))
            return BIG;
    if (rest) {
        if (v == max)
            return BIG;
        v++;
    }
    *out = v;
    return NULL;
}
