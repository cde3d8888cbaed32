/* prepare.h -- a problem's own code run in the sandbox before grading,
 * and the grading job it then gives (prepare.c).
 *
 * A package's judges (its checker, its interactor) are compiled in a box
 * with the language preset their type names, beside the headers the
 * package carries (its testlib.h), under a compiler's limits; a compile
 * step is kept in the compile cache, whose key is every byte the compiler
 * sees, so a judge is built once per content. Generators run in a box
 * with the arguments problem.xml gave (split by us, no shell); the main
 * solution runs in a box on each test whose answer the package lacks.
 * Nothing of a package runs on the host, and what a judge or a generator
 * writes in its box is wiped with it: the package is never changed.
 */
#ifndef GRADEQ_WORKER_PREPARE_H
#define GRADEQ_WORKER_PREPARE_H

#include "queue/job.h"
#include "sandbox/sandbox.h"
#include "worker/engine/compile_cache.h"
#include "worker/lang/languages.h"
#include "worker/problem/problem.h"

#define WK_MADE_MAX (64u << 20) /* one generated input or answer */

typedef struct wk_built {
    const char *const *argv;   /* the preset's run command */
    sbx_collect files;         /* what its compile left in /box */
    q_file *qfiles;            /* the same as a job's files */
} wk_built;

typedef struct wk_prepared {
    wk_built checker, interactor;
    bool has_checker, has_interactor;
    q_test *tests;             /* the problem's, with what was made */
    char **made;               /* per test: generated input, answer (2 each) */
    size_t ntests;
} wk_prepared;

typedef struct wk_prepare_env {
    sbx_box *box;
    const wk_langs *langs;
    wk_compile_cache *cache;   /* NULL: no cache */
    sbx_limits max;            /* the worker's (or the operator's) maxima */
} wk_prepare_env;

/* Builds and runs what p needs. Returns 0; 1 when the package is at
 * fault (err says what: a preset missing, a judge that does not compile,
 * a generator or the main solution that fails); -1 when the sandbox
 * failed (err says why: not the package's fault). */
int wk_problem_prepare(const wk_problem *p, const wk_prepare_env *e, wk_prepared *out, char *err, size_t errlen);
void wk_prepared_free(wk_prepared *w);

/* The grading job's part the problem gives: tests, groups, the checker
 * (and its convention), the interactor, stop_on_failure into g and j; the
 * problem's time and memory limits into j's program where j gives none.
 * g and j borrow from p and w. */
void wk_problem_job(const wk_problem *p, const wk_prepared *w, q_grade *g, q_job *j);

#endif
