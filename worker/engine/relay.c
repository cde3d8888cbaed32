/* relay.c -- the transcript of an interactive run: two threads copy the
 * program's output to the interactor and back, recording each chunk with
 * its direction until the transcript's cap.
 *
 * Only used when a job asks for a transcript: a relay costs a copy and two
 * more wake-ups per message, so without one the two sides keep their
 * direct pipes. The relay keeps the pipes' meaning: end-of-file on one side
 * closes the other's stdin, and once a reader has gone away its writer
 * gets SIGPIPE (the relay stops reading from it), as with a direct pipe.
 * The relay is also where the program's stdout cap holds in an interactive
 * run: its bytes to the interactor are counted, and past the cap the run is
 * stopped (the verdict says OUTPUT_LIMIT).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "worker/engine/relay.h"

/* Records a chunk. The first one that does not fit is kept cut to the
 * room left, its header saying how much was kept; then nothing more. */
static void record(wk_relay *r, char dir, const char *buf, size_t len)
{
    pthread_mutex_lock(&r->mu);
    if (!r->truncated) {
        char head[32];
        size_t room = r->cap - r->len;
        int hn = snprintf(head, sizeof head, "%c %zu\n", dir, len);
        if ((size_t)hn + len + 1 > room) {
            r->truncated = true;
            /* The cut length has no more digits than len: it fits. */
            len = room > (size_t)hn + 1 ? room - (size_t)hn - 1 : 0;
            hn = snprintf(head, sizeof head, "%c %zu\n", dir, len);
        }
        if (len > 0) {
            memcpy(r->buf + r->len, head, (size_t)hn);
            memcpy(r->buf + r->len + hn, buf, len);
            r->buf[r->len + hn + len] = '\n';
            r->len += (size_t)hn + len + 1;
        }
    }
    pthread_mutex_unlock(&r->mu);
}

typedef struct leg leg;

static bool write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static void *leg_main(void *arg)
{
    leg *l = arg;
    sigset_t pipe_sig;
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
    char buf[65536];
    for (;;) {
        ssize_t n = read(l->from, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        wk_relay *r = l->r;
        bool over = false;
        if (l->dir == '>' && r->out_cap) {
            /* Only this leg touches out_len; over_cap is read after the join. */
            if (r->out_len + (uint64_t)n > r->out_cap) {
                n = (ssize_t)(r->out_cap - r->out_len);
                over = true;
            }
            r->out_len += (uint64_t)n;
        }
        record(r, l->dir, buf, (size_t)n);
        if (over) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            r->over_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
            r->over_cap = true;
            /* The program's run may be over by now (the pipe still held
             * what it wrote): the cancel names it, so it never reaches the
             * box's next run. */
            sbx_box_cancel(r->prog_box, r->prog_run);
            break;
        }
        if (!write_all(l->to, buf, (size_t)n)) {
            struct timespec zero = { 0, 0 };
            sigtimedwait(&pipe_sig, NULL, &zero);
            break;
        }
    }
    close(l->from);
    close(l->to);
    return NULL;
}

int wk_relay_start(wk_relay *r, size_t cap, uint64_t out_cap, sbx_box *prog_box, int prog_fds[2],
                   int inter_fds[2])
{
    memset(r, 0, sizeof *r);
    r->out_cap = out_cap;
    r->prog_box = prog_box;
    r->prog_run = sbx_box_run_id(prog_box); /* idle: the program's run is its next */
    int p_out[2], i_in[2], i_out[2], p_in[2];
    r->buf = malloc(cap ? cap : 1);
    if (!r->buf)
        return -1;
    r->cap = cap;
    if (pipe2(p_out, O_CLOEXEC) < 0)
        goto fail0;
    if (pipe2(i_in, O_CLOEXEC) < 0)
        goto fail1;
    if (pipe2(i_out, O_CLOEXEC) < 0)
        goto fail2;
    if (pipe2(p_in, O_CLOEXEC) < 0)
        goto fail3;
    pthread_mutex_init(&r->mu, NULL);
    leg *a = &r->legs[0], *b = &r->legs[1];
    *a = (leg){ r, p_out[0], i_in[1], '>' };
    *b = (leg){ r, i_out[0], p_in[1], '<' };
    if (pthread_create(&r->threads[0], NULL, leg_main, a) != 0) {
        close(p_out[0]);
        close(i_in[1]);
        close(i_out[0]);
        close(p_in[1]);
        goto started_none;
    }
    if (pthread_create(&r->threads[1], NULL, leg_main, b) != 0) {
        close(i_out[0]);
        close(p_in[1]);
        r->nthreads = 1;
        goto started_none;
    }
    r->nthreads = 2;
    prog_fds[0] = p_in[0];   /* the program's stdin */
    prog_fds[1] = p_out[1];  /* the program's stdout */
    inter_fds[0] = i_in[0];
    inter_fds[1] = i_out[1];
    return 0;
started_none:
    close(p_in[0]);
    close(p_out[1]);
    close(i_in[0]);
    close(i_out[1]);
    wk_relay_join(r);
    return -1;
fail3:
    close(i_out[0]);
    close(i_out[1]);
fail2:
    close(i_in[0]);
    close(i_in[1]);
fail1:
    close(p_out[0]);
    close(p_out[1]);
fail0:
    free(r->buf);
    r->buf = NULL;
    return -1;
}

void wk_relay_join(wk_relay *r)
{
    for (int i = 0; i < r->nthreads; i++)
        pthread_join(r->threads[i], NULL);
    r->nthreads = 0;
    pthread_mutex_destroy(&r->mu);
}
