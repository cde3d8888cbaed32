/* numbers.h -- numbers written in problem material (limits, counts), read
 * exactly by our own code (numbers.c): no strtod, no locale, no overflow.
 *
 * Each returns NULL when s[0..n) is such a number (and sets *out), else
 * why not, as a phrase the caller puts after the field's name and the
 * quoted text: "is not a number", "is negative", "is too large". Blanks,
 * units ("1 s"), hex, NaN, infinities, YAML's 1_000 and anything but the
 * digits below are "not a number".
 */
#ifndef GRADEQ_WORKER_NUMBERS_H
#define GRADEQ_WORKER_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

/* A count or a whole limit: digits, no sign, no leading zero (010 is 8 to
 * a YAML 1.1 reader and 10 to others), at most max. */
const char *wk_num_uint(const char *s, size_t n, uint64_t max, uint64_t *out);

/* A non-negative decimal [+]digits[.digits][(e|E)[+-]digits] (either side
 * of the point may be empty, not both) in units of 10^-scale, rounded up
 * to a whole unit: "2.5" at scale 3 is 2500, "0.0001" is 1; at most max.
 * Exact for any length: computed on the digits, never in floating point. */
const char *wk_num_scaled(const char *s, size_t n, unsigned scale, uint64_t max, uint64_t *out);

#endif
