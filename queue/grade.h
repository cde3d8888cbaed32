/* grade.h -- the grading fields of a job (a submission graded whole) and of
 * its result.
 *
 * Job wire format, alongside job.h's fields; a job without "tests" has
 * none of these and q_job.grade is NULL:
 *   tests            array of 1..Q_TESTS_MAX maps:
 *                      name      str, printable ASCII, 1..Q_TEST_NAME_MAX
 *                                bytes (default "1", "2", ... by position)
 *                      stdin     bytes
 *                      expected  bytes (an interactive test may have none)
 *                      points    a number >= 0 (points.h: integer, float or
 *                                decimal string), at most Q_POINTS_MAX;
 *                                default 1, but 0 for a test in no group
 *                                of a job with groups
 *                      limits    map, as the job's: overrides them
 *                      files     map, as the job's: extra files of this test
 *   groups           array of 1..Q_GROUPS_MAX maps (subtasks):
 *                      name      as a test's (default "1", "2", ...), each
 *                                group's its own
 *                      tests     array of 1..Q_TESTS_MAX test names: each
 *                                names exactly one test, and a test is in
 *                                one group at most
 *                      points    a number >= 0, default the sum of its
 *                                tests' points
 *                      scoring   "all" (default: the points when every test
 *                                is OK), "min" (points x the smallest test
 *                                fraction), "sum" (points x the tests'
 *                                scores over their points), "product"
 *                                (points x every fraction)
 *                      depends_on  array of names of groups before it: not
 *                                run (its tests SKIPPED) unless each of
 *                                them had every test OK
 *                      stop_on_failure  bool: a failed test skips the rest
 *                                of the group
 *   compile          map {argv (required), limits}: run once on the job's
 *                    files; what it leaves in /box is what every test
 *                    starts from
 *   checker          "exact", "lines" (default), "tokens", {"float": EPS}
 *                    with EPS a number >= 0, "testlib:NAME" (one of
 *                    testlib's standard checkers, q_std_checker, answered
 *                    by gradeq's own), or a program {argv, files,
 *                    limits, convention}: convention "testlib" (default),
 *                    "cms" or "kattis" (q_check_convention)
 *   stop_on_failure  bool, default false
 *   language         str: a preset of the worker's languages file, instead
 *                    of argv and compile (files stay allowed)
 *   source           bytes: the source file of the language preset
 *   problem          str: a problem the worker holds (gradeq-worker
 *                    --problems DIR), 1..Q_PROBLEM_NAME_MAX bytes of
 *                    [A-Za-z0-9._-], not starting with '.'
 *   problem_files    map path -> bytes, as files: a problem's package (a
 *                    Polygon package, a Kattis package, a DMOJ problem, a
 *                    folder of tests) read by the worker as material
 *                    (worker/problem/); with either of these two the
 *                    problem gives the tests, groups, checker and
 *                    interactor, which the job then must not
 * Refused, naming the field: any of these without tests, tests without
 * argv or language, language with argv or compile, source without
 * language, a checker neither a known name nor a map, a group naming a
 * test no test has (or two tests have), a test in two groups, a
 * dependency on a group not before it.
 *
 * Result fields (q_grade_result), alongside result.h's:
 *   compile   map: status, exit_code, signal, stdout, stderr,
 *             stdout_truncated, stderr_truncated, cpu_us, wall_us,
 *             memory_bytes
 *   tests     array, one map per test: name, status, exit_code, signal,
 *             cpu_us, wall_us, memory_bytes, checker_message (str or nil),
 *             stdout, stderr, stdout_truncated, score, max_score
 *             (decimal strings), group (str, or nil when in none)
 *   groups    array, one map per group: name, status, score, max_score,
 *             message (str or nil: why it was not run)
 *   passed, total  non-negative integers
 *   score, max_score  decimal strings (points.h)
 *   time_factor    number, present when a language preset gave its tests
 *             more time (cpu and wall limits times this)
 *
 * Ownership: as job.h's: names, argv and paths owned, bytes borrowed from
 * the decoded buffer. A decoded q_grade_result is one allocation.
 */
#ifndef GRADEQ_QUEUE_GRADE_H
#define GRADEQ_QUEUE_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "queue/job.h"
#include "queue/points.h"

#define Q_TESTS_MAX 1000
#define Q_GROUPS_MAX Q_TESTS_MAX
#define Q_TEST_NAME_MAX 128
#define Q_LANGUAGE_MAX 64

typedef enum q_check_kind {
    Q_CHECK_LINES, Q_CHECK_EXACT, Q_CHECK_TOKENS, Q_CHECK_FLOAT, Q_CHECK_PROGRAM, Q_CHECK_TESTLIB
} q_check_kind;

/* testlib's standard checkers (Polygon's std::NAME.cpp), answered by
 * checkers of gradeq's own with the same verdicts (Q_CHECK_TESTLIB,
 * worker/engine/std_checkers.c); on the wire "testlib:NAME". */
typedef enum q_std_checker {
    Q_STD_ACMP, Q_STD_DCMP, Q_STD_FCMP, Q_STD_HCMP, Q_STD_ICMP, Q_STD_LCMP, Q_STD_NCMP, Q_STD_NYESNO,
    Q_STD_RCMP, Q_STD_RCMP4, Q_STD_RCMP6, Q_STD_RCMP9, Q_STD_RNCMP, Q_STD_UNCMP, Q_STD_WCMP, Q_STD_YESNO,
    Q_STD_COUNT
} q_std_checker;

