/* fuzz_points.c -- libFuzzer target for decimal points (queue/points.c),
 * which read a job's points strings and what checkers and interactors
 * print (`points X`, a CMS fraction, a Kattis score.txt).
 *
 * Any input is parsed or refused, both ways, without a crash or undefined
 * behaviour; a value read is within 0..Q_POINTS_MAX; its canonical text
 * reads back, exactly, as the same value; what the exact reading takes,
 * the rounding one takes as the same value. A difference traps.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "queue/points.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    char text[Q_POINTS_TEXT];
    q_points exact, rounded, back;
    int e = q_points_parse(s, size, false, &exact), r = q_points_parse(s, size, true, &rounded);
    if (e == 0 && (r != 0 || rounded != exact))
        __builtin_trap();
    if (r == 0) {
        if (rounded < 0 || rounded > Q_POINTS_MAX)
            __builtin_trap();
        q_points_format(rounded, text);
        if (q_points_parse(text, strlen(text), false, &back) != 0 || back != rounded)
            __builtin_trap();
    }
    if (size == sizeof(double)) {
        double d;
        memcpy(&d, data, sizeof d);
        if (q_points_from_double(d, &back) == 0 && (back < 0 || back > Q_POINTS_MAX))
            __builtin_trap();
    }
    return 0;
}
