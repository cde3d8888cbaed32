/* problem_job.h -- a grading job that names a problem ("problem", held by
 * the worker, or "problem_files", carried by the job) turned into the job
 * the engine grades (problem_job.c): its material read safely, the
 * problem read, its code built and run in the sandbox, its tests, groups,
 * checker and interactor given to a copy of the job. */
#ifndef GRADEQ_WORKER_PROBLEM_JOB_H
#define GRADEQ_WORKER_PROBLEM_JOB_H

#include "queue/job.h"
#include "worker/problem/prepare.h"
#include "worker/problem/problem.h"

typedef struct wk_problem_run {
    wk_problem p;
    wk_prepared w;
    q_grade g;       /* the job's grading fields, the problem's part filled */
    q_job j;         /* the job to grade: the original's, with grade = &g */
} wk_problem_run;

/* Whether job's grading names a problem. */
bool wk_job_has_problem(const q_job *job);

/* Reads job's problem (a held one from dir: NULL or "" when the worker
 * holds none) and prepares it in e->box into r (which borrows from job).
 * Returns 0; 1 when the job or its problem is at fault (err: BAD_JOB);
 * -1 when the sandbox failed (err). r is freed with wk_problem_run_free
 * in every case. */
int wk_problem_run_open(const q_job *job, const char *dir, bool allow_hardlinks, const wk_prepare_env *e,
                        wk_problem_run *r, char *err, size_t errlen);
void wk_problem_run_free(wk_problem_run *r);

#endif
