/* zygote_run.c -- each run in the box: the zygote's request loop, the
 * CLONE_VM|CLONE_VFORK child that becomes the program, the kill, the
 * reaping of every process of the box, and what the run left in the
 * namespaces.
 *
 * END OF A RUN (in namespaces). When the main process is reaped the zygote,
 * PID 1 of the box, kills every other process with kill(-1): that reaches
 * each process of the namespace and nothing else, with no pid to go stale
 * and no fd to open. It reaps until it has no child left, so the namespace
 * holds nobody but itself, and sets the namespace's pid counter back, so
 * that the next run's first process is PID 2 as in a new box. Then it
 * removes every System V IPC object and
 * POSIX queue (the IPC namespace lives as long as the slot) and counts the
 * sockets left in the network namespace (one in flight in an SCM_RIGHTS
 * cycle has no process to die with). Only then does it report the exit,
 * with what it could not clear: the caller rebuilds the box for that.
 *
 * Same rules as zygote.c: no malloc, no stdio, no libc call that
 * coordinates threads (the zygote is a copy of a threaded process).
 * Requests are bounded and checked before use.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/zygote.h"

#define MAX_STRINGS 8192
#define REAP_BOUND_MS 5000

static pid_t run_pid;
static int sig_fd = -1;   /* SIGCHLD */
static bool exited;       /* the main process is reaped, its message held */
static zy_msg exit_msg;

static union {
    zy_run_req req;
    char bytes[sizeof(zy_run_req) + ZY_STRINGS_MAX];
} in;
static char *argv_[MAX_STRINGS + 1], *envp_[MAX_STRINGS + 1];
static int run_fds[4]; /* stdin, stdout, stderr; v2: the run's cgroup (a directory) */
static int run_nfds;
static volatile int born_in_cgroup; /* the child came from zy_clone_into */
static int clone3_missing;
static char child_stack[64 * 1024] __attribute__((aligned(16)));
static char path_buf[4096];

/* Written by the vfork child before it dies; read by the zygote after. */
static volatile int child_errno;
static const char *volatile child_step;

/* Raw syscalls, not glibc's wrappers: the zygote is a copy of a threaded
 * process, and glibc's set*id would signal every thread it remembers and
 * wait for them forever. */
static int drop_to_slot_uid(void)
{
    uid_t u = zy_cfg->uid;
    if (syscall(SYS_setgroups, 0, NULL) < 0 || syscall(SYS_setresgid, u, u, u) < 0 ||
        syscall(SYS_setresuid, u, u, u) < 0)
        return -1;
    return 0;
}

static int child_fail(const char *step)
{
    child_errno = errno ? errno : EINVAL;
    child_step = step;
    _exit(127);
}

static void set_limit(int res, uint64_t v, const char *step)
{
    struct rlimit rl = { v, v };
    if (setrlimit(res, &rl) < 0)
        child_fail(step);
}

static const char *env_path(void)
{
    for (char **e = envp_; *e; e++)
        if (strncmp(*e, "PATH=", 5) == 0)
            return *e + 5;
    return "/usr/local/bin:/usr/bin:/bin";
}

/* execvpe without malloc: PATH from the run's own environment. */
static void exec_program(void)
{
    const char *name = argv_[0];
    if (strchr(name, '/')) {
        execve(name, argv_, envp_);
        child_fail("exec");
    }
    size_t nl = strlen(name);
    int seen_eacces = 0;
    for (const char *p = env_path(); *p;) {
        const char *end = strchrnul(p, ':');
        size_t dl = (size_t)(end - p);
        if (dl + 1 + nl + 1 <= sizeof path_buf) {
            memcpy(path_buf, dl ? p : ".", dl ? dl : 1);
            size_t at = dl ? dl : 1;
            path_buf[at] = '/';
            memcpy(path_buf + at + 1, name, nl + 1);
            execve(path_buf, argv_, envp_);
            if (errno == EACCES)
                seen_eacces = 1;
            else if (errno != ENOENT && errno != ENOTDIR)
                child_fail("exec");
        }
        p = *end ? end + 1 : end;
    }
    errno = seen_eacces ? EACCES : ENOENT;
    child_fail("exec");
}

