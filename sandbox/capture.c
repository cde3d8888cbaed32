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
 * streams, and they wait for the next run once done.
 *
 * Large streams get transparent huge pages: a page fault per 4 KiB page can
 * cost more than the pipe copy itself, and 2 MiB pages cut their number
 * 512-fold.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
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

static box_thread *reader_of(cap_stream *c)
{
    return &c->run->box->threads[c->stream == 1 ? BT_STDOUT : BT_STDERR];
}

int cap_start(cap_stream *c)
{
    if (c->fd < 0)
        return 0; /* not captured */
    if (map_buffer(c) < 0)
        return -1;
    if (bt_give(reader_of(c), c->stream == 1 ? "gradeq-stdout" : "gradeq-stderr", 64 * 1024, reader_main, c) < 0) {
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
    bt_wait(reader_of(c));
    close(c->fd);
    c->fd = -1;
}
