/* run.c -- sbx_run: one run from its files to its verdict.
 *
 * ORDER OF A RUN.
 *   1. place the files in /box (through the zygote's directory fd), or
 *      find them there, kept from the last run (place.c)
 *   2. stdin: a sealed memfd (a program that never reads it cannot block
 *      anyone, and one that closes it changes nothing), or /dev/null
 *   3. limits into the slot's cgroup, counters reset
 *   4. the zygote spawns the program; the box's two reader threads and
 *      its watchdog are given the run (box_threads.c: made once per box),
 *      in namespaces at once: the zygote's one answer comes at the end
 *      (EXITED, or EXEC_FAILED when the program never started)
 *   5. the main process exits (or is killed): every other process of the
 *      run is killed, the readers reach EOF
 *   6. accounting read, verdict decided, /box and /tmp wiped
 *
 * VERDICT. Decided on what the sandbox measured, never on how the program
 * says it ended (any program can raise any signal or print any message).
 * A reason the sandbox killed for wins over how the exit looked (the first
 * reason recorded wins among them), with one exception below. Then
 * memory: an OOM kill in the run, or a run that failed (a signal or a
 * non-zero exit) after a charge at its limit failed even after reclaim,
 * is MEMORY_LIMIT; the kernel reclaiming page cache at the limit is not
 * a failure. Then CPU over the limit (a run that ended just past it before
 * the watchdog looked is still over it; RLIMIT_CPU's SIGXCPU only fires
 * past it too, so a self-raised SIGXCPU stays SIGNALED). Then SIGXFSZ with
 * a file of the run at file_bytes in /box or /tmp: OUTPUT_LIMIT, not a
 * crash (a self-raised SIGXFSZ with no such file stays SIGNALED). Then
 * the exit itself.
 *
 * OUT OF CPU AT THE MEMORY LIMIT is MEMORY_LIMIT: a run over its CPU limit
 * (killed for it, or ended past it) whose memory reached its limit, as the
 * cgroup recorded (reclaim at the limit, or an OOM kill). Near the limit
 * a runtime's CPU goes into the kernel reclaiming its own pages (its code
 * and data evicted, read back, evicted again) before any OOM kill comes,
 * so the CPU limit can end such a run first; how much of its CPU went into
 * reclaim cannot be told apart, and the limit it did reach is memory's.
 * Page cache counts here as the run's memory: a run that fills its limit
 * with file pages and then runs out of CPU is MEMORY_LIMIT too.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"

uint64_t run_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void run_kill(run_state *r, sbx_status why)
{
    int none = 0;
    unsigned long long never = 0;
    atomic_compare_exchange_strong(&r->kill_ns, &never, run_now_ns());
    atomic_compare_exchange_strong(&r->reason, &none, (int)why);
    box_kill(r->box);
}

/* ---- files ----------------------------------------------------------- */

