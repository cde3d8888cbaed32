/* std_checkers.h -- testlib's standard checkers (wcmp, ncmp, rcmp6, yesno
 * and the rest of q_std_checker), written by us from their documented
 * behaviour (std_checkers.c): the same verdicts on the same files, so a
 * Polygon package that names std::NAME.cpp grades as Codeforces grades it,
 * with no third-party code.
 *
 * testlib's rules they keep: tokens are split on space, tab, CR and LF;
 * integers are strict (an optional '-', no leading zero, no "-0", within
 * int64 or int32); doubles are decimal (exponent allowed), finite; a
 * malformed answer file is the judge's fault (FAILED), a malformed or
 * short output the program's (REJECTED: testlib's PE and WA alike);
 * after an accepted verdict anything but blanks left in the output is
 * rejected ("extra information in the output").
 */
#ifndef GRADEQ_WORKER_STD_CHECKERS_H
#define GRADEQ_WORKER_STD_CHECKERS_H

#include <stddef.h>

#include "queue/grade.h"
#include "worker/engine/judge.h"

/* Checks out against ans by k: WK_CHECK_ACCEPTED, _REJECTED or _FAILED;
 * msg says why (escaped, one line). Reads each file once front to back
 * (uncmp sorts a copy of the numbers), allocating only for uncmp. */
int wk_check_std(q_std_checker k, const void *out, size_t outlen, const void *ans, size_t anslen,
                 char msg[WK_CHECK_MSG_LEN]);

#endif
