/* convert.h -- between the wire's types (queue/) and the sandbox's. The
 * only file that knows both shapes. */
#ifndef GRADEQ_WORKER_CONVERT_H
#define GRADEQ_WORKER_CONVERT_H

#include "queue/job.h"
#include "queue/result.h"
#include "sandbox/sandbox.h"

#define WK_ISO_MAX 32

/* The largest limits sbx_run takes (the SBX_LIMIT_ maxima). */
void wk_limits_most(sbx_limits *l);
/* The first of l's limits sbx_run would refuse (a 0 where Q_LIM_POSITIVE,
 * more than the SBX_LIMIT_ maxima), as its Q_LIM_ index with why filled;
 * -1 when sbx_run takes them all. */
int wk_limits_refused(const sbx_limits *l, char *why, size_t whylen);

/* A program (the job's, or its interactor) as a sandbox spec: its limits
 * over the sandbox's defaults, each clamped to max; `extra`, when not
 * NULL, is one more file for /box. *files is allocated (free it); the spec
 * borrows from the job. Returns 0 or -1 with err filled. */
int wk_spec_from_prog(const q_prog *p, const sbx_limits *max, const sbx_file *extra, sbx_spec *spec,
                      sbx_file **files, char *err, size_t errlen);
/* The job's own program, with its env and stdin. */
int wk_spec_from_job(const q_job *j, const sbx_limits *max, sbx_spec *spec, sbx_file **files, char *err,
                     size_t errlen);

/* The wire form of a sandbox result. out borrows r's buffers; names is the
 * storage for the isolation list (WK_ISO_MAX entries). id and worker may be
 * NULL (a local run). */
void wk_result_to_wire(const sbx_result *r, const char *id, const char *worker, uint64_t attempt,
                       const char **names, q_result *out);

/* The wire form of an interactive run: the pair's verdict, the program's
 * stderr and accounting, the interactor's in `interactor`. */
struct wk_pair;
void wk_pair_to_wire(const struct wk_pair *p, const char *id, const char *worker, uint64_t attempt,
                     const char **names, q_result *out);

#endif
