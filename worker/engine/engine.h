/* engine.h -- the grading engine: a submission graded whole (compile once,
 * run every test in the same box, check every answer), knowing no Redis.
 * Used by `gradeq grade` and by the worker.
 *
 * A plan says what to run (the program, its files, the compile step, the
 * checker, the interactor, the tests and their groups); wk_grade runs it
 * in the order of score.h (a group brought in whole, after what it depends
 * on) and fills a wk_graded whose q_grade_result (verdicts, scores, groups)
 * and summary fields go straight onto the wire. Every test starts from
 * the same /box: the job's files, or what the compile step left there
 * (collected once, bounded), plus the test's own files; the sandbox wipes
 * /box between runs, so no test sees another's leftovers.
 */
#ifndef GRADEQ_WORKER_ENGINE_H
#define GRADEQ_WORKER_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "queue/grade.h"
#include "sandbox/sandbox.h"

#define WK_TEST_OUTPUT_MAX_DEFAULT (4u << 10)
/* A result is its outputs plus fields of bounded size: a single run's (id,
 * status, worker, error, isolation, the interactor's status and numbers,
 * the keys, the score) take less than WK_RESULT_FIXED_MAX, and a grading
 * adds less than WK_TEST_FIXED_MAX per test (its name, group name, status,
 * checker message, numbers, score, keys) for at most Q_TESTS_MAX tests and
 * WK_GROUP_FIXED_MAX per group for at most Q_GROUPS_MAX groups. What is
 * left of a result's size for its outputs is wk_output_budget's. */
#define WK_RESULT_FIXED_MAX (16u << 10)
#define WK_TEST_FIXED_MAX 1024u
#define WK_GROUP_FIXED_MAX 512u
#define WK_GRADE_FIXED_MAX \
    (WK_RESULT_FIXED_MAX + (size_t)Q_TESTS_MAX * WK_TEST_FIXED_MAX + (size_t)Q_GROUPS_MAX * WK_GROUP_FIXED_MAX)

/* The bytes of output (stdout, stderr, a transcript, an interactor's
 * stderr, a grading's compile and test outputs together) a result of at
 * most result_bytes may keep: result_bytes less what its other fields can
 * take (a grading's when grading). 0 when they alone may take it all. */
size_t wk_output_budget(uint64_t result_bytes, bool grading);
#define WK_COLLECT_FILES 4096
#define WK_COLLECT_BYTES (128ull << 20)

/* The compile step's defaults: a compiler's, not a student program's. */
void wk_compile_limits_default(sbx_limits *l);

struct wk_lang;

typedef struct wk_grade_plan {
    const char *const *argv;      /* the program, run once per test */
    const char *const *env;       /* NULL: the sandbox's default */
    /* A language preset: its compile and run commands and environment
     * (after env above) worked out for each run's limits, its runtime's
     * processes and time factor added to them, its own out-of-memory read
     * as MEMORY_LIMIT (worker/lang/apply.h); argv and compile_argv are then
     * its unexpanded ones. NULL: argv, env and compile_argv as they are. */
    const struct wk_lang *lang;
    const sbx_file *files;        /* the job's files */
    size_t nfiles;
    sbx_limits limits;            /* each test's, before its own overrides */
    sbx_limits max;               /* a test's overrides are clamped to these */
    const char *const *compile_argv; /* NULL: no compile step */
    sbx_limits compile_limits;
    const q_grade *g;             /* tests, checker, stop_on_failure */
    sbx_spec checker;             /* Q_CHECK_PROGRAM: as wk_check_program
                                   * takes it */
    bool has_interactor;          /* each test against it, then the
                                   * checker program if any on its tout */
    sbx_spec interactor;          /* argv, limits, files with two free
                                   * slots at their end (input, answer) */
    size_t test_output_max;       /* per test, stdout and stderr each */
    size_t output_max;            /* all the outputs the result keeps (the
                                   * compile step's and every test's):
                                   * wk_output_budget(..., true) */
    struct wk_compile_cache *cache; /* NULL: always compile */
    /* Called after each test (progress, per-test lines); may be NULL. */
    void (*on_test)(void *ctx, size_t i, const q_graded *t);
    void *ctx;
    atomic_int *stop;             /* non-NULL and set: stop between tests */
} wk_grade_plan;

/* A test's limits: the plan's with the test's own overrides, clamped to
 * the maxima, and the preset's time factor and runtime processes on top. */
sbx_limits wk_test_limits(const wk_grade_plan *p, const q_test *t);

typedef enum { WK_GRADED, WK_GRADE_SANDBOX_ERROR, WK_GRADE_STOPPED } wk_grade_rc;

typedef struct wk_graded {
    q_grade_result res;
    const char *status;           /* of the whole */
    int first_failed;             /* index of the first failed test, -1 */
    uint64_t cpu_us, wall_us, memory_bytes; /* maxima over the tests */
    char error[SBX_ERR_LEN];      /* why a sandbox error, or what compile left */
    q_graded *tests_;             /* private: owned storage */
    q_group_result *groups_;
    char *compile_out_, *compile_err_;
} wk_graded;

/* Runs the plan in box; the checker program or the interactor, when there
 * is one, in *checker_box (opened on host at first use, kept for the caller
 * to close).
 * Returns WK_GRADED (out complete), WK_GRADE_SANDBOX_ERROR (out->error
 * says why: not the program's fault) or WK_GRADE_STOPPED (plan->stop was
 * set). out is freed with wk_graded_free in every case. */
wk_grade_rc wk_grade(sbx_host *host, sbx_box *box, sbx_box **checker_box, const wk_grade_plan *plan,
                     wk_graded *out);
void wk_graded_free(wk_graded *g);

/* The statuses of graded runs as indices 0..WK_GRADE_STATUSES-1 (metrics):
 * the run statuses, WRONG_ANSWER, CHECKER_ERROR, COMPILE_ERROR, SKIPPED,
 * INTERACTOR_ERROR, PARTIAL. name -> index (-1 when unknown), index ->
 * name. */
#define WK_GRADE_STATUSES 15
int wk_grade_status_index(const char *status);
const char *wk_grade_status_name(int i);

/* A test's status is one of sbx_status_name's, or these. */
#define WK_ST_WRONG_ANSWER "WRONG_ANSWER"
#define WK_ST_CHECKER_ERROR "CHECKER_ERROR"
#define WK_ST_COMPILE_ERROR "COMPILE_ERROR"
#define WK_ST_SKIPPED "SKIPPED"
#define WK_ST_INTERACTOR_ERROR "INTERACTOR_ERROR"
/* A checker or interactor gave some of the test's points, not all. */
#define WK_ST_PARTIAL "PARTIAL"

#endif
