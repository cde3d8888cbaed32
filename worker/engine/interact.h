/* interact.h -- a program and its interactor, each in its own box, joined
 * by two pipes: the program's stdout is the interactor's stdin and the
 * interactor's stdout the program's stdin. Used by the worker (jobs with an
 * `interactor`) and by `gradeq run --interactor`. */
#ifndef GRADEQ_WORKER_INTERACT_H
#define GRADEQ_WORKER_INTERACT_H

#include "sandbox/sandbox.h"

typedef struct wk_pair {
    sbx_result prog, inter;
    char *transcript;       /* NULL unless asked for: records "> N\n<N bytes>\n"
                             * (program to interactor) or "< N\n..." */
    size_t transcript_len;
    bool transcript_truncated;
    const char *status;     /* the job's verdict: a sandbox status name,
                             * WRONG_ANSWER or INTERACTOR_ERROR */
    char message[256];      /* why, when the verdict needs one */
} wk_pair;

/* Runs both (the interactor in a thread of its own) and decides. The specs'
 * stdio fields are set here. With transcript_bytes > 0 the two talk through
 * relay threads here that keep a transcript of at most that many bytes;
 * otherwise through direct pipes. Returns 0, or -1 when a sandbox failed
 * (the verdict is then SANDBOX_ERROR). Free with wk_pair_free. */
int wk_run_pair(sbx_box *prog_box, sbx_spec *prog, sbx_box *inter_box, sbx_spec *inter, size_t transcript_bytes,
                wk_pair *out);
void wk_pair_free(wk_pair *p);
/* The verdict again from prog and inter as they are now (the grading may
 * have read a run's end more closely: a runtime's own out-of-memory). */
void wk_pair_decide(wk_pair *p);

#endif
