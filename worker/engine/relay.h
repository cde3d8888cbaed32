/* relay.h -- the transcript of an interactive run (see relay.c). */
#ifndef GRADEQ_WORKER_RELAY_H
#define GRADEQ_WORKER_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox/sandbox.h"

typedef struct wk_relay {
    pthread_mutex_t mu;
    char *buf;          /* the transcript: malloc'd, owned by whoever takes it */
    size_t len, cap;
    bool truncated;
    uint64_t out_cap;   /* the program's stdout cap: past it, its run */
    sbx_box *prog_box;  /* (prog_run of prog_box) is cancelled and */
    uint64_t prog_run;  /* over_cap set */
    uint64_t out_len;
    bool over_cap;
    uint64_t over_ns;   /* CLOCK_MONOTONIC when the cap was crossed */
    pthread_t threads[2];
    int nthreads;
    struct leg {
        struct wk_relay *r;
        int from, to;
        char dir;
    } legs[2];
} wk_relay;

/* Starts the two legs; fills the fds to hand to each side ([0] its stdin,
 * [1] its stdout). The program's output past out_cap bytes (0: no cap) is
 * not passed on: the leg stops and cancels the program's run, which must
 * be prog_box's next (the box idle now, its next run the program's).
 * Returns 0 or -1 (nothing left open). */
int wk_relay_start(wk_relay *r, size_t cap, uint64_t out_cap, sbx_box *prog_box, int prog_fds[2],
                   int inter_fds[2]);
/* Waits for both legs: they end when both sides have exited. */
void wk_relay_join(wk_relay *r);

#endif
