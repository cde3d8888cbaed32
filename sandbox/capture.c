/* capture.c -- one reader thread per output stream, stopping at its cap.
 *
 * DESIGN. Two threads drain stdout and stderr in parallel (one poll loop is
 * bound to one core's copying: 2 GB/s here against 4 GB/s for two
 * threads). Each reads straight into the result buffer and never asks for
 * more than cap+1 bytes in total: the byte past the cap proves the program
 * wanted to write more, and is the only byte read beyond it. At that point
 * the reader keeps exactly the first cap bytes, marks the stream truncated
 * and kills the run (OUTPUT_LIMIT), then stops reading.
 *
 * A reader also stops once every process of the run is gone (stop_fd),
 * having taken what was left in the pipe: end of file is not proof enough,
 * since a program can leave a copy of its stdout in flight in a unix
 * socket that no process holds, and the pipe then never reaches EOF. So
 * the read end is non-blocking, and the reader polls it together with
 * stop_fd only when it is empty.
 *
 * The readers are the box's (box_threads.c): each run gives them its
 * streams, and they wait for the next run once done. KEPT PIPES. Done with
 * a run, a reader makes the pipe for its stream's next run and keeps it;
 * between runs it waits in poll on its own copy of the read end rather
 * than on its condition variable. The next run takes the pipe (cap_pipe),
 * so that what wakes the reader is the program's first write or its end,
 * not the caller as well: a reader sleeps once a run instead of twice. The
 * reader owns its copy alone; the pipe itself is the run's once taken,
 * closed by it as any pipe of the run. A reader whose pipe is taken and
 * then dropped (a run that failed before it started) sees its end of
 * file, drops its copy and waits on its condition variable; one that
 * could not make a pipe (or its bell) leaves the next run to make its
 * own. A reader still waiting on a taken pipe when every process of the
 * run is gone (its end of file may never come: a write end in flight) is
 * rung on its bell, an eventfd of its own (cap_wake), and then stops at
 * stop_fd like any reader.
 *
 * Large streams get transparent huge pages: a page fault per 4 KiB page can
 * cost more than the pipe copy itself, and 2 MiB pages cut their number
 * 512-fold.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define READ_MAX (64 * 1024)
#define HUGE (2u << 20)

static void *reader_main(void *arg)
{
    cap_stream *c = arg;
    uint64_t limit = c->cap + 1;
    for (;;) {
        size_t want = (size_t)(limit - c->len);
        ssize_t n = read(c->fd, c->buf + c->len, want < READ_MAX ? want : READ_MAX);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd p[2] = { { c->fd, POLLIN, 0 }, { c->stop_fd, POLLIN, 0 } };
            if (poll(p, 2, -1) < 0 && errno != EINTR) {
                c->err = errno;
                break;
            }
            if (!p[0].revents && p[1].revents)
                break; /* the run is gone and the pipe is empty */
            continue;
        }
        if (n < 0) {
            c->err = errno;
            break;
        }
        if (n == 0)
            break;
        if (c->run->spec->interact) {
            size_t room = (size_t)(c->cap - (c->len < c->cap ? c->len : c->cap));
            ia_chunk(c->run, c->stream, c->buf + c->len, (size_t)n < room ? (size_t)n : room);
        }
        c->len += (size_t)n;
        if (c->len > c->cap) {
            c->len = (size_t)c->cap;
            c->truncated = true;
            run_kill(c->run, SBX_OUTPUT_LIMIT);
            break;
        }
    }
    return NULL;
}

/* The whole cap+1 is reserved as address space once (MAP_NORESERVE: no
 * memory until written), so the stream lands where it will stay: no
 * regrowth, no copy. Past the first 2 MiB it asks for huge pages. */
