/* pattern.h -- the test-path patterns of a package ("tests/%02d",
 * "tests/%02d.a"), expanded by our own code (pattern.c), never handed to
 * a printf-family function: a pattern is the material's, and "%s" or
 * "%n" there would read or write memory.
 *
 * A pattern holds exactly one conversion: %d, or %Wd / %0Wd with a width
 * W of 1..9 digits' worth (1-9); "%%" is a literal '%'. Anything else
 * after a '%' is refused.
 */
#ifndef GRADEQ_WORKER_PATTERN_H
#define GRADEQ_WORKER_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* NULL when pat is such a pattern, else why not. */
const char *wk_pattern_check(const char *pat);

/* pat with its conversion replaced by i; 0, or -1 when it does not fit
 * size (or pat is not a pattern). */
int wk_pattern_expand(const char *pat, uint64_t i, char *out, size_t size);

#endif
