/* zygote_run.c -- each run in the box: the zygote's request loop, the
 * CLONE_VM|CLONE_VFORK child that becomes the program, the kill without a
 * cgroup, and the reaping of every process of the box.
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
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/zygote.h"

#define MAX_STRINGS 8192

static pid_t run_pid;

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
    if (run_nfds == 4 && !born_in_cgroup) {
        int procs = openat(run_fds[3], "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (procs < 0 || write(procs, "0", 1) != 1)
            child_fail("joining the run's cgroup");
        close(procs);
    }
    if (setsid() < 0)
        child_fail("setsid");
    int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom < 0 || write(oom, "1000", 4) != 4)
        child_fail("raising oom_score_adj");
    close(oom);
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
    if (r->cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(r->cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) < 0)
            child_fail("pinning to a CPU");
    }
    if (zy_cfg->host->root) {
        /* Per-uid, and the uid is this slot's alone: a backstop for pids. */
        set_limit(RLIMIT_NPROC, r->processes, "RLIMIT_NPROC");
        if (drop_to_slot_uid() < 0)
            child_fail("dropping to the slot's uid");
    }
    if (zy_cfg->host->seccomp && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &zy_no_clone3) < 0)
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
    if (run_nfds == 4 && !clone3_missing) {
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
    reply(&m);
}

static void reap(void);

static int killer_main(void *arg)
{
    (void)arg;
    if (drop_to_slot_uid() == 0)
        kill(-1, SIGKILL);
    _exit(0);
}

/* Kills every child of the zygote; as a subreaper (or PID 1) it inherits
 * every orphan, so repeating until none is left reaches the whole tree.
 * Returns how many it killed. */
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

/* Without a cgroup: the run's session, the zygote's descendants (daemons
 * that left the session come back to it as orphans), then (as root) every
 * process of the slot's uid. kill(-1) as that uid reaches nothing else: the
 * uid is this slot's alone. */
static void kill_run(void)
{
    if (run_pid > 0)
        kill(-run_pid, SIGKILL);
    for (int i = 0; i < 1000 && kill_children() > 0; i++)
        reap();
    if (!zy_cfg->host->root)
        return;
    pid_t k = clone(killer_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
    if (k > 0)
        waitpid(k, NULL, 0);
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
}

/* As PID 1 (or a subreaper) the zygote reaps every orphan; the run's main
 * process is reported to the caller, whoever reaps it. */
static void reap(void)
{
    for (;;) {
        int st;
        struct rusage ru;
        pid_t p = wait4(-1, &st, WNOHANG | __WALL, &ru);
        if (p <= 0)
            return;
        if (p != run_pid)
            continue;
        run_pid = 0;
        zy_msg m = {
            .op = ZY_EXITED,
            .wstatus = st,
            .utime_us = (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec,
            .stime_us = (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec,
            .maxrss_kb = (uint64_t)ru.ru_maxrss,
        };
        reply(&m);
    }
}

static void on_children(int sfd)
{
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == sizeof si)
        ;
    reap();
}

void zy_serve(void)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    int sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0)
        _exit(1);
    struct pollfd p[2] = { { FD_SOCK, POLLIN, 0 }, { sfd, POLLIN, 0 } };
    for (;;) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        if (p[1].revents)
            on_children(sfd);
        if (p[0].revents)
            on_request();
    }
}

