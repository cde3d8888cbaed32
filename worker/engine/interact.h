/* interact.h -- a program and its interactor, each in its own box, joined
 * by two pipes: the program's stdout is the interactor's stdin and the
 * interactor's stdout the program's stdin. Used by the worker (jobs with an
 * `interactor`) and by `gradeq run --interactor`. */
#ifndef GRADEQ_WORKER_INTERACT_H
#define GRADEQ_WORKER_INTERACT_H

#include "queue/points.h"
#include "sandbox/sandbox.h"

typedef struct wk_pair {
    sbx_result prog, inter;
    char *transcript;       /* NULL unless asked for: records "> N\n<N bytes>\n"
                             * (program to interactor) or "< N\n..." */
    size_t transcript_len;
    bool transcript_truncated;
    const char *status;     /* the job's verdict: a sandbox status name,
                             * WRONG_ANSWER, PARTIAL or INTERACTOR_ERROR */
    q_points points;        /* PARTIAL: what the interactor gave (testlib's
                             * exit 7), not yet held to the test's points */
    char message[256];      /* why, when the verdict needs one: the
                             * interactor's first line of stderr when its
                             * exit decided */
} wk_pair;

typedef struct wk_pair_opts {
    size_t transcript_bytes; /* > 0: the two talk through relay threads
                             * that keep at most this much of what they
                             * said; else through direct pipes */
    bool answer;            /* the interactor's /box has `answer` */
    sbx_collect *tout;      /* non-NULL: the interactor's file tout handed
                             * back here (bounds set by the caller) */
} wk_pair_opts;

/* Runs both (the interactor in a thread of its own) and decides. The specs'
 * stdio fields are set here. The interactor's argv gets `input tout`
 * appended, and `answer` with o->answer (testlib's registerInteraction);
 * the caller places `input` (and `answer`) among its files. o may be NULL
 * (no transcript, no answer, tout not kept). Returns 0, or -1 when a
 * sandbox failed (the verdict is then SANDBOX_ERROR). Free with
 * wk_pair_free. */
int wk_run_pair(sbx_box *prog_box, sbx_spec *prog, sbx_box *inter_box, sbx_spec *inter, const wk_pair_opts *o,
                wk_pair *out);
void wk_pair_free(wk_pair *p);
/* The verdict again from prog and inter as they are now (the grading may
 * have read a run's end more closely: a runtime's own out-of-memory). */
void wk_pair_decide(wk_pair *p);

#endif
