/* problem_job.c -- a job's problem read and prepared (problem_job.h).
 *
 * The job's own problem files are material in memory (their paths were
 * checked by the decoder, and are again by the material); a held problem
 * is a folder (or a zip) directly in the worker's problems folder, opened
 * with no link followed. Either way the problem is read whole on each job:
 * what is costly (compiling its judges) is cached by content.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/problem/problem_job.h"
#include "worker/problem/zip.h"

bool wk_job_has_problem(const q_job *job)
{
    return job->grade && (job->grade->problem || job->grade->problem_files.nfiles);
}

void wk_problem_run_free(wk_problem_run *r)
{
    wk_prepared_free(&r->w);
    wk_problem_free(&r->p);
    memset(r, 0, sizeof *r);
}

/* A held problem: DIR/NAME, a folder or a zip archive. */
static int open_held(const char *dir, const char *name, const wk_mat_opts *mo, wk_problem *p, char *err,
                     size_t errlen)
{
    char path[4096 + Q_PROBLEM_NAME_MAX + 2];
    struct stat st;
    if (!dir || !*dir)
        return snprintf(err, errlen, "problem: this worker holds no problems (gradeq-worker --problems DIR)"), -1;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1) {
        wk_problem_opts po = { .allow_hardlinks = mo->allow_hardlinks, .max_bytes = mo->max_bytes };
        return wk_problem_open(path, &po, p, err, errlen);
    }
    wk_mat *m;
    if (wk_mat_open_held(dir, name, mo, &m, err, errlen) < 0)
        return -1;
    memset(p, 0, sizeof *p);
    return wk_problem_read(m, p, err, errlen);
}

int wk_problem_run_open(const q_job *job, const char *dir, bool allow_hardlinks, const wk_prepare_env *e,
                        wk_problem_run *r, char *err, size_t errlen)
{
    const q_grade *jg = job->grade;
    wk_mat_opts mo = { .allow_hardlinks = allow_hardlinks };
    memset(r, 0, sizeof *r);
    int rc;
    if (jg->problem) {
        rc = open_held(dir, jg->problem, &mo, &r->p, err, errlen);
    } else {
        wk_mat *m;
        rc = wk_mat_open_mem(jg->problem_files.files, jg->problem_files.nfiles, "problem_files", &mo, &m, err,
                             errlen);
        if (rc == 0)
            rc = wk_problem_read(m, &r->p, err, errlen);
    }
    if (rc < 0)
        return 1;
    rc = wk_problem_prepare(&r->p, e, &r->w, err, errlen);
    if (rc != 0)
        return rc;
    r->g = *jg;
    r->j = *job;
    r->j.grade = &r->g;
    wk_problem_job(&r->p, &r->w, &r->g, &r->j);
    return 0;
}
