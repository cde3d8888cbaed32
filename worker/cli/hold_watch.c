/* hold_watch.c -- the holder's watch on the command it serves: when the
 * command goes (killed, interrupted) its run is cancelled, as the run of
 * a command in process ends with it.
 *
 * THREADS. One watcher thread for the holder's life polls the connection
 * of the command being served (its own dup) and a pipe of orders from the
 * holder's thread. The box it may cancel is under mu: the holder's thread
 * clears it (wk_hold_watch_disarm) before it closes or replaces the box,
 * so a cancel never reaches a box being closed, and a cancel names its run
 * (sbx_box_cancel reaches nothing once that run has returned).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "worker/cli/hold_watch.h"

typedef struct order {
    int conn;     /* the connection to watch (a dup, the watcher's), -1: none */
    uint64_t run;
} order;

static void take_order(wk_hold_watch *w, int *cur)
{
    order o;
    ssize_t n;
    while ((n = read(w->pipe[0], &o, sizeof o)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof o)
        return;
    if (*cur >= 0)
        close(*cur);
    *cur = o.conn;
}

static void *watch(void *arg)
{
    wk_hold_watch *w = arg;
    int cur = -1;
    for (;;) {
        struct pollfd p[2] = { { w->pipe[0], POLLIN, 0 }, { cur, POLLRDHUP, 0 } };
        if (poll(p, cur >= 0 ? 2 : 1, -1) < 0)
            continue; /* EINTR */
        if (p[0].revents & POLLHUP)
            break; /* the holder is leaving */
        if (p[0].revents & POLLIN) {
            take_order(w, &cur);
            continue; /* a hang-up of the old connection is no news */
        }
        if (cur >= 0 && (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR))) {
            pthread_mutex_lock(&w->mu);
            if (w->box) {
                sbx_box_cancel(w->box, w->run);
                w->cancelled = true;
            }
            pthread_mutex_unlock(&w->mu);
            close(cur);
            cur = -1;
        }
    }
    if (cur >= 0)
        close(cur);
    return NULL;
}

int wk_hold_watch_start(wk_hold_watch *w)
{
    memset(w, 0, sizeof *w);
    if (pipe2(w->pipe, O_CLOEXEC) < 0)
        return -1;
    pthread_mutex_init(&w->mu, NULL);
    if (pthread_create(&w->thread, NULL, watch, w) != 0) {
        close(w->pipe[0]);
        close(w->pipe[1]);
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    return 0;
}

static void send_order(wk_hold_watch *w, int conn, uint64_t run)
{
    order o = { conn, run };
    ssize_t n;
    while ((n = write(w->pipe[1], &o, sizeof o)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof o && conn >= 0)
        close(conn);
}

int wk_hold_watch_arm(wk_hold_watch *w, int conn, sbx_box *box)
{
    int d = fcntl(conn, F_DUPFD_CLOEXEC, 3);
    if (d < 0)
        return -1;
    uint64_t run = sbx_box_run_id(box);
    pthread_mutex_lock(&w->mu);
    w->box = box;
    w->run = run;
    w->cancelled = false;
    pthread_mutex_unlock(&w->mu);
    send_order(w, d, run);
    return 0;
}

bool wk_hold_watch_disarm(wk_hold_watch *w)
{
    pthread_mutex_lock(&w->mu);
    w->box = NULL;
    bool cancelled = w->cancelled;
    pthread_mutex_unlock(&w->mu);
    send_order(w, -1, 0);
    return cancelled;
}

void wk_hold_watch_stop(wk_hold_watch *w)
{
    close(w->pipe[1]);
    pthread_join(w->thread, NULL);
    close(w->pipe[0]);
    pthread_mutex_destroy(&w->mu);
}
