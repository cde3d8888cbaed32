/* hold_watch.c -- the holder's watch on the command it serves: when the
 * command goes (killed, interrupted) its run is cancelled, as the run of
 * a command in process ends with it.
 *
 * THREADS. One watcher thread for the holder's life waits in epoll_wait
 * on an epoll set the holder's thread fills: the connection of the
 * command being served, added before its run (the watcher is not woken
 * for it: a request costs it nothing unless the command goes), and an
 * eventfd that ends the watcher. An event carries
 * the run's number; the box it may cancel is under mu, and the holder's
 * thread clears it (wk_hold_watch_disarm) before it closes or replaces the
 * box, so a cancel never reaches a box being closed, and a late event
 * names a run that has returned (sbx_box_cancel then reaches nothing).
 * A connection leaves the set before its command's answer goes
 * (wk_hold_watch_forget): the command closes it once answered, and that
 * hang-up would wake the watcher for nothing, once a command.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "worker/cli/hold_watch.h"

static void *watch(void *arg)
{
    wk_hold_watch *w = arg;
    /* Its role in ps -L and top -H; cannot fail (the name is copied). */
    (void)prctl(PR_SET_NAME, "gradeq-cmdwatch", 0, 0, 0);
    for (;;) {
        struct epoll_event ev;
        int n = epoll_wait(w->ep, &ev, 1, -1);
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        if (ev.data.u64 == 0)
            break; /* the eventfd: the holder is leaving */
        pthread_mutex_lock(&w->mu);
        if (w->box && w->run == ev.data.u64) {
            sbx_box_cancel(w->box, w->run);
            w->cancelled = true;
        }
        pthread_mutex_unlock(&w->mu);
    }
    return NULL;
}

int wk_hold_watch_start(wk_hold_watch *w)
{
    memset(w, 0, sizeof *w);
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->stop = eventfd(0, EFD_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0 };
    if (w->ep < 0 || w->stop < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, w->stop, &ev) < 0)
        goto fail;
    pthread_mutex_init(&w->mu, NULL);
    if (pthread_create(&w->thread, NULL, watch, w) == 0)
        return 0;
    pthread_mutex_destroy(&w->mu);
fail:
    if (w->ep >= 0)
        close(w->ep);
    if (w->stop >= 0)
        close(w->stop);
    return -1;
}

int wk_hold_watch_arm(wk_hold_watch *w, int conn, sbx_box *box)
{
    uint64_t run = sbx_box_run_id(box); /* from 1: never the eventfd's 0 */
    pthread_mutex_lock(&w->mu);
    w->box = box;
    w->run = run;
    w->cancelled = false;
    pthread_mutex_unlock(&w->mu);
    /* In the set already when a run is run again for the same command. */
    struct epoll_event ev = { .events = EPOLLRDHUP | EPOLLONESHOT, .data.u64 = run };
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, conn, &ev) < 0 &&
        (errno != EEXIST || epoll_ctl(w->ep, EPOLL_CTL_MOD, conn, &ev) < 0)) {
        wk_hold_watch_disarm(w);
        return -1;
    }
    return 0;
}

bool wk_hold_watch_disarm(wk_hold_watch *w)
{
    pthread_mutex_lock(&w->mu);
    w->box = NULL;
    bool cancelled = w->cancelled;
    pthread_mutex_unlock(&w->mu);
    return cancelled;
}

void wk_hold_watch_forget(wk_hold_watch *w, int conn)
{
    /* ENOENT when it was never armed for conn: nothing to take out. */
    (void)epoll_ctl(w->ep, EPOLL_CTL_DEL, conn, NULL);
}

void wk_hold_watch_stop(wk_hold_watch *w)
{
    uint64_t one = 1;
    while (write(w->stop, &one, sizeof one) < 0 && errno == EINTR)
        ;
    pthread_join(w->thread, NULL);
    close(w->ep);
    close(w->stop);
    pthread_mutex_destroy(&w->mu);
}
