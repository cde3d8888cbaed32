/* checker.h -- is a test's output right? The built-in rules (a checker
 * program is judge.h's).
 *
 * Messages are for the student: one line, at most WK_CHECK_MSG_LEN - 1
 * bytes, bytes of the output or the checker shown only escaped (control
 * bytes never reach a terminal or a log).
 */
#ifndef GRADEQ_WORKER_CHECKER_H
#define GRADEQ_WORKER_CHECKER_H

#include <stdbool.h>
#include <stddef.h>

#include "queue/grade.h"

#define WK_CHECK_MSG_LEN 256
/* Room wk_check_quote needs for any token. */
#define WK_CHECK_QUOTE_LEN 112

/* p[0..n) as "..." with anything but printable ASCII (and the quote and
 * backslash) as \xNN, cut after 24 bytes with "...": a token of the
 * output shown in a message. Returns out. */
const char *wk_check_quote(char *out, size_t size, const char *p, size_t n);

/* The built-in rules (Q_CHECK_EXACT, LINES, TOKENS, FLOAT with eps): true
 * when out matches ans; else msg says where they first differ. */
bool wk_check_text(q_check_kind k, double eps, const void *out, size_t outlen, const void *ans, size_t anslen,
                   char msg[WK_CHECK_MSG_LEN]);

/* The first line of a judge's stderr as a message: valid UTF-8 (it goes
 * out as a msgpack str and to terminals), a control byte or a byte not of
 * well-formed UTF-8 as '?', cut at a character's end. */
void wk_first_line(char msg[WK_CHECK_MSG_LEN], const char *p, size_t n);

#endif
