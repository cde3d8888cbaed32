/* err.h -- internal to queue/: writing one error line into the caller's
 * buffer.
 *
 * Every function of queue/ that fails writes one line into a caller-owned
 * `err` buffer of `errlen` bytes and returns -1 (or NULL); none prints,
 * exits or aborts. q_fail is that one step, shared by every file.
 */
#ifndef GRADEQ_QUEUE_ERR_H
#define GRADEQ_QUEUE_ERR_H

#include <stddef.h>

/* Formats the message into err[0..errlen) when err is not NULL and errlen
 * is not 0, cutting it to fit (a cut message is still NUL-terminated).
 * Always returns -1, so callers can write `return q_fail(...)`. Allocates
 * nothing; thread-safe. */
__attribute__((format(printf, 3, 4)))
int q_fail(char *err, size_t errlen, const char *fmt, ...);

#endif
