/* problem.h -- a problem read whole from its material: a Polygon package
 * (polygon.c), a Kattis/ICPC package (kattis.c), a DMOJ init.yml
 * (dmoj.c), or a plain folder of tests (testdir.c); an archive of any of
 * them (zip.c). problem.c finds which and reads it.
 *
 * Reading runs nothing: a problem is what gradeq will grade with (limits,
 * tests, points and groups, the checker, the interactor) and the package
 * code that must first run in the sandbox (judges to compile, inputs to
 * generate, answers to make with the main solution): wk_problem_prepare
 * (prepare.c) does that in a box, and wk_problem_job gives a grading
 * job its part. A package gradeq cannot grade is refused at reading, with
 * what is missing.
 *
 * Everything a problem holds points into its material (m), which it owns.
 */
#ifndef GRADEQ_WORKER_PROBLEM_H
#define GRADEQ_WORKER_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "queue/grade.h"
#include "worker/problem/material.h"

#define WK_PROBLEM_GENS 64       /* generators of one package */
#define WK_PROBLEM_HEADERS 64    /* files a judge's source may include */
#define WK_PROBLEM_ARGS 32       /* words of a generator's command line */
#define WK_PROBLEM_MAX_MS 60000  /* a time limit a package may ask */

/* Package code: a source file and the language preset that builds it. */
typedef struct wk_source {
    const char *path;       /* in the material (messages); NULL: none */
    const void *data;       /* borrowed from the material */
    size_t len;
    char lang[Q_LANGUAGE_MAX + 1]; /* a preset of the languages file */
} wk_source;

/* Per test, what must run before it can be graded. */
typedef struct wk_ptest {
    int gen;                /* >= 0: its input is made by gens[gen] */
    char *args[WK_PROBLEM_ARGS]; /* that generator's arguments (owned) */
    size_t nargs;
    bool needs_answer;      /* its answer is made by the main solution */
} wk_ptest;

typedef enum { WK_FMT_TESTS, WK_FMT_POLYGON, WK_FMT_KATTIS, WK_FMT_DMOJ } wk_format;

typedef struct wk_problem {
    wk_format format;
    wk_mat *m;              /* owned */
    void *archive;          /* owned wk_zip, when m is an archive's */
    wk_mat *data;           /* owned: where tests are read when not m (DMOJ's
                             * archive), NULL */
    void *data_archive;     /* owned wk_zip of data */
    /* Limits the package gives (0: not given). */
    uint64_t cpu_ms, memory_bytes, output_bytes;
    /* The tests (names owned, data borrowed from m or from prepare). */
    q_test *tests;
    wk_ptest *ptests;
    size_t ntests;
    q_group *groups;        /* owned, in the order a job takes them */
    size_t ngroups;
    bool stop_on_failure;
    /* The answer rule: a built-in (checker, eps), or a program built from
     * checker_src run by its convention (checker_flags appended, Kattis). */
    q_check_kind checker;
    double eps;
    wk_source checker_src;
    q_check_convention convention;
    char *checker_flags[WK_PROBLEM_ARGS]; /* owned */
    size_t nchecker_flags;
    q_std_checker std;         /* Q_CHECK_TESTLIB */
    wk_source interactor_src;  /* path NULL: not interactive */
    wk_source main_src;        /* path NULL: none (needed when an answer is) */
    wk_source gens[WK_PROBLEM_GENS];
    char *gen_names[WK_PROBLEM_GENS]; /* owned: as the package calls them */
    size_t ngens;
    q_file headers[WK_PROBLEM_HEADERS]; /* beside a judge's source when it is
                                 * compiled (testlib.h, ...): names owned */
    size_t nheaders;
} wk_problem;

typedef struct wk_problem_opts {
    bool allow_hardlinks;   /* material files with other hard links */
    uint64_t max_bytes;     /* the material's bytes (0: the default) */
} wk_problem_opts;

/* Reads the problem at path: a folder, or a zip archive (a regular file).
 * Returns 0, or -1 with err naming the file and what is wrong. */
int wk_problem_open(const char *path, const wk_problem_opts *o, wk_problem *p, char *err, size_t errlen);
/* Reads the problem in material m (taken over, also on failure). */
int wk_problem_read(wk_mat *m, wk_problem *p, char *err, size_t errlen);
void wk_problem_free(wk_problem *p);
/* "tests", "polygon", "kattis", "dmoj". */
const char *wk_format_name(wk_format f);

/* The readers (each takes m over into p on success and failure alike). */
int wk_polygon_read(wk_problem *p, char *err, size_t errlen);
int wk_kattis_read(wk_problem *p, char *err, size_t errlen);
int wk_dmoj_read(wk_problem *p, char *err, size_t errlen);

/* For the readers: a source of the material with its language, from a
 * Polygon type ("cpp.g++17"), a DMOJ language ("CPP17") or a file name's
 * extension; -1 with err saying which language has no preset. */
int wk_problem_source(wk_problem *p, const char *path, const char *type, wk_source *out, char *err,
                      size_t errlen);
/* For the readers: room for n tests (names set by the caller). */
int wk_problem_tests(wk_problem *p, size_t n, char *err, size_t errlen);

#endif
