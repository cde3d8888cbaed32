/* grade_plan.h -- from a grading job to a plan, from a grading to a wire
 * result (grade_plan.c). */
#ifndef GRADEQ_WORKER_GRADE_PLAN_H
#define GRADEQ_WORKER_GRADE_PLAN_H

#include "queue/job.h"
#include "queue/result.h"
#include "worker/engine/engine.h"
#include "worker/lang/languages.h"

/* What a plan points to besides the job: freed by wk_plan_store_free. */
typedef struct wk_plan_store {
    sbx_file *files;
    const char **checker_argv;
    sbx_file *checker_files;
    sbx_file *inter_files;
} wk_plan_store;

/* Plans j (j->grade non-NULL) under the worker's maxima, keeping at most
 * test_output_max of each test's stdout and stderr and output_max of
 * outputs in all (engine.h); langs may be NULL (no presets). The plan borrows from j, langs and st. Returns 0, or -1
 * with err naming the field (the job is BAD_JOB). */
int wk_grade_plan_from_job(const q_job *j, const wk_langs *langs, const sbx_limits *max, size_t test_output_max,
                           size_t output_max, wk_grade_plan *p, wk_plan_store *st, char *err, size_t errlen);
void wk_plan_store_free(wk_plan_store *st);

/* The result of the whole: status, how the first failed run ended, the
 * maxima, error, isolation, and the grading fields (borrowed from g). */
void wk_graded_to_wire(const wk_graded *g, const char *id, const char *worker, uint64_t attempt, unsigned isolation,
                       const char **names, q_result *out);

#endif
