/* grade.h -- the grading fields of a job (a submission graded whole) and of
 * its result.
 *
 * Job wire format, alongside job.h's fields; a job without "tests" has
 * none of these and q_job.grade is NULL:
 *   tests            array of 1..Q_TESTS_MAX maps:
 *                      name      str, printable ASCII, 1..Q_TEST_NAME_MAX
 *                                bytes (default "1", "2", ... by position)
 *                      stdin     bytes
 *                      expected  bytes
 *                      limits    map, as the job's: overrides them
 *                      files     map, as the job's: extra files of this test
 *   compile          map {argv (required), limits}: run once on the job's
 *                    files; what it leaves in /box is what every test
 *                    starts from
 *   checker          "exact", "lines" (default), "tokens", {"float": EPS}
 *                    with EPS a number >= 0, or a program {argv, files,
 *                    limits}
 *   stop_on_failure  bool, default false
 *   language         str: a preset of the worker's languages file, instead
 *                    of argv and compile (files stay allowed)
 *   source           bytes: the source file of the language preset
 * Refused, naming the field: any of these without tests, tests without
 * argv or language, language with argv or compile, source without
 * language, a checker neither a known name nor a map.
 *
 * Result fields (q_grade_result), alongside result.h's:
 *   compile   map: status, exit_code, signal, stdout, stderr,
 *             stdout_truncated, stderr_truncated, cpu_us, wall_us,
 *             memory_bytes
 *   tests     array, one map per test: name, status, exit_code, signal,
 *             cpu_us, wall_us, memory_bytes, checker_message (str or nil),
 *             stdout, stderr, stdout_truncated
 *   passed, total  non-negative integers
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

#define Q_TESTS_MAX 1000
#define Q_TEST_NAME_MAX 128
#define Q_LANGUAGE_MAX 64

typedef enum q_check_kind { Q_CHECK_LINES, Q_CHECK_EXACT, Q_CHECK_TOKENS, Q_CHECK_FLOAT, Q_CHECK_PROGRAM } q_check_kind;

typedef struct q_test {
    char *name;              /* owned */
    bool named;              /* given in the job (else the position's) */
    const void *stdin_data;  /* borrowed */
    size_t stdin_len;
    const void *expected;    /* borrowed */
    size_t expected_len;
    q_prog extra;            /* files and limits only (argc 0) */
} q_test;

typedef struct q_grade {
    q_test *tests;
    size_t ntests;
    bool has_compile;
    q_prog compile;          /* argv and limits */
    q_check_kind checker;
    double eps;              /* Q_CHECK_FLOAT */
    q_prog checker_prog;     /* Q_CHECK_PROGRAM */
    bool stop_on_failure;
    char *language;          /* owned; NULL when absent */
    const void *source;      /* borrowed; NULL when absent */
    size_t source_len;
} q_grade;

/* "exact", "lines", "tokens", "float", "program". */
const char *q_check_name(q_check_kind k);

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
    const void *stdout_buf;
    size_t stdout_len;
    bool stdout_truncated;
    const void *stderr_buf;
    size_t stderr_len;
    bool stderr_truncated;
} q_graded;

typedef struct q_grade_result {
    bool has_compile;
    q_graded compile;
    const q_graded *tests;
    size_t ntests;
    uint64_t passed, total;
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