int run_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* stdin as a sealed memfd: readable like a file, immutable, never blocks. */
static int make_stdin(sbx_box *b, const sbx_spec *s, char *err, size_t errlen)
{
    if (!s->stdin_len) {
        int fd = fcntl(b->null_fd, F_DUPFD_CLOEXEC, 3);
        return fd < 0 ? sbx_fail_errno(err, errlen, "dup of /dev/null for stdin") : fd;
    }
    int fd = memfd_create("stdin", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return sbx_fail_errno(err, errlen, "memfd_create for stdin");
    if (run_write_all(fd, s->stdin_data, s->stdin_len) < 0 || lseek(fd, 0, SEEK_SET) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
        sbx_fail_errno(err, errlen, "filling stdin");
        close(fd);
        return -1;
    }
    return fd;
}

/* The program's stdin and stdout, as three fds to hand over (in, out,
 * err), plus what this side keeps: the read ends to capture (-1 when not
 * captured) and, in an interactive run, stdin's write end. The spec's own
 * fds are taken over. */
typedef struct stdio {
    int give[3];
    int read_out, read_err, reply;
} stdio;

static void close_fds(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

static void release_spec_fds(const sbx_spec *s)
{
    if (s->use_stdin_fd)
        close(s->stdin_fd);
    if (s->use_stdout_fd)
        close(s->stdout_fd);
}

int run_slot_pipe(int p[2], bool chown_w, uid_t uid, bool read_nonblock)
{
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    if ((chown_w && fchown(p[1], uid, uid) < 0) || (read_nonblock && fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        errno = e;
        return -1;
    }
    return 0;
}

/* A pipe handed in by the caller (an interactor's) becomes the slot's uid's
 * as run_slot_pipe's write end does: only an anonymous one (pipefs)
 * changes hands, never a file or FIFO of the host. */
static int own_spec_pipe(sbx_box *b, int fd)
{
    struct statfs fs;
    if (!b->host->root || fstatfs(fd, &fs) < 0 || fs.f_type != PIPEFS_MAGIC)
        return 0;
    return fchown(fd, b->uid, b->uid);
}

/* Every fd is in io from the moment it exists (the spec's own first), so
 * the failure path closes each exactly once. */
static int make_stdio(sbx_box *b, const sbx_spec *s, stdio *io, char *err, size_t errlen)
{
    *io = (stdio){ { s->use_stdin_fd ? s->stdin_fd : -1, s->use_stdout_fd ? s->stdout_fd : -1, -1 }, -1, -1, -1 };
    int p[2];
    if ((s->use_stdin_fd && own_spec_pipe(b, s->stdin_fd) < 0) ||
        (s->use_stdout_fd && own_spec_pipe(b, s->stdout_fd) < 0))
        goto fail;
    if (s->use_stdin_fd) {
        /* given as it is */
    } else if (s->interact) {
        if (run_slot_pipe(p, b->host->root, b->uid, false) < 0)
            goto fail;
        io->give[0] = p[0];
        io->reply = p[1];
    } else if ((io->give[0] = make_stdin(b, s, err, errlen)) < 0) {
        goto fail_msg;
    }
    /* The readers' pipes (capture.c), read without blocking, so that a
     * reader can stop once the run is gone even if a copy of the write end
     * is in flight somewhere. */
    if (!s->use_stdout_fd) {
        if (cap_pipe(b, 1, p) < 0)
            goto fail;
        io->give[1] = p[1];
        io->read_out = p[0];
    }
    if (cap_pipe(b, 2, p) < 0)
        goto fail;
    io->give[2] = p[1];
    io->read_err = p[0];
    return 0;
fail:
    sbx_fail_errno(err, errlen, "pipe");
fail_msg:
    close_fds(io->give, 3);
    close_fds((int[]){ io->read_out, io->read_err, io->reply }, 3);
    return -1;
}

/* ---- verdict --------------------------------------------------------- */

static void decide(sbx_result *r, const run_state *st, const zy_msg *exit, const cg_mem *m, bool file_full,
                   const sbx_limits *l)
{
    int why = atomic_load(&st->reason);
    int ws = exit->wstatus;
    r->exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    r->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    r->waiting_for_input = atomic_load(&st->waiting);
    if (why == SBX_TIME_LIMIT && m->reclaimed) {
        r->status = SBX_MEMORY_LIMIT; /* out of CPU at its memory limit */
        return;
    }
    if (why) {
        r->status = (sbx_status)why;
        return;
    }
    if (atomic_load(&st->ended)) {
        r->ended_by_callback = true;
        r->status = SBX_OK;
        return;
    }
    bool failed = r->signal || r->exit_code != 0;
    if (m->oom_kill || (m->failed && failed))
        r->status = SBX_MEMORY_LIMIT;
    else if (r->cpu_us > l->cpu_ms * 1000)
        r->status = m->reclaimed ? SBX_MEMORY_LIMIT : SBX_TIME_LIMIT;
    else if (r->signal == SIGXFSZ && file_full)
        r->status = SBX_OUTPUT_LIMIT;
    else if (r->signal)
        r->status = SBX_SIGNALED;
    else if (r->exit_code != 0)
        r->status = SBX_RUNTIME_ERROR;
    else
        r->status = SBX_OK;
}

static void take_stream(cap_stream *c, char **buf, size_t *map, size_t *len, bool *trunc)
{
    /* An uncaptured stream (wired to an interactor) has no buffer. */
    *buf = c->buf;
    *map = c->size;
    *len = c->len;
    *trunc = c->truncated;
    c->buf = NULL;
}

static int sandbox_error(sbx_result *r, const char *msg)
{
    r->status = SBX_SANDBOX_ERROR;
    if (msg != r->error)
        snprintf(r->error, sizeof r->error, "%s", msg);
    return -1;
}

/* Every process of the run is gone: the readers take what is left in the
 * pipes and stop, even if a copy of a write end is still in flight in a
 * unix socket (no end of file would ever come). */
static void stop_readers(sbx_box *b, cap_stream cap[2], bool gone)
{
    uint64_t one = 1;
    if (gone && write(b->stop_fd, &one, sizeof one) != sizeof one)
        gone = false; /* cannot happen to an eventfd far from its maximum */
    for (int i = 0; i < 2; i++)
        cap_join(&cap[i]);
    if (gone && read(b->stop_fd, &one, sizeof one) != sizeof one)
        one = 0;
}

/* The zygote could not start the program (m: EXEC_FAILED): EXEC_ERROR
 * when exec itself failed (a missing file, no permission: the program's
 * own), else SANDBOX_ERROR. */
static int exec_failed(sbx_result *r, const sbx_spec *spec, zy_msg *m, uint64_t start_ns)
{
    m->what[sizeof m->what - 1] = 0;
    char shown[80];
    sbx_quote(shown, sizeof shown, spec->argv[0]);
    snprintf(r->error, sizeof r->error, "%s %s: %s", m->what, shown, strerror(m->err));
    if (strcmp(m->what, "exec") != 0)
        return sandbox_error(r, r->error);
    r->status = SBX_EXEC_ERROR;
    r->end_ns = run_now_ns();
    r->wall_us = (r->end_ns - start_ns) / 1000;
    return 0;
}

/* Steps 5 and 6 for a run whose program was sent (in namespaces its
 * threads start before the zygote says whether it started: its one
 * message is EXITED or EXEC_FAILED). *rebuild: the run left what the
 * zygote could not clear. */
static int finish(sbx_box *b, run_state *st, cap_stream cap[2], watchdog *wd, sbx_result *r, bool *rebuild)
{
    zy_msg exit = { 0 };
    char err[SBX_ERR_LEN] = "";
    int rc = box_recv(b, &exit, err, sizeof err);
    uint64_t end = run_now_ns();
    wd_stop(wd);
    bool never_ran = rc == 0 && b->ns && exit.op == ZY_EXEC_FAILED;
    if (rc == 0 && exit.op != ZY_EXITED && !never_ran)
        rc = sbx_fail(err, sizeof err, "unexpected message %u from the zygote", exit.op);
    bool ns = b->ns;
    if (rc < 0)
        box_reap(b); /* stopped once the readers are done, rebuilt after */
    /* Whatever outlived the main process (a daemon, a fork bomb's rest)
     * dies now. In namespaces the zygote has killed and reaped all of it
     * before reporting the exit (or died, taking its namespace along);
     * one that would not die costs the box. */
    char kerr[SBX_ERR_LEN] = "";
    int erc = 0;
    bool gone = ns;
    if (rc == 0 && ns && (exit.dirty & ZY_DIRTY_PROCESSES))
        box_reap(b);
    *rebuild = rc == 0 && exit.dirty;
    if (!ns && b->has_cg)
        gone = (erc = cg_slot_empty(&b->cg, kerr, sizeof kerr)) == 0;
    else if (!ns && b->sock >= 0)
        box_kill(b);
    stop_readers(b, cap, gone);
    ia_stop(st);
    if (rc < 0)
        box_stop(b);
    if (never_ran) {
        for (int i = 0; i < 2; i++)
            cap_unmap(cap[i].buf, cap[i].size);
        return exec_failed(r, st->spec, &exit, st->start_ns);
    }
    r->wall_us = (end - st->start_ns) / 1000;
    uint64_t killed = atomic_load(&st->kill_ns);
    r->end_ns = killed && killed < end ? killed : end;
    if (rc == 0 && !killed && (!b->quickest_ns || end - st->start_ns < b->quickest_ns))
        b->quickest_ns = end - st->start_ns; /* the readers' first look follows it (capture.c) */
    take_stream(&cap[0], &r->stdout_buf, &r->stdout_map_, &r->stdout_len, &r->stdout_truncated);
    take_stream(&cap[1], &r->stderr_buf, &r->stderr_map_, &r->stderr_len, &r->stderr_truncated);
    if (rc < 0)
        *rebuild = true;
    if (rc < 0 || erc < 0)
        return sandbox_error(r, rc < 0 ? err : kerr);
    cg_mem mem = { 0 };
    if (b->has_cg) {
        uint64_t ns_used = 0;
        if (cg_slot_cpu_ns(&b->cg, &ns_used) < 0 ||
            cg_slot_stats(&b->cg, exit.maxrss_kb * 1024, &mem, err, sizeof err) < 0)
            return sandbox_error(r, err[0] ? err : "reading the cgroup's accounting failed");
        r->cpu_us = ns_used / 1000;
        r->memory_bytes = mem.peak;
    } else {
        r->cpu_us = exit.utime_us + exit.stime_us;
        r->memory_bytes = exit.maxrss_kb * 1024;
    }
    /* Measured only for a death by SIGXFSZ (the run is over: its files
     * are still in place until the wipe). */
    bool file_full = WIFSIGNALED(exit.wstatus) && WTERMSIG(exit.wstatus) == SIGXFSZ &&
                     (fl_file_at_limit(b->box_fd, st->limits->file_bytes, b->uid) ||
                      fl_file_at_limit(b->tmp_fd, st->limits->file_bytes, b->uid));
    decide(r, st, &exit, &mem, file_full, st->limits);
    if (box_run_cancelled(b))
        return sandbox_error(r, "run cancelled");
    if (cap[0].err || cap[1].err) {
        snprintf(err, sizeof err, "reading the program's output: %s", strerror(cap[0].err ? cap[0].err : cap[1].err));
        return sandbox_error(r, err);
    }
    return 0;
}

/* Steps 2-4, then finish(). Returns -1 on SANDBOX_ERROR. */
static int start_and_finish(sbx_box *b, const sbx_spec *spec, run_state *st, sbx_result *r, bool *rebuild)
{
    stdio io;
    if (make_stdio(b, spec, &io, r->error, sizeof r->error) < 0)
        return sandbox_error(r, r->error);
    struct stat in;
    if (fstat(io.give[0], &in) == 0 && S_ISFIFO(in.st_mode)) {
        st->stdin_pipe = true; /* what waiting.c looks for */
        st->stdin_dev = in.st_dev;
        st->stdin_ino = in.st_ino;
    }
    cap_stream cap[2] = {
        { .run = st, .stream = 1, .fd = io.read_out, .stop_fd = b->stop_fd, .cap = spec->limits.stdout_bytes },
        { .run = st, .stream = 2, .fd = io.read_err, .stop_fd = b->stop_fd, .cap = spec->limits.stderr_bytes },
    };
    watchdog wd = { .run = st };
    st->start_ns = run_now_ns();
    uint64_t wall = spec->limits.wall_ms ? spec->limits.wall_ms : 3 * spec->limits.cpu_ms;
    st->wall_deadline_ns = st->start_ns + wall * 1000000ull;
    int rc = box_send_run(b, spec, io.give, r->error, sizeof r->error);
    close_fds(io.give, 3);
    zy_msg m = { .op = ZY_STARTED };
    if (rc == 0 && !b->ns)
        rc = box_recv(b, &m, r->error, sizeof r->error);
    if (rc == 0 && m.op == ZY_EXEC_FAILED) {
        close_fds((int[]){ io.read_out, io.read_err, io.reply }, 3);
        return exec_failed(r, spec, &m, st->start_ns);
    }
    if (rc == 0 && m.op != ZY_STARTED)
        rc = sbx_fail(r->error, sizeof r->error, "unexpected message %u from the zygote", m.op);
    if (rc < 0) {
        close_fds((int[]){ io.read_out, io.read_err, io.reply }, 3);
        box_stop(b);
        return sandbox_error(r, r->error);
    }
    st->pid = b->ns ? 0 : m.pid;
    int started = 0, reply = io.reply; /* ia_start takes it over, even failing */
    if ((reply < 0 || ia_start(st, reply) == 0) && cap_start(&cap[0]) == 0 && ++started &&
        cap_start(&cap[1]) == 0 && ++started && wd_start(&wd) == 0) {
        cap_refill(b); /* while the program runs */
        return finish(b, st, cap, &wd, r, rebuild);
    }
    /* Without its threads nothing bounds the run: stop it now (the
     * socket closes once no thread of the run can send on it). */
    box_reap(b);
    for (int i = 0; i < 2; i++) {
        if (i < started) {
            cap_join(&cap[i]);
            cap_unmap(cap[i].buf, cap[i].size);
        } else if (cap[i].fd >= 0) {
            close(cap[i].fd);
        }
    }
    ia_stop(st);
    box_stop(b);
    return sandbox_error(r, "cannot start the reader, writer and watchdog threads");
}

static int check_spec(const sbx_spec *s, char *err, size_t errlen)
{
    if (!s->argv || !s->argv[0] || !s->argv[0][0])
        return sbx_fail(err, errlen, "argv is empty");
    const sbx_limits *l = &s->limits;
    if (!l->cpu_ms || !l->memory_bytes || !l->processes || !l->open_files)
        return sbx_fail(err, errlen, "cpu_ms, memory_bytes, processes and open_files must be positive");
    /* The SBX_LIMIT_ bounds keep every derived value (cap + 1, limit + the
     * zygote's charge, processes + 1) far from overflow. */
    if (l->cpu_ms > SBX_LIMIT_MS_MAX || l->wall_ms > SBX_LIMIT_MS_MAX)
        return sbx_fail(err, errlen, "time limits over a day are refused");
    if (l->memory_bytes > SBX_LIMIT_MEMORY_MAX || l->stdout_bytes > SBX_LIMIT_STREAM_MAX ||
        l->stderr_bytes > SBX_LIMIT_STREAM_MAX || l->processes > SBX_LIMIT_PROCESSES_MAX ||
        l->open_files > SBX_LIMIT_OPEN_FILES_MAX)
        return sbx_fail(err, errlen, "limits over 64 TiB of memory, 1 TiB of output, %llu processes or %llu open "
                        "files are refused", SBX_LIMIT_PROCESSES_MAX, SBX_LIMIT_OPEN_FILES_MAX);
    return 0;
}

/* Empties /box and /tmp after a run (or a run that never started) and puts
 * the two directories back. Both are the program's to change: what the
 * wipe cannot undo costs the box, never an error. */
static bool wipe_box(sbx_box *b)
{
    char err[SBX_ERR_LEN];
    return (b->box_fd < 0 || place_wipe(b, err, sizeof err) == 0) &&
           (b->tmp_fd < 0 || wipe_dir(b->tmp_fd, err, sizeof err) == 0) && box_restore_dirs(b, err, sizeof err) == 0;
}

/* The run's end for the box: when this returns the box is as new. */
static void reset_box(sbx_box *b, bool rebuild)
{
    if (rebuild || !wipe_box(b))
        box_rebuild(b); /* fresh tmpfs: nothing to wipe */
}

static int refuse(sbx_box *b, const sbx_spec *spec, sbx_result *r, const char *err)
{
    release_spec_fds(spec);
    reset_box(b, false);
    return sandbox_error(r, err);
}

static int run_in_box(sbx_box *b, const sbx_spec *spec, sbx_result *r, bool cancelled)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    r->isolation = b->isolation;
    char err[SBX_ERR_LEN];
    /* A cancel that named this run before it started ends it at once. */
    if (cancelled) {
        release_spec_fds(spec);
        return sandbox_error(r, "run cancelled");
    }
    if (check_spec(spec, err, sizeof err) < 0 || box_start(b, err, sizeof err) < 0 ||
        box_touch_dirs(b, err, sizeof err) < 0) {
        release_spec_fds(spec);
        return sandbox_error(r, err);
    }
    if (place_files(b, spec, err, sizeof err) < 0)
        return refuse(b, spec, r, err);
    if (b->has_cg && cg_slot_prepare(&b->cg, &spec->limits, err, sizeof err) < 0)
        return refuse(b, spec, r, err);
    run_state st = { .box = b, .limits = &spec->limits, .spec = spec };
    pthread_mutex_init(&st.cb_mu, NULL);
    bool rebuild = false;
    int rc = start_and_finish(b, spec, &st, r, &rebuild);
    pthread_mutex_destroy(&st.cb_mu);
    /* Nothing of the run is alive now: what it left is stable. */
    if (spec->collect && rc == 0 && b->box_fd >= 0 && collect_dir(b->box_fd, spec->collect, err, sizeof err) < 0)
        rc = sandbox_error(r, err);
    /* Its files can go. */
    reset_box(b, rebuild);
    return rc;
}

/* The run has a number from here until the box is as new again: a cancel
 * naming it ends it, one that comes later reaches nothing. */
int sbx_run(sbx_box *b, const sbx_spec *spec, sbx_result *r)
{
    bool cancelled = box_run_cancelled(b);
    int rc = run_in_box(b, spec, r, cancelled);
    box_run_end(b);
    return rc;
}