static int child_main(void *arg)
{
    (void)arg;
    const zy_run_req *r = &in.req;
    sigset_t none;
    sigemptyset(&none);
    /* v2, without clone3: into the run's own cgroup before anything is
     * charged. */
    if (run_nfds == 4 && !born_in_cgroup && !zy_join_memcg()) {
        int procs = openat(run_fds[3], "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (procs < 0 || write(procs, "0", 1) != 1)
            child_fail("joining the run's cgroup");
        close(procs);
    }
    if (setsid() < 0)
        child_fail("setsid");
    /* Written while root: holding CAP_SYS_RESOURCE makes +1000 the
     * floor as well (oom_score_adj_min), which the program cannot lower;
     * without it, the floor stays the zygote's (host.c says so). */
    int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom < 0 || write(oom, "1000", 4) != 4)
        child_fail("raising oom_score_adj");
    close(oom);
    /* Its own thread only, while it still shares the zygote's memory:
     * what it charges from exec on is the run's. */
    if (zy_join_memcg() && run_nfds == 4 && write(run_fds[3], "0", 1) != 1)
        child_fail("joining the run's memory cgroup");
    for (int i = 0; i < 3; i++)
        if (dup2(run_fds[i], i) < 0)
            child_fail("dup2");
    if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
        child_fail("close_range");
    if (chdir(zy_cfg->ns ? "/box" : zy_cfg->box_dir) < 0)
        child_fail("chdir to the box");
    umask(022);
    set_limit(RLIMIT_CPU, r->cpu_s, "RLIMIT_CPU");
    set_limit(RLIMIT_FSIZE, r->file_bytes, "RLIMIT_FSIZE");
    set_limit(RLIMIT_NOFILE, r->open_files, "RLIMIT_NOFILE");
    set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE");
    set_limit(RLIMIT_STACK, r->stack_bytes, "RLIMIT_STACK");
    if (r->as_bytes)
        set_limit(RLIMIT_AS, r->as_bytes, "RLIMIT_AS");
    /* The zygote is on its caller's CPU alone (box.c): the run gets back
     * the CPUs the zygote started with, or the one it is pinned to. Should
     * a cpuset have dropped all of those since, it gets what the cpuset
     * allows, as the kernel gives a task whose CPUs it took away. */
    cpu_set_t cpus = zy_run_cpus;
    if (r->cpu >= 0) {
        CPU_ZERO(&cpus);
        CPU_SET(r->cpu, &cpus);
        if (sched_setaffinity(0, sizeof cpus, &cpus) < 0)
            child_fail("pinning to a CPU");
    } else if (sched_setaffinity(0, sizeof cpus, &cpus) < 0) {
        memset(&cpus, 0xff, sizeof cpus);
        if (sched_setaffinity(0, sizeof cpus, &cpus) < 0)
            child_fail("giving the run its CPUs");
    }
    if (zy_cfg->host->root) {
        /* Per-uid, and the uid is this slot's alone: a backstop for pids. */
        set_limit(RLIMIT_NPROC, r->processes, "RLIMIT_NPROC");
        if (drop_to_slot_uid() < 0)
            child_fail("dropping to the slot's uid");
    }
    if (zy_cfg->host->seccomp && zy_clone3_used() && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &zy_no_clone3) < 0)
        child_fail("loading the run's seccomp filter");
    if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
        child_fail("sigprocmask");
    exec_program();
    return 0;
}

static int child_entry(void)
{
    return child_main(NULL);
}

/* The run's first process: born in its cgroup where it has one (v2) and
 * the kernel can, else cloned and joining it itself. */
