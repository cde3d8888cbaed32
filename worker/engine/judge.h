/* judge.h -- what a judge program (a checker or an interactor, written by
 * the problem's author) says, read by its convention (judge.c).
 *
 * testlib's exit codes, for checkers and interactors alike: 0 accepted; 1
 * (wrong answer), 2 (presentation error) and 8 (unexpected end of file,
 * built with -DENABLE_UNEXPECTED_EOF) rejected; 7 points, the first line
 * of stderr being `points X ...` (quitp) or `points points_info=X ...`
 * (quitpi, with X a number); anything else (3 FAIL, a crash, a limit) the
 * judge's failure, never the program's. Checkers may also follow CMS's
 * convention (argv input answer output; exit 0, a fraction in [0, 1] on
 * the first line of stdout, the message on stderr) or Kattis's output
 * validators' (argv input answer feedback_dir, the output on stdin; exit
 * 42 accepted, 43 wrong; feedback_dir/judgemessage.txt the message,
 * feedback_dir/score.txt points).
 *
 * Points a judge gives are read from its text exactly (points.h, rounded
 * half up to 1e-6), never through a double. Messages are one line of at
 * most WK_CHECK_MSG_LEN - 1 bytes, valid UTF-8 (wk_first_line).
 */
#ifndef GRADEQ_WORKER_JUDGE_H
#define GRADEQ_WORKER_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "queue/grade.h"
#include "sandbox/sandbox.h"
#include "worker/engine/checker.h"

typedef enum { WK_JUDGE_ACCEPTED, WK_JUDGE_REJECTED, WK_JUDGE_POINTS, WK_JUDGE_FAILED } wk_judge_verdict;

/* How a testlib program ended (r: not SANDBOX_ERROR), and for
 * WK_JUDGE_POINTS the points its stderr gives. An exit 7 without readable
 * points is WK_JUDGE_FAILED. */
wk_judge_verdict wk_testlib_verdict(const sbx_result *r, q_points *points);

/* The points of a testlib stderr line ("points 0.5 ok", "points
 * points_info=3"); -1 when it gives none. */
int wk_testlib_points(const char *line, size_t n, q_points *out);

typedef enum { WK_CHECK_ACCEPTED, WK_CHECK_REJECTED, WK_CHECK_PARTIAL, WK_CHECK_FAILED } wk_check_verdict;

/* What a checker program reads: the test's input, the program's output
 * (or what the interactor wrote), the expected answer. */
typedef struct wk_check_io {
    const void *input, *output, *answer;
    size_t inlen, outlen, anslen;
} wk_check_io;

/* Runs the checker `prog` in box by its convention: prog's argv already
 * ends in what the convention appends (grade_plan.c), its files have three
 * free slots at their end. A test worth max points: ACCEPTED scores max,
 * PARTIAL *points (below max), REJECTED none; FAILED is CHECKER_ERROR.
 * msg gets the checker's message. Returns the verdict, or -1 when the
 * sandbox failed (msg says why): not the checker's fault nor the
 * program's. */
int wk_check_program(sbx_box *box, const sbx_spec *prog, q_check_convention conv, const wk_check_io *io, q_points max,
                     q_points *points, char msg[WK_CHECK_MSG_LEN]);

#endif
