/* pattern.c -- test-path patterns expanded by hand (pattern.h). */
#include <stdbool.h>

#include "worker/problem/pattern.h"

/* At p (just past a '%'): the conversion's width and zero flag, and its
 * length past the '%'; 0 when it is not one we take. */
static size_t conversion(const char *p, unsigned *width, bool *zero)
{
    size_t k = 0;
    *zero = p[k] == '0';
    if (*zero)
        k++;
    *width = 0;
    if (p[k] >= '1' && p[k] <= '9')
        *width = (unsigned)(p[k++] - '0');
    if (*zero && !*width)
        return 0;
    return p[k] == 'd' ? k + 1 : 0;
}

const char *wk_pattern_check(const char *pat)
{
    int convs = 0;
    for (const char *p = pat; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        unsigned w;
        bool z;
        size_t k = conversion(p + 1, &w, &z);
        if (!k)
            return "has a '%' that is not %d, %Nd, %0Nd (N 1-9) or %%";
        convs++;
        p += k;
    }
    return convs == 1 ? NULL : convs ? "has more than one %d" : "has no %d";
}

int wk_pattern_expand(const char *pat, uint64_t i, char *out, size_t size)
{
    if (wk_pattern_check(pat))
        return -1;
    char digits[24];
    size_t nd = 0;
    do
        digits[nd++] = (char)('0' + i % 10);
    while ((i /= 10) != 0);
    size_t o = 0;
    for (const char *p = pat; *p; p++) {
        unsigned w = 0;
        bool z = false;
        size_t k = 0;
        if (*p == '%' && p[1] == '%') {
            p++;
        } else if (*p == '%' && (k = conversion(p + 1, &w, &z)) != 0) {
            for (size_t pad = nd; pad < w; pad++) {
                if (o + 1 >= size)
                    return -1;
                out[o++] = z ? '0' : ' ';
            }
            for (size_t d = nd; d > 0; d--) {
                if (o + 1 >= size)
                    return -1;
                out[o++] = digits[d - 1];
            }
            p += k;
            continue;
        }
        if (o + 1 >= size)
            return -1;
        out[o++] = *p;
    }
    if (o >= size)
        return -1;
    out[o] = 0;
    return 0;
}
