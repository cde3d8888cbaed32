/* hold_watch.h -- a run of the holder cancelled when its command goes
 * (hold_watch.c). */
#ifndef GRADEQ_HOLD_WATCH_H
#define GRADEQ_HOLD_WATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sandbox/sandbox.h"

typedef struct wk_hold_watch {
    pthread_t thread;
    int ep;              /* the epoll set: the served command's connection */
    int stop;            /* eventfd: the watcher ends */
    pthread_mutex_t mu;  /* guards the three below */
    sbx_box *box;        /* NULL: nothing to cancel */
    uint64_t run;
    bool cancelled;
} wk_hold_watch;

/* Starts the watcher thread: 0, or -1. */
int wk_hold_watch_start(wk_hold_watch *w);
/* Until disarmed, a hang-up of conn cancels the next run of box (the one
 * about to start); conn stays the caller's, watched until it is closed or forgotten.
 * 0, or -1 (then nothing is watched). */
int wk_hold_watch_arm(wk_hold_watch *w, int conn, sbx_box *box);
/* Nothing is cancelled from now on; whether the run was. Before the box
 * is closed or replaced. */
bool wk_hold_watch_disarm(wk_hold_watch *w);
/* conn is watched no more (before its command is answered). */
void wk_hold_watch_forget(wk_hold_watch *w, int conn);
/* Ends the thread. */
void wk_hold_watch_stop(wk_hold_watch *w);

#endif
