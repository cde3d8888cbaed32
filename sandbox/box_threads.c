/* box_threads.c -- a box's own threads: made once, given one job per run.
 *
 * DESIGN. Every run needs a reader per captured stream, a watchdog, and in
 * an interactive run a stdin writer. Creating and joining them per run
 * costs more than the rest of a short run's own work in this process, so
 * each box keeps one thread per role, made the first time the role is
 * needed and joined when the box closes. A run hands a thread its job
 * (bt_give) and waits for it to return (bt_wait); a thread runs one job at
 * a time and between runs sleeps on its own condition variable, holding
 * nothing of the box. The jobs are the same functions a fresh thread would
 * run, so a run sees no difference. The watchdog is given one job for the
 * box's whole life instead, which watches each run in turn (watchdog.c):
 * a run's end then wakes no thread and waits for none.
 *
 * THREADS. Each box_thread's fields are under its mu: the box's thread
 * sets job and waits for it to go back to NULL; the box thread takes the
 * job, runs it without the lock, and clears it. At most one side waits on
 * cv at a time, so one signal reaches the right one. Each side signals
 * after its unlock: the other wakes to a free mutex, not to wait for it
 * (a waiter checks under mu and waits releasing it, so no signal is lost).
 *
 * FORK. A child of fork() has none of these threads: sbx_box_forget frees
 * the box without touching them (a copied mutex may be held by a thread
 * that is not there), and bt_stop in a process other than the one that
 * made the thread only forgets it too.
 */
#include <errno.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* A job to run now: a reader's waits for its first look (capture.c). */
static bool ready(box_thread *t)
{
    return t->job && !(t->reader && cap_later(t));
}

static void *bt_main(void *arg)
{
    box_thread *t = arg;
    /* Its role in ps -L and top -H; cannot fail (the name is copied, cut
     * at 15 bytes). */
    (void)prctl(PR_SET_NAME, t->name, 0, 0, 0);
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!ready(t) && !t->quit)
            if (!(t->reader && cap_sleep(t)))
                pthread_cond_wait(&t->cv, &t->mu);
        if (!ready(t))
            break;
        void *(*job)(void *) = t->job;
        void *job_arg = t->arg;
        t->busy = true;
        pthread_mutex_unlock(&t->mu);
        job(job_arg);
        pthread_mutex_lock(&t->mu);
        t->busy = false;
        t->job = NULL;
        pthread_mutex_unlock(&t->mu);
        pthread_cond_signal(&t->cv);
        pthread_mutex_lock(&t->mu);
    }
    if (t->reader)
        cap_end(t);
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

static int bt_make(box_thread *t, const char *name, size_t stack)
{
    t->name = name;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->job = NULL;
    t->quit = false;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, stack);
    int rc = pthread_create(&t->thread, &a, bt_main, t);
    pthread_attr_destroy(&a);
    if (rc != 0) {
        pthread_mutex_destroy(&t->mu);
        pthread_cond_destroy(&t->cv);
        errno = rc;
        return -1;
    }
    t->owner = getpid();
    return 0;
}

int bt_give(box_thread *t, const char *name, size_t stack, void *(*job)(void *), void *arg)
{
    if (!t->owner && bt_make(t, name, stack) < 0)
        return -1;
    pthread_mutex_lock(&t->mu);
    t->job = job;
    t->arg = arg;
    pthread_mutex_unlock(&t->mu);
    pthread_cond_signal(&t->cv);
    return 0;
}

void bt_wait(box_thread *t)
{
    pthread_mutex_lock(&t->mu);
    while (t->job)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

void bt_stop(box_thread *t)
{
    if (!t->owner) {
        cap_end(t); /* a reader's fds, made before a thread that never was */
        return;
    }
    if (t->owner == getpid()) {
        pthread_mutex_lock(&t->mu);
        t->quit = true;
        if (t->reader)
            cap_ring(t);
        pthread_cond_signal(&t->cv);
        pthread_mutex_unlock(&t->mu);
        pthread_join(t->thread, NULL);
        pthread_mutex_destroy(&t->mu);
        pthread_cond_destroy(&t->cv);
    } else {
        cap_end(t);
    }
    t->owner = 0;
}
