/* watchdog.c -- the thread that enforces wall time and CPU time.
 *
 * DESIGN. No fixed tick. CPU time can grow at most ncpu times faster than
 * the wall clock, so when the run has R ns of CPU left the limit cannot be
 * crossed before R/ncpu ns from now: the watchdog sleeps exactly that long
 * (or until the wall deadline, or until the run ends), reads the cgroup's
 * counter, and repeats. Checks thin out far from the limit and close in near
 * it, so a kill lands within about a millisecond of the limit at a cost of a
 * dozen counter reads for a one-second limit (isolate and go-judge poll every
 * 100 ms, nsjail every second).
 *
 * It is the box's thread (box_threads.c), given one job for the box's
 * whole life: watch the run the box names (b->watched), or sleep while
 * there is none. It sleeps on the box's timer (b->wd_timer, a timerfd),
 * which every waker sets rather than signals: a run's start arms it for the
 * run's first look (its counter starts at zero, so that look can wait
 * cpu_ms/ncpu, or until the wall deadline), a cancel from another thread
 * (sbx_box_cancel) or the box's close arms it to fire at once, and the
 * watchdog arms it for its own next look. Setting a timer wakes nobody: a
 * run shorter than its first look (most tests) never wakes the watchdog
 * at all, and the zygote that spawns the run does not share the CPUs with
 * it at that moment. Every arming is done under b->mu, so the last one
 * stands: a cancel that comes while the watchdog looks fires once it
 * sleeps again. A run's end does not touch the timer: a look that comes
 * after it finds no run (or the next one, early: it only looks) and
 * sleeps. The kill is always the watchdog's own, sent while the run's
 * socket is surely open.
 *
 * Without a CPU cgroup the main process's own CPU (and its reaped
 * children's) is read from /proc the same way (where /proc is our PID
 * namespace's); children still running are not counted, RLIMIT_CPU (per
 * process, whole seconds) is their backstop, and the result's isolation
 * list lacks cgroup_cpu.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define MIN_STEP_NS 500000ull
/* A kill is repeated until the main process is reported gone: one that
 * failed (no fd to read the cgroup with, a full socket) is not the end. */
#define KILL_RETRY_NS 20000000ull

/* utime + stime + cutime + cstime of /proc/PID/stat, in ns. */
static int proc_cpu_ns(pid_t pid, uint64_t *ns)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold anything */
    unsigned long long ut, st, cut, cst;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &ut, &st, &cut,
                     &cst) != 4)
        return -1;
    *ns = (ut + st + cut + cst) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
    return 0;
}

static int cpu_used(run_state *r, uint64_t *ns)
{
    if (r->box->has_cg)
        return cg_slot_cpu_ns(&r->box->cg, ns);
    return r->pid > 0 && r->box->host->procfs_ours ? proc_cpu_ns(r->pid, ns) : -1;
}

/* Sets the box's timer to fire at `at` (CLOCK_MONOTONIC, ns; a time past
 * fires at once), under b->mu. It cannot fail with these arguments; were
 * it to, the watchdog would look again only at the next arming. */
static void arm(sbx_box *b, uint64_t at)
{
    if (at == 0)
        at = 1; /* 0 would disarm it */
    struct itimerspec its = { .it_value = { (time_t)(at / 1000000000ull), (long)(at % 1000000000ull) } };
    (void)timerfd_settime(b->wd_timer, TFD_TIMER_ABSTIME, &its, NULL);
}

/* When to look at r next, having seen `used` ns of its CPU at `now`. */
static uint64_t next_look(const run_state *r, uint64_t now, uint64_t used)
{
    uint64_t cpu_limit = r->limits->cpu_ms * 1000000ull;
    unsigned ncpu = r->box->host->ncpu ? r->box->host->ncpu : 1;
    uint64_t deadline = r->wall_deadline_ns + atomic_load(&r->callback_ns);
    uint64_t step = used < cpu_limit ? (cpu_limit - used) / ncpu : 0;
    if (step < MIN_STEP_NS)
        step = MIN_STEP_NS;
    return now + step < deadline ? now + step : deadline;
}

