/* err.c -- q_fail: one error line into the caller's buffer (see err.h).
 *
 * Invariant: never allocates and never writes past err[errlen - 1], so it
 * is safe on every error path, out-of-memory ones included.
 */
#include "queue/err.h"

#include <stdarg.h>
#include <stdio.h>

int q_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        (void)vsnprintf(err, errlen, fmt, ap); /* truncation is acceptable */
        va_end(ap);
    }
    return -1;
}