/* How a checker program is run and read (Q_CHECK_PROGRAM): testlib's
 * (argv input output answer; exit 0 OK, 1 2 8 wrong, 7 points), CMS's
 * (argv input answer output; a fraction on stdout), Kattis's output
 * validators' (argv input answer feedback_dir, the output on stdin; exit
 * 42 accepted, 43 wrong). */
typedef enum q_check_convention { Q_CONV_TESTLIB, Q_CONV_CMS, Q_CONV_KATTIS } q_check_convention;

typedef enum q_scoring { Q_SCORE_ALL, Q_SCORE_MIN, Q_SCORE_SUM, Q_SCORE_PRODUCT } q_scoring;

typedef struct q_test {
    char *name;              /* owned */
    bool named;              /* given in the job (else the position's) */
    const void *stdin_data;  /* borrowed */
    size_t stdin_len;
    const void *expected;    /* borrowed; NULL: no answer */
    size_t expected_len;
    bool has_points;
    q_points points;         /* when has_points */
    q_prog extra;            /* files and limits only (argc 0) */
} q_test;

typedef struct q_group {
    char *name;              /* owned */
    size_t *tests;           /* owned: indices into q_grade.tests, as listed */
    size_t ntests;
    bool has_points;
    q_points points;         /* when has_points */
    q_scoring scoring;
    size_t *depends_on;      /* owned: indices of groups before this one */
    size_t ndepends;
    bool stop_on_failure;
} q_group;

typedef struct q_grade {
    q_test *tests;
    size_t ntests;
    bool has_compile;
    q_prog compile;          /* argv and limits */
    q_group *groups;         /* NULL when ngroups is 0 */
    size_t ngroups;
    q_check_kind checker;
    double eps;              /* Q_CHECK_FLOAT */
    q_std_checker std;       /* Q_CHECK_TESTLIB */
    q_prog checker_prog;     /* Q_CHECK_PROGRAM */
    q_check_convention convention; /* Q_CHECK_PROGRAM */
    bool stop_on_failure;
    char *language;          /* owned; NULL when absent */
    const void *source;      /* borrowed; NULL when absent */
    size_t source_len;
    /* A problem instead of tests, groups and a checker (grade_problem.c):
     * one the worker holds, by name, or a package's files. */
    char *problem;           /* owned; NULL when absent */
    q_prog problem_files;    /* files only; nfiles 0 when absent */
} q_grade;

#define Q_PROBLEM_NAME_MAX 64

/* "exact", "lines", "tokens", "float", "program", "testlib". */
const char *q_check_name(q_check_kind k);
/* "acmp", "ncmp", ...; and the one named s[0..n), or -1. */
const char *q_std_checker_name(q_std_checker k);
int q_std_checker_find(const char *s, size_t n);
/* "testlib", "cms", "kattis". */
const char *q_convention_name(q_check_convention c);
/* "all", "min", "sum", "product". */
const char *q_scoring_name(q_scoring s);

/* A test's points: its own, else the default (1, or 0 in no group of a job
 * with groups; in_group says whether it is in one). */
q_points q_test_points(const q_grade *g, const q_test *t, bool in_group);

/* One graded run: the compile step or a test. */
typedef struct q_graded {
    const char *name;        /* tests only */
    const char *status;
    bool has_exit_code;
    int64_t exit_code;
    bool has_signal;
    int64_t signal;
    uint64_t cpu_us, wall_us, memory_bytes;
    const char *checker_message; /* NULL: nil */
    const char *group;       /* tests only; NULL: in no group */
    q_points score, max_score; /* tests only */
    const void *stdout_buf;
    size_t stdout_len;
    bool stdout_truncated;
    const void *stderr_buf;
    size_t stderr_len;
    bool stderr_truncated;
} q_graded;

/* One group of a graded job. status: OK when every test of it is OK,
 * SKIPPED when it was not run (message says why), else its first failed
 * test's status. */
typedef struct q_group_result {
    const char *name;
    const char *status;
    q_points score, max_score;
    const char *message;     /* NULL: nil */
} q_group_result;

typedef struct q_grade_result {
    bool has_compile;
    q_graded compile;
    const q_graded *tests;
    size_t ntests;
    const q_group_result *groups;
    size_t ngroups;
    uint64_t passed, total;
    q_points score, max_score;
    uint32_t time_factor_milli; /* 0: none; 1500 = 1.5 */
    void *priv;              /* storage of a decoded one; NULL otherwise */
} q_grade_result;

/* Decodes the grading fields of the job map `root` into j->grade (left NULL
 * when there are none). On failure err names the field; j->grade may be
 * set and is released by q_job_free. Called by q_job_decode. */
struct q_job_dec;
int q_grade_decode(const msgpack_object *root, q_job *j, struct q_job_dec *d);
void q_grade_free(q_grade *g);

/* Map entries q_grade_put writes, and the writing (codec_util's q_enc). */
struct q_enc;
size_t q_grade_entries(const q_grade *g);
int q_grade_put(struct q_enc *e, const q_grade *g);

/* The result's grading entries (compile only when has_compile). */
size_t q_grade_result_entries(const q_grade_result *r);
int q_grade_result_put(struct q_enc *e, const q_grade_result *r);

/* Reads the grading fields of an encoded result buf[0..len) (checked as
 * q_result_decode checks it). Returns 1 with *out filled (one block, freed
 * by q_grade_result_free), 0 when the result has no "tests", -1 with err
 * naming the field. */
int q_grade_result_decode(const void *buf, size_t len, q_grade_result *out, char *err, size_t errlen);
void q_grade_result_free(q_grade_result *r);

#endif