/* One look at b->watched (under b->mu): kills it if it is over a limit,
 * cancelled or being killed, and arms the timer for the next look. */
static void look(sbx_box *b, uint64_t *seen, bool *killed)
{
    run_state *r = b->watched;
    if (!r)
        return;
    if (*seen != b->wd_seq) {
        *seen = b->wd_seq;
        *killed = false;
    }
    uint64_t now = run_now_ns(), used;
    uint64_t deadline = r->wall_deadline_ns + atomic_load(&r->callback_ns);
    uint64_t next = deadline;
    if (*killed || atomic_load(&r->reason) || atomic_load(&r->ended)) {
        *killed = true;
        box_kill(b);
    } else if (box_cancel_asked(b)) {
        run_kill(r, SBX_SANDBOX_ERROR);
        *killed = true;
    } else if (now >= deadline) {
        atomic_store(&r->waiting, run_reading_stdin(r));
        run_kill(r, SBX_WALL_TIME_LIMIT);
        *killed = true;
    } else if (cpu_used(r, &used) == 0) {
        if (used >= r->limits->cpu_ms * 1000000ull) {
            run_kill(r, SBX_TIME_LIMIT);
            *killed = true;
        }
        next = next_look(r, now, used);
    }
    arm(b, *killed ? now + KILL_RETRY_NS : next);
}

/* Watches b->watched while there is one, sleeping on b->wd_timer in
 * between (the box's thread for the role, for the box's whole life). Every
 * field of the run is read under b->mu while it is the one watched: once
 * wd_stop has cleared it, the run is never touched again. */
static void *wd_main(void *arg)
{
    sbx_box *b = arg;
    uint64_t seen = 0; /* the run (its wd_seq) that `killed` is about */
    bool killed = false;
    pthread_mutex_lock(&b->mu);
    while (!b->wd_quit) {
        look(b, &seen, &killed);
        pthread_mutex_unlock(&b->mu);
        /* Only this thread reads the timer; a poll that fails (it cannot:
         * one fd, no timeout) only makes this look again. */
        struct pollfd p = { b->wd_timer, POLLIN, 0 };
        uint64_t fired;
        if (poll(&p, 1, -1) > 0 && read(b->wd_timer, &fired, sizeof fired) < 0)
            fired = 0; /* re-armed in between: nothing to take */
        pthread_mutex_lock(&b->mu);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

int wd_start(watchdog *w)
{
    sbx_box *b = w->run->box;
    run_state *r = w->run;
    pthread_mutex_lock(&b->mu);
    b->watched = r;
    b->wd_seq++;
    /* A cancel or a kill already asked is acted on at once. */
    bool now = box_cancel_asked(b) || atomic_load(&r->reason);
    arm(b, now ? 1 : next_look(r, r->start_ns, 0));
    pthread_mutex_unlock(&b->mu);
    if (b->wd_running)
        return 0;
    if (bt_give(&b->threads[BT_WATCHDOG], "gradeq-watchdog", 64 * 1024, wd_main, b) < 0) {
        wd_stop(w);
        return -1;
    }
    b->wd_running = true;
    return 0;
}

/* The timer is left as it is: the watchdog finds the run gone whenever it
 * next looks, and from now on touches nothing of it. */
void wd_stop(watchdog *w)
{
    sbx_box *b = w->run->box;
    pthread_mutex_lock(&b->mu);
    b->watched = NULL;
    pthread_mutex_unlock(&b->mu);
}

void wd_wake(sbx_box *b)
{
    arm(b, 1);
}

void wd_close(sbx_box *b)
{
    pthread_mutex_lock(&b->mu);
    b->wd_quit = true;
    arm(b, 1);
    pthread_mutex_unlock(&b->mu);
    b->wd_running = false;
}
