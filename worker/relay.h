/* relay.h -- the transcript of an interactive run (see relay.c). */
#ifndef GRADEQ_WORKER_RELAY_H
#define GRADEQ_WORKER_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct wk_relay {
    pthread_mutex_t mu;
    char *buf;          /* the transcript: malloc'd, owned by whoever takes it */
    size_t len, cap;
    bool truncated;
    pthread_t threads[2];
    int nthreads;
    struct leg {
        struct wk_relay *r;
        int from, to;
        char dir;
    } legs[2];
} wk_relay;

/* Starts the two legs; fills the fds to hand to each side ([0] its stdin,
 * [1] its stdout). Returns 0 or -1 (nothing left open). */
int wk_relay_start(wk_relay *r, size_t cap, int prog_fds[2], int inter_fds[2]);
/* Waits for both legs: they end when both sides have exited. */
void wk_relay_join(wk_relay *r);

#endif
