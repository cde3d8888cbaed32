/* grade_cli.h -- the grading options `gradeq grade` and `gradeq submit`
 * share, and the grading job they build (grade_cli.c), its points and
 * groups (cli_scores.c), and how a grading result is printed
 * (grade_output.c). */
#ifndef GRADEQ_WORKER_GRADE_CLI_H
#define GRADEQ_WORKER_GRADE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "queue/grade.h"
#include "queue/job.h"
#include "worker/cli/cli.h"

#define WK_CHECKER_FILES 64

typedef struct wk_cli_grade {
    bool any;                       /* a grading option was given */
    const char *tests_dir;
    const char *problem_path;       /* --problem PATH */
    const char *languages;          /* --languages FILE */
    const char *language;
    char *source;                   /* --source FILE's bytes */
    size_t source_len;
    char compile_cmd[4096];
    char *compile_argv[256];        /* [0] NULL: no --compile */
    q_check_kind checker;
    double eps;
    q_std_checker std;              /* --checker testlib:NAME */
    char checker_cmd[4096];
    char *checker_argv[64];
    char checker_local[260];        /* "./NAME" of a checker file from here */
    q_file checker_files[WK_CHECKER_FILES];
    char *checker_bufs[WK_CHECKER_FILES];
    size_t nchecker_files;
    q_check_convention convention;  /* --checker-convention */
    uint64_t checker_limits[Q_LIM_COUNT]; /* --checker-cpu-ms, -wall-ms, -memory */
    unsigned checker_given;         /* bit i: checker_limits[i] given */
    bool stop_on_failure;
    bool allow_hardlinks;           /* --allow-hardlinks */
    uint64_t test_output_max;
    const char *points_args[Q_TESTS_MAX]; /* --points NAME=X */
    size_t npoints;
    const char *group_args[Q_GROUPS_MAX]; /* --group SPEC */
    size_t ngroup_args;
    /* Built by wk_cli_grade_job. */
    q_test *tests;
    size_t ntests;
    q_group *groups;
    size_t ngroups;
    q_grade grade;
    q_file *files;
    q_file *inter_files;
    struct wk_mat *mat;             /* the material the tests borrow from */
    struct wk_problem *problem;     /* --problem, read (tests come at grading) */
} wk_cli_grade;

/* Tries argv[*i] as a grading option (consuming its value): 1 when it was
 * one, 0 when not, -1 on a bad value (err filled). */
int wk_cli_grade_option(wk_cli_grade *g, int argc, char **argv, int *i, char *err, size_t errlen);
/* Reads the tests and fills j (id left to the caller) from the run options
 * and the grading ones; j borrows from c and g. */
int wk_cli_grade_job(wk_cli_grade *g, const wk_cli_run *c, q_job *j, char *err, size_t errlen);
/* For `gradeq submit --problem`: the job carries exactly the files of the
 * problem that reading it read (problem_files), nothing else of the
 * folder. */
int wk_cli_grade_ship(wk_cli_grade *g);
void wk_cli_grade_free(wk_cli_grade *g);
/* --points onto the tests, --group into g->groups; -1 with err naming the
 * option. (cli_scores.c) */
int wk_cli_points(wk_cli_grade *g, char *err, size_t errlen);
int wk_cli_groups(wk_cli_grade *g, char *err, size_t errlen);
void wk_cli_groups_free(wk_cli_grade *g);
extern const char wk_cli_grade_help[];

/* The grading fields as JSON members (",\"compile\":{...},\"tests\":[...],..."),
 * bytes in base64. */
void wk_json_grade(FILE *f, const q_grade_result *g);
/* One test's line: name, verdict, time, memory, score, the message. */
void wk_print_test_line(FILE *f, const q_graded *t);
/* Every test's line (with lines), each group's, then the summary (`7/10
 * passed, score 63.5/100`, the first failure, the compiler's message on a
 * compile error). */
void wk_print_grade_plain(FILE *f, const q_result *r, bool lines);

#endif
