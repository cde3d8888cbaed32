/* log.h -- one line per event on stderr, as text or JSON. Thread-safe: each
 * line is written with a single write(2). */
#ifndef GRADEQ_WORKER_LOG_H
#define GRADEQ_WORKER_LOG_H

#include <stdbool.h>

enum { WK_LOG_DEBUG, WK_LOG_INFO, WK_LOG_WARN, WK_LOG_ERROR };

void wk_log_setup(bool json, int level);
int wk_log_level_parse(const char *s);
/* fmt makes the message; the text form is "time level message". */
void wk_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
