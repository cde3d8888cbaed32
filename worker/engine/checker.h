/* checker.h -- is a test's output right? The built-in rules, and a checker
 * program run testlib's way in a box of its own.
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
#include "sandbox/sandbox.h"

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

typedef enum { WK_CHECK_ACCEPTED, WK_CHECK_REJECTED, WK_CHECK_FAILED } wk_check_verdict;

/* Runs the checker `prog` (argv ending in "input", "output", "answer";
 * files with three free slots at its end; limits) in box with those three
 * files placed: exit 0 accepted, 1
 * or 2 rejected, anything else failed (CHECKER_ERROR). msg gets the first
 * line of its stderr. Returns the verdict, or -1 when the sandbox failed
 * (msg says why): not the checker's fault nor the program's. */
int wk_check_program(sbx_box *box, const sbx_spec *prog, const void *input, size_t inlen, const void *out,
                     size_t outlen, const void *ans, size_t anslen, char msg[WK_CHECK_MSG_LEN]);

#endif
