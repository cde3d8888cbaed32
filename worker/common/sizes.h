/* sizes.h -- numbers and sizes from a command line or a configuration. */
#ifndef GRADEQ_WORKER_SIZES_H
#define GRADEQ_WORKER_SIZES_H

#include <stdint.h>

/* "1024", "64K", "64M", "1G" (binary units; "64MiB" and "64MB" too).
 * Returns 0, or -1 for anything else (a sign, an overflow, trailing text). */
int wk_parse_size(const char *s, uint64_t *out);
/* A decimal number with nothing around it. */
int wk_parse_uint(const char *s, uint64_t *out);

#endif
