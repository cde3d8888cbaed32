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
 * there is none. It sleeps on the box's condition variable, so that a run's
 * start or a cancel from another thread (sbx_box_cancel) wakes it: the
 * kill is then its own, sent while the run's socket is surely open. A
 * run's end does not wake it (one thread fewer to wake and wait for, per
 * run): it finds out at its next look, or when the next run starts.
 *
 * Without a CPU cgroup the main process's own CPU (and its reaped
 * children's) is read from /proc the same way (where /proc is our PID
 * namespace's); children still running are not counted, RLIMIT_CPU (per
 * process, whole seconds) is their backstop, and the result's isolation
 * list lacks cgroup_cpu.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

/* Watches b->watched while there is one, sleeping on b->cv in between
 * (the box's thread for the role, for the box's whole life). Every field
 * of the run is read under b->mu while it is the one watched: once
 * wd_stop has cleared it, the run is never touched again. */
static void *wd_main(void *arg)
{
    sbx_box *b = arg;
    uint64_t seen = 0; /* the run (its wd_seq) that `killed` is about */
    bool killed = false;
    pthread_mutex_lock(&b->mu);
    while (!b->wd_quit) {
        run_state *r = b->watched;
        if (!r) {
            pthread_cond_wait(&b->cv, &b->mu);
            continue;
        }
        if (seen != b->wd_seq) {
            seen = b->wd_seq;
            killed = false;
        }
        uint64_t cpu_limit = r->limits->cpu_ms * 1000000ull;
        unsigned ncpu = b->host->ncpu ? b->host->ncpu : 1;
        uint64_t now = run_now_ns();
        uint64_t deadline = r->wall_deadline_ns + atomic_load(&r->callback_ns);
        uint64_t next = deadline, used;
        if (killed || atomic_load(&r->reason) || atomic_load(&r->ended)) {
            killed = true;
            box_kill(b);
        } else if (box_cancel_asked(b)) {
            run_kill(r, SBX_SANDBOX_ERROR);
            killed = true;
        } else if (now >= deadline) {
            atomic_store(&r->waiting, run_reading_stdin(r));
            run_kill(r, SBX_WALL_TIME_LIMIT);
            killed = true;
        } else if (cpu_used(r, &used) == 0) {
            if (used >= cpu_limit) {
                run_kill(r, SBX_TIME_LIMIT);
                killed = true;
            }
            uint64_t step = (cpu_limit - used) / ncpu;
            if (step < MIN_STEP_NS)
                step = MIN_STEP_NS;
            if (now + step < next)
                next = now + step;
        }
        if (killed)
            next = now + KILL_RETRY_NS;
        /* Woken early by the next run's start, a cancel or the box's
         * close; a wait that fails (it cannot, with these times) only
         * makes this look again. */
        struct timespec ts = { (time_t)(next / 1000000000ull), (long)(next % 1000000000ull) };
        (void)pthread_cond_timedwait(&b->cv, &b->mu, &ts);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

int wd_start(watchdog *w)
{
    sbx_box *b = w->run->box;
    pthread_mutex_lock(&b->mu);
    b->watched = w->run;
    b->wd_seq++;
    pthread_mutex_unlock(&b->mu);
    /* After the unlock: the watchdog does not wake only to wait for mu. */
    pthread_cond_broadcast(&b->cv);
    if (b->wd_running)
        return 0;
    if (bt_give(&b->threads[BT_WATCHDOG], "gradeq-watchdog", 64 * 1024, wd_main, b) < 0) {
        wd_stop(w);
        return -1;
    }
    b->wd_running = true;
    return 0;
}

/* No wake-up: the watchdog finds the run gone whenever it next looks
 * (at the latest when the next run starts), and from now on touches
 * nothing of it. */
void wd_stop(watchdog *w)
{
    sbx_box *b = w->run->box;
    pthread_mutex_lock(&b->mu);
    b->watched = NULL;
    pthread_mutex_unlock(&b->mu);
}

void wd_close(sbx_box *b)
{
    pthread_mutex_lock(&b->mu);
    b->wd_quit = true;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    b->wd_running = false;
}
