/* interact.c -- interactive runs: the callback, and the thread that feeds
 * the program's stdin.
 *
 * DESIGN. The reader threads hand each chunk to ia_chunk, which calls the
 * callback under cb_mu: one call at a time, in the order the readers got
 * the chunks. Replies are queued, never written by a reader: a program
 * that stops reading its stdin would otherwise block the reader, and with
 * it the draining of its output. A writer thread of its own empties the
 * queue into the pipe (the box's writer thread, kept from run to run:
 * box_threads.c); when the program dies the write fails with EPIPE
 * (SIGPIPE is blocked in that thread and consumed), and its job ends.
 * Time inside the callback is added to the run's wall limit: a slow
 * callback is not the program's fault; CPU and output limits are untouched.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define WRITE_MAX (64 * 1024)

int sbx_reply_write(sbx_reply *p, const void *buf, size_t len)
{
    pthread_mutex_lock(&p->mu);
    size_t pending = p->len - p->off;
    int rc = p->close ? 1 : -1;
    if (!p->close && pending + len <= SBX_REPLY_MAX) {
        if (p->len + len > p->size && p->off) {
            memmove(p->buf, p->buf + p->off, pending); /* reuse the consumed front */
            p->off = 0;
            p->len = pending;
        }
        if (p->len + len > p->size) {
            size_t size = p->size ? p->size : 4096;
            while (size < p->len + len)
                size *= 2;
            char *nb = realloc(p->buf, size);
            if (nb) {
                p->buf = nb;
                p->size = size;
            }
        }
        if (p->len + len <= p->size) {
            memcpy(p->buf + p->len, buf, len);
            p->len += len;
            rc = 0;
            pthread_cond_signal(&p->cv);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void sbx_reply_close(sbx_reply *p)
{
    pthread_mutex_lock(&p->mu);
    p->close = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void *writer_main(void *arg)
{
    sbx_reply *p = arg;
    sigset_t pipe_sig;
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->off == p->len && !p->close && !p->done)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->off == p->len || p->done)
            break;
        size_t n = p->len - p->off < WRITE_MAX ? p->len - p->off : WRITE_MAX;
        char chunk[WRITE_MAX];
        memcpy(chunk, p->buf + p->off, n);
        pthread_mutex_unlock(&p->mu);
        ssize_t w = write(p->fd, chunk, n);
        int e = errno;
        pthread_mutex_lock(&p->mu);
        if (w > 0) {
            p->off += (size_t)w;
        } else if (w < 0 && e != EINTR) {
            /* The program is gone (EPIPE) or stdin broke: drop the rest. */
            struct timespec zero = { 0, 0 };
            sigtimedwait(&pipe_sig, NULL, &zero);
            p->off = p->len;
            p->close = true;
        }
    }
    pthread_mutex_unlock(&p->mu);
    close(p->fd);
    p->fd = -1;
    return NULL;
}

int ia_start(run_state *r, int fd)
{
    sbx_reply *p = &r->reply;
    p->run = r;
    p->fd = fd;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (bt_give(&r->box->threads[BT_WRITER], "gradeq-stdin", 128 * 1024, writer_main, p) < 0) {
        int e = errno;
        close(fd);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        p->run = NULL;
        errno = e;
        return -1;
    }
    return 0;
}

void ia_chunk(run_state *r, int stream, const char *buf, size_t len)
{
    pthread_mutex_lock(&r->cb_mu);
    if (!atomic_load(&r->ended)) {
        uint64_t t0 = run_now_ns();
        int end = r->spec->interact(r->spec->interact_ctx, stream, buf, len, &r->reply);
        atomic_fetch_add(&r->callback_ns, run_now_ns() - t0);
        if (end) {
            unsigned long long never = 0;
            atomic_compare_exchange_strong(&r->kill_ns, &never, run_now_ns());
            atomic_store(&r->ended, true);
            box_kill(r->box);
        }
    }
    pthread_mutex_unlock(&r->cb_mu);
}

void ia_stop(run_state *r)
{
    sbx_reply *p = &r->reply;
    if (!p->run)
        return;
    pthread_mutex_lock(&p->mu);
    p->done = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    bt_wait(&r->box->threads[BT_WRITER]);
    free(p->buf);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    p->run = NULL;
}