static pid_t start_child(void)
{
    if (run_nfds == 4 && !clone3_missing && !zy_join_memcg()) {
        born_in_cgroup = 1;
        pid_t pid = zy_clone_into(child_entry, child_stack, sizeof child_stack, run_fds[3]);
        if (pid >= 0)
            return pid;
        clone3_missing = errno == ENOSYS;
    }
    born_in_cgroup = 0;
    return clone(child_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
}

/* Checks the request and points argv_/envp_ into it. */
static int parse_request(size_t n)
{
    const zy_run_req *r = &in.req;
    if (n < sizeof *r || r->strings_len != n - sizeof *r || r->argc == 0 ||
        r->argc > MAX_STRINGS || r->envc > MAX_STRINGS || in.bytes[n - 1] != 0)
        return -1;
    char *p = in.bytes + sizeof *r, *end = in.bytes + n;
    for (uint32_t i = 0; i < r->argc + r->envc; i++) {
        if (p >= end)
            return -1;
        if (i < r->argc)
            argv_[i] = p;
        else
            envp_[i - r->argc] = p;
        p += strlen(p) + 1;
    }
    argv_[r->argc] = NULL;
    envp_[r->envc] = NULL;
    return p == end ? 0 : -1;
}

static void reply(const zy_msg *m)
{
    if (send(FD_SOCK, m, sizeof *m, MSG_NOSIGNAL) < 0)
        _exit(1);
}

/* Answers a request: EXEC_FAILED, or STARTED with the pid where the
 * caller needs one (no PID namespace). In namespaces a run that started
 * is answered by its EXITED alone: one message, one wake-up of the
 * caller, per run. */
static void spawn(size_t n, int nfds)
{
    zy_msg m = { .op = ZY_EXEC_FAILED };
    run_nfds = nfds;
    if ((nfds != 3 && nfds != 4) || parse_request(n) < 0) {
        m.err = EINVAL;
        strcpy(m.what, "malformed run request");
    } else {
        child_errno = 0;
        child_step = NULL;
        pid_t pid = start_child();
        if (pid < 0) {
            m.err = errno;
            strcpy(m.what, "clone");
        } else if (child_errno) {
            waitpid(pid, NULL, 0);
            m.err = child_errno;
            strncpy(m.what, (const char *)child_step, sizeof m.what - 1);
        } else {
            run_pid = pid;
            m.op = ZY_STARTED;
            m.pid = pid;
        }
    }
    for (int i = 0; i < nfds && i < 4; i++)
        close(run_fds[i]);
    if (m.op != ZY_STARTED || !zy_cfg->ns)
        reply(&m);
}

static bool reap(void);

static int killer_main(void *arg)
{
    (void)arg;
    if (drop_to_slot_uid() == 0)
        kill(-1, SIGKILL);
    _exit(0);
}

/* Kills every child of the zygote; as a subreaper it inherits every
 * orphan, so repeating until none is left reaches the whole tree. Returns
 * how many it killed. */
static int kill_children(void)
{
    static char buf[4096];
    int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    int killed = 0;
    long pid = 0;
    for (ssize_t i = 0; i < (n > 0 ? n : 0); i++) {
        if (buf[i] >= '0' && buf[i] <= '9') {
            pid = pid * 10 + (buf[i] - '0');
        } else if (pid) {
            kill((pid_t)pid, SIGKILL);
            killed++;
            pid = 0;
        }
    }
    return killed;
}

/* In namespaces: kill(-1) from PID 1 reaches every process of the box but
 * the zygote. Without: the run's session, the zygote's descendants
 * (daemons that left the session come back to it as orphans), then (as
 * root) every process of the slot's uid. kill(-1) as that uid reaches
 * nothing else: the uid is this slot's alone. */
static void kill_run(void)
{
    if (zy_cfg->ns) {
        kill(-1, SIGKILL);
        return;
    }
    if (run_pid > 0)
        kill(-run_pid, SIGKILL);
    /* /proc's pids are kill()'s only where /proc is our namespace's. */
    for (int i = 0; zy_cfg->host->procfs_ours && i < 1000 && kill_children() > 0; i++)
        reap();
    if (!zy_cfg->host->root)
        return;
    pid_t k = clone(killer_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
    if (k > 0)
        waitpid(k, NULL, 0);
}

/* Empties the SIGCHLD signalfd, several at a read: a short read says it
 * is empty. */
static void drain_signals(void)
{
    struct signalfd_siginfo si[8];
    while (read(sig_fd, si, sizeof si) == sizeof si)
        ;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Whether, once the zombies are reaped, the zygote has no child left. */
static bool reaped_all(void)
{
    pid_t p;
    while ((p = waitpid(-1, NULL, __WALL | WNOHANG)) > 0)
        ;
    return p < 0 && errno == ECHILD;
}

/* Kills and reaps until the zygote has no child: then, as PID 1, it is
 * alone in its namespace. -1 if some process outlives REAP_BOUND_MS.
 * Every process of the namespace descends from its PID 1 (an orphan goes
 * to it, or to a subreaper that descends from it; a process that is no
 * one's child cannot fork), so a zygote without a child is alone, and
 * the kill(-1), which walks every process of the machine, is skipped when
 * the run's main process was its last. childless: the reaping just before
 * found no child left. */
static int empty_namespace(bool childless)
{
    uint64_t end = mono_ms() + REAP_BOUND_MS;
    if (childless || reaped_all())
        return 0;
    for (;;) {
        kill(-1, SIGKILL);
        if (reaped_all())
            return 0;
        uint64_t now = mono_ms();
        if (now >= end)
            return -1;
        struct pollfd pf = { sig_fd, POLLIN, 0 };
        if (poll(&pf, 1, (int)(end - now)) > 0)
            drain_signals();
    }
}

/* Removes every System V object of the IPC namespace; no process is left
 * to be attached. -1 if one stays. */
static int empty_sysv(void)
{
    struct shm_info shm;
    struct seminfo sem;
    struct msginfo msg;
    int max = shmctl(0, SHM_INFO, (struct shmid_ds *)(void *)&shm);
    int smax = semctl(0, 0, SEM_INFO, (void *)&sem);
    int mmax = msgctl(0, MSG_INFO, (struct msqid_ds *)(void *)&msg);
    if (max >= 0 && smax >= 0 && mmax >= 0 && !shm.used_ids && !sem.semusz && !msg.msgpool)
        return 0; /* the usual run: none made */
    for (int i = 0; max >= 0 && shm.used_ids && i <= max; i++) {
        struct shmid_ds ds;
        int id = shmctl(i, SHM_STAT, &ds);
        if (id >= 0)
            shmctl(id, IPC_RMID, NULL);
    }
    for (int i = 0; smax >= 0 && sem.semusz && i <= smax; i++) {
        struct semid_ds ds;
        int id = semctl(i, 0, SEM_STAT, &ds);
        if (id >= 0)
            semctl(id, 0, IPC_RMID);
    }
    for (int i = 0; mmax >= 0 && msg.msgpool && i <= mmax; i++) {
        struct msqid_ds ds;
        int id = msgctl(i, MSG_STAT, &ds);
        if (id >= 0)
            msgctl(id, IPC_RMID, NULL);
    }
    if (shmctl(0, SHM_INFO, (struct shmid_ds *)(void *)&shm) < 0 || semctl(0, 0, SEM_INFO, (void *)&sem) < 0 ||
        msgctl(0, MSG_INFO, (struct msqid_ds *)(void *)&msg) < 0)
        return -1;
    return shm.used_ids || sem.semusz || msg.msgpool ? -1 : 0;
}

struct zy_dirent {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* Unlinks every POSIX message queue (the names are the program's: used as
 * they are, never shown). -1 if one stays. */
static int empty_mqueue(void)
{
    static char buf[4096];
    if (zy_mq_fd < 0)
        return 0;
    for (int pass = 0; pass < 64; pass++) {
        if (lseek(zy_mq_fd, 0, SEEK_SET) < 0)
            return -1;
        long n, seen = 0;
        while ((n = syscall(SYS_getdents64, zy_mq_fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                struct zy_dirent *d = (struct zy_dirent *)(void *)(buf + off);
                off += d->reclen;
                if (strcmp(d->name, ".") == 0 || strcmp(d->name, "..") == 0)
                    continue;
                seen++;
                unlinkat(zy_mq_fd, d->name, 0);
            }
        }
        if (n < 0)
            return -1;
        if (!seen)
            return 0;
    }
    return -1;
}

/* Parses the number after `key` in text; -1 when absent. */
static long field(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p)
        return -1;
    long v = 0;
    for (p += strlen(key); *p == ' '; p++)
        ;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (*p - '0');
    return v;
}

/* Whether the network namespace holds a socket (any family) or a TCP
 * connection in TIME_WAIT (it would refuse the next run a bind). The
 * zygote itself holds none there: its socket to the caller was made
 * outside. */
static int sockets_left(void)
{
    static char buf[1024];
    if (zy_sockstat_fd < 0)
        return 0;
    ssize_t n = pread(zy_sockstat_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 1;
    buf[n] = 0;
    long used = field(buf, "sockets: used"), tw = field(buf, " tw");
    return used != 0 || tw > 0;
}

/* With nobody but the zygote (PID 1) left in the namespace, the next pid
 * is 2 again, as in a new box: a run's pids say nothing of how many
 * processes earlier runs made. */
static int restart_pids(void)
{
    return zy_last_pid_fd < 0 || pwrite(zy_last_pid_fd, "1", 1, 0) == 1 ? 0 : -1;
}

/* The main process is gone: in namespaces the rest dies and the box is
 * checked before the exit is reported. childless: as empty_namespace. */
static void end_run(bool childless)
{
    exited = false;
    if (zy_cfg->ns) {
        if (empty_namespace(childless) < 0 || restart_pids() < 0)
            exit_msg.dirty |= ZY_DIRTY_PROCESSES;
        else if (empty_sysv() < 0 || empty_mqueue() < 0)
            exit_msg.dirty |= ZY_DIRTY_IPC;
        if (sockets_left())
            exit_msg.dirty |= ZY_DIRTY_SOCKETS;
    }
    reply(&exit_msg);
}

static void on_request(void)
{
    static char ctl[CMSG_SPACE(4 * sizeof(int))];
    struct iovec iov = { in.bytes, sizeof in.bytes };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    ssize_t n = recvmsg(FD_SOCK, &mh, MSG_CMSG_CLOEXEC);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
        _exit(0); /* the caller is gone: take the namespace down */
    if (n < 0)
        return;
    int nfds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            memcpy(run_fds, CMSG_DATA(c), (size_t)(nfds > 4 ? 4 : nfds) * sizeof(int));
        }
    if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
        nfds = -1;
    if ((size_t)n >= sizeof(uint32_t) && in.req.op == ZY_RUN)
        spawn((size_t)n, nfds);
    else if ((size_t)n >= sizeof(uint32_t) && in.req.op == ZY_KILL)
        kill_run();
    if (exited)
        end_run(false);
}

/* As PID 1 (or a subreaper) the zygote reaps every orphan; the run's main
 * process is reported to the caller, whoever reaps it. Returns whether no
 * child is left. */
static bool reap(void)
{
    for (;;) {
        int st;
        struct rusage ru;
        pid_t p = wait4(-1, &st, WNOHANG | __WALL, &ru);
        if (p <= 0)
            return p < 0 && errno == ECHILD;
        if (p != run_pid)
            continue;
        run_pid = 0;
        exit_msg = (zy_msg){
            .op = ZY_EXITED,
            .wstatus = st,
            .utime_us = (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec,
            .stime_us = (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec,
            .maxrss_kb = (uint64_t)ru.ru_maxrss,
        };
        exited = true;
    }
}

static void on_children(void)
{
    drain_signals();
    bool childless = reap();
    if (exited)
        end_run(childless);
}

void zy_serve(void)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sig_fd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sig_fd < 0)
        _exit(1);
    struct pollfd p[2] = { { FD_SOCK, POLLIN, 0 }, { sig_fd, POLLIN, 0 } };
    for (;;) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        if (p[1].revents)
            on_children();
        if (p[0].revents)
            on_request();
    }
}