static int map_buffer(cap_stream *c)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (size_t)((c->cap + 1 + page - 1) / page * page);
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    c->buf = p;
    c->size = size;
    /* A zygote cloned while this run's output is held must not count it in
     * its RSS (its OOM badness). */
    madvise(p, size, MADV_DONTFORK);
    uintptr_t lo = ((uintptr_t)p + HUGE + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(uintptr_t)(HUGE - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    return 0;
}

static box_thread *reader_of(sbx_box *b, int stream)
{
    return &b->threads[stream == 1 ? BT_STDOUT : BT_STDERR];
}

int cap_pipe(sbx_box *b, int stream, int p[2])
{
    box_thread *t = reader_of(b, stream);
    bool taken = false;
    if (t->owner) {
        pthread_mutex_lock(&t->mu);
        if (t->kept) {
            p[0] = t->keep[0];
            p[1] = t->keep[1];
            t->kept = false;
            taken = true;
        }
        pthread_mutex_unlock(&t->mu);
    }
    return taken ? 0 : run_slot_pipe(p, b->host->root, b->uid, true);
}

bool cap_idle(box_thread *t)
{
    if (t->idle_fd >= 0 && !t->kept) {
        close(t->idle_fd); /* its pipe is a run's now, or closed */
        t->idle_fd = -1;
    }
    if (t->idle_fd < 0)
        return false;
    /* Only this thread closes idle_fd and bell: they stay valid without
     * the lock. */
    struct pollfd p[2] = { { t->idle_fd, POLLIN, 0 }, { t->bell, POLLIN, 0 } };
    pthread_mutex_unlock(&t->mu);
    int n = poll(p, 2, -1);
    int e = errno;
    uint64_t rung;
    if (n > 0 && p[1].revents && read(t->bell, &rung, sizeof rung) < 0)
        rung = 0; /* emptied already: nothing to do */
    pthread_mutex_lock(&t->mu);
    if (n < 0 && e != EINTR) {
        close(t->idle_fd); /* the run that takes the pipe wakes it */
        t->idle_fd = -1;
    }
    return true;
}

void cap_renew(box_thread *t)
{
    if (t->kept || t->quit)
        return; /* its pipe went unused: the run had its own */
    if (t->idle_fd >= 0)
        close(t->idle_fd);
    t->idle_fd = -1;
    int p[2];
    if (run_slot_pipe(p, t->pipe_chown, t->pipe_uid, true) < 0)
        return; /* the next run makes its own */
    int idle = fcntl(p[0], F_DUPFD_CLOEXEC, 3);
    if (idle < 0) {
        close(p[0]);
        close(p[1]);
        return;
    }
    t->keep[0] = p[0];
    t->keep[1] = p[1];
    t->idle_fd = idle;
    t->kept = true;
}

void cap_drop(box_thread *t)
{
    if (t->kept) {
        close(t->keep[0]);
        close(t->keep[1]);
    }
    t->kept = false;
}

void cap_end(box_thread *t)
{
    cap_drop(t);
    if (t->idle_fd >= 0)
        close(t->idle_fd);
    t->idle_fd = -1;
    if (t->bell >= 0)
        close(t->bell);
    t->bell = -1;
    t->reader = false;
}

void cap_wake(cap_stream *c)
{
    if (c->fd < 0)
        return;
    box_thread *t = reader_of(c->run->box, c->stream);
    uint64_t one = 1;
    pthread_mutex_lock(&t->mu);
    if (t->job && !t->busy && write(t->bell, &one, sizeof one) != sizeof one)
        one = 0; /* cannot happen to an eventfd far from its maximum */
    pthread_mutex_unlock(&t->mu);
}

void cap_forget(box_thread *t)
{
    cap_end(t);
}

int cap_start(cap_stream *c)
{
    if (c->fd < 0)
        return 0; /* not captured */
    sbx_box *b = c->run->box;
    box_thread *t = reader_of(b, c->stream);
    if (!t->owner) {
        /* Without its bell a reader keeps no pipe, and waits between
         * runs on its condition variable. */
        t->bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        t->reader = t->bell >= 0;
        t->busy = t->kept = false;
        t->idle_fd = -1;
        t->pipe_uid = b->uid;
        t->pipe_chown = b->host->root;
    }
    if (map_buffer(c) < 0)
        return -1;
    if (bt_give(t, c->stream == 1 ? "gradeq-stdout" : "gradeq-stderr", 64 * 1024, reader_main, c) < 0) {
        int e = errno;
        cap_unmap(c->buf, c->size);
        c->buf = NULL;
        errno = e;
        return -1;
    }
    return 0;
}

void cap_unmap(char *buf, size_t size)
{
    if (buf)
        munmap(buf, size);
}

void cap_join(cap_stream *c)
{
    if (c->fd < 0)
        return;
    bt_wait(reader_of(c->run->box, c->stream));
    close(c->fd);
    c->fd = -1;
}
