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
 * streams, and they wait for the next run once done. QUIET START. A short
 * run's streams fit in their pipes (64 KiB each), and waking a reader for
 * its first write and again for its end costs the program's CPU a wake-up
 * each and the run's hand-offs a thread more. So a reader is given its
 * stream (of a run without an interaction callback) with a first look
 * some time after the run's start (quiet_ns): it sleeps on its own timer
 * until then, not on the pipe, and neither the program's writes nor its
 * end wake it.
 * From its first look on it drains as described above. If the run is over
 * before that look, the run's own thread drains the pipe instead at
 * cap_join, the reader never having started the job: what the run left in
 * the pipe is all there is, and the cap is applied as the reader would;
 * the reader's timer is unarmed, lest the look wake it between runs. A
 * program that fills its pipe before the look waits for it, at most
 * QUIET_MAX_NS once per run. The caller makes each stream's pipe for the
 * next run while the current one runs (cap_refill), off the run's path.
 *
 * THREADS. A reader's fields (box_thread) are under its mu: the caller
 * sets job, arg and look_at; the reader takes the job (busy) once look_at
 * has passed; cap_join takes a job the reader has not taken. The reader
 * sleeps in poll on its timer (armed for look_at) and its bell (rung for
 * a job to start at once, or its end), never on its condition variable
 * when it has both; the kept pipe is the caller's alone.
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
#include <sys/timerfd.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define READ_MAX (64 * 1024)
#define HUGE (2u << 20)
/* Bounds of a stream's first look after the run's start. */
#define QUIET_MIN_NS 2000000ull
#define QUIET_MAX_NS 8000000ull

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

/* When a stream's first look comes after the run's start: twice the
 * box's quickest run so far, the time this machine takes to start and end
 * a program (no run is quicker; a fixed time would be past most tests' end
 * on one machine and before it on a slower one, whose readers would then
 * wake for every run), within QUIET_MIN_NS and QUIET_MAX_NS, and at most
 * a quarter of the wall limit. A program blocked on a full pipe waits at
 * most this long. */
static uint64_t quiet_ns(const run_state *run)
{
    uint64_t q = run->box->quickest_ns < QUIET_MAX_NS / 2 ? 2 * run->box->quickest_ns : QUIET_MAX_NS;
    if (q < QUIET_MIN_NS)
        q = QUIET_MIN_NS;
    uint64_t quarter = (run->wall_deadline_ns - run->start_ns) / 4;
    return q < quarter ? q : quarter;
}

static box_thread *reader_of(sbx_box *b, int stream)
{
    return &b->threads[stream == 1 ? BT_STDOUT : BT_STDERR];
}

int cap_pipe(sbx_box *b, int stream, int p[2])
{
    box_thread *t = reader_of(b, stream);
    if (!t->kept)
        return run_slot_pipe(p, b->host->root, b->uid, true);
    p[0] = t->keep[0];
    p[1] = t->keep[1];
    t->kept = false;
    return 0;
}

void cap_refill(sbx_box *b)
{
    for (int i = BT_STDOUT; i <= BT_STDERR; i++) {
        box_thread *t = &b->threads[i];
        /* One that cannot be made now is made when a run needs it. */
        if (t->reader && !t->kept && run_slot_pipe(t->keep, b->host->root, b->uid, true) == 0)
            t->kept = true;
    }
}

bool cap_later(box_thread *t)
{
    return t->look_at && run_now_ns() < t->look_at;
}

bool cap_sleep(box_thread *t)
{
    if (t->bell < 0)
        return false;
    /* Only this thread closes bell and timer: they stay valid without the
     * lock. A poll that fails only makes the thread look again. */
    struct pollfd p[2] = { { t->bell, POLLIN, 0 }, { t->timer, POLLIN, 0 } };
    pthread_mutex_unlock(&t->mu);
    uint64_t n;
    if (poll(p, 2, -1) > 0) {
        if (p[0].revents && read(t->bell, &n, sizeof n) < 0)
            n = 0; /* emptied already */
        if (p[1].revents && read(t->timer, &n, sizeof n) < 0)
            n = 0; /* re-armed in between */
    }
    pthread_mutex_lock(&t->mu);
    return true;
}

void cap_ring(box_thread *t)
{
    uint64_t one = 1;
    if (t->bell >= 0 && write(t->bell, &one, sizeof one) != sizeof one)
        one = 0; /* cannot happen to an eventfd far from its maximum */
}

void cap_end(box_thread *t)
{
    if (t->kept) {
        close(t->keep[0]);
        close(t->keep[1]);
    }
    t->kept = false;
    if (!t->reader)
        return;
    if (t->bell >= 0)
        close(t->bell);
    if (t->timer >= 0)
        close(t->timer);
    t->bell = t->timer = -1;
    t->reader = false;
}

int cap_start(cap_stream *c)
{
    if (c->fd < 0)
        return 0; /* not captured */
    sbx_box *b = c->run->box;
    box_thread *t = reader_of(b, c->stream);
    if (!t->reader) {
        /* Without its bell and timer a reader has no quiet start: it
         * waits on its condition variable and starts each job at once. */
        t->reader = true;
        t->busy = false;
        t->bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        t->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (t->bell < 0 || t->timer < 0) {
            if (t->bell >= 0)
                close(t->bell);
            if (t->timer >= 0)
                close(t->timer);
            t->bell = t->timer = -1;
        }
    }
    if (map_buffer(c) < 0)
        return -1;
    /* An interaction's reader hands each chunk on as it comes. */
    bool quiet = t->bell >= 0 && !c->run->spec->interact;
    uint64_t at = c->run->start_ns + quiet_ns(c->run);
    if (t->owner) {
        pthread_mutex_lock(&t->mu);
        t->look_at = quiet ? at : 0;
        pthread_mutex_unlock(&t->mu);
    } else {
        t->look_at = quiet ? at : 0; /* no thread yet, nor its lock */
    }
    if (bt_give(t, c->stream == 1 ? "gradeq-stdout" : "gradeq-stderr", 64 * 1024, reader_main, c) < 0) {
        int e = errno;
        cap_unmap(c->buf, c->size);
        c->buf = NULL;
        errno = e;
        return -1;
    }
    if (quiet) {
        /* Arming wakes nobody; it cannot fail with these arguments, and
         * if it did the job would be the caller's at cap_join. */
        struct itimerspec its = { .it_value = { (time_t)(at / 1000000000ull), (long)(at % 1000000000ull) } };
        (void)timerfd_settime(t->timer, TFD_TIMER_ABSTIME, &its, NULL);
    } else {
        cap_ring(t);
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
    box_thread *t = reader_of(c->run->box, c->stream);
    pthread_mutex_lock(&t->mu);
    /* Not started by its reader (its first look not come yet): the pipe
     * holds what is left, and this thread takes it. */
    bool mine = t->job == reader_main && t->arg == c && !t->busy && !c->run->spec->interact;
    if (mine) {
        t->job = NULL;
        t->look_at = 0;
    }
    pthread_mutex_unlock(&t->mu);
    if (mine) {
        /* Unarmed, the look that is of no use now wakes nobody in the
         * pause before the next run (a checker's run, the next command);
         * it cannot fail with these arguments, and if it did the reader
         * would only wake to find no job. */
        static const struct itimerspec never;
        if (t->timer >= 0)
            (void)timerfd_settime(t->timer, 0, &never, NULL);
        reader_main(c);
    } else {
        bt_wait(t);
    }
    close(c->fd);
    c->fd = -1;
}
