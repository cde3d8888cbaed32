/* zygote.c -- the privileged side of a slot: build the box once, then spawn
 * each run inside it.
 *
 * DESIGN. The zygote is cloned by box.c into fresh PID, mount, network, IPC
 * and UTS namespaces; it is PID 1 there. It builds the private root once
 * (the setup_*() list in zy_main), loads the seccomp filter into itself so
 * that every run inherits it for free, and then serves requests from its
 * socket: RUN spawns one program, KILL kills the current run's processes
 * when there is no cgroup to do it. Per run, the only privileged work left
 * is a CLONE_VM|CLONE_VFORK child (born in the slot's cgroup) that drops to the
 * slot's uid, sets rlimits and execs: the namespace, mount, cgroup and
 * filter costs are paid once per slot, not per run.
 *
 * INVARIANTS.
 * - The zygote was cloned from a possibly multithreaded process whose malloc
 *   locks may be held: it never calls malloc or stdio. Buffers are static.
 *   Nor any libc call that coordinates threads (set*id): raw syscalls.
 * - It never trusts the program: it reads only its own socket, whose peer is
 *   the caller. Requests are bounded (ZY_STRINGS_MAX) and checked.
 * - When the caller goes away (socket EOF), the zygote exits, and as PID 1
 *   it takes every process of its namespace with it: nothing outlives a
 *   killed worker.
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

#include "sandbox/internal.h"

#define ROOT "/tmp" /* where the new root is assembled before pivot_root */
#define FD_SOCK 3
#define FD_PROCS 4  /* 4, 5, 6: the slot's cgroup.procs */
#define MAX_STRINGS 8192

static const zy_config *cfg;
static int box_fd = -1, tmp_fd = -1;
static pid_t run_pid;

/* Reported to the caller when a setup step fails. */
static int fail_step(const char *what)
{
    zy_msg m = { .op = ZY_READY, .err = errno ? errno : EINVAL };
    strncpy(m.what, what, sizeof m.what - 1);
    send(FD_SOCK, &m, sizeof m, MSG_NOSIGNAL);
    _exit(1);
}

/* ---- set-up, once per slot ------------------------------------------- */

/* Only the socket and the cgroup fds survive, at fixed numbers; 0-2 are
 * /dev/null so that fds received later are never 0-2. */
static void setup_fds(void)
{
    int keep[4] = { cfg->sock, cfg->procs_fd[0], cfg->procs_fd[1], cfg->procs_fd[2] };
    for (int i = 0; i < 4; i++)
        if (keep[i] >= 0 && (keep[i] = fcntl(keep[i], F_DUPFD_CLOEXEC, 100)) < 0)
            fail_step("moving fds");
    for (int i = 0; i < 4; i++)
        if (keep[i] >= 0 && dup3(keep[i], FD_SOCK + i, O_CLOEXEC) < 0)
            fail_step("moving fds");
    if (syscall(SYS_close_range, FD_SOCK + 4, ~0U, 0) < 0)
        fail_step("close_range");
    for (int i = 0; i < 4; i++)
        if (keep[i] < 0)
            close(FD_SOCK + i);
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        fail_step("opening /dev/null");
    if (null > 2)
        close(null);
}

/* The zygote joins the slot's cgroup once, so that every run is born in it:
 * moving a process between v1 cgroups takes the kernel's cgroup_mutex and
 * can wait for an RCU grace period (12 ms seen here), once per run
 * otherwise. The zygote itself must never be the OOM killer's choice: each
 * run raises its own oom_score_adj to +1000 (always allowed), which puts it
 * first, and the zygote lowers its own where it may. */
static void setup_cgroup(void)
{
    for (int i = 0; i < 3; i++) {
        if (cfg->procs_fd[i] < 0)
            continue;
        if (write(FD_PROCS + i, "0", 1) != 1)
            fail_step("joining the slot's cgroup");
        close(FD_PROCS + i);
    }
    /* Lowering needs CAP_SYS_RESOURCE, which many containers (and this
     * project's VMs) lack: then only the run's +1000 protects the zygote. */
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || (write(fd, "-1000", 5) != 5 && errno != EACCES))
        fail_step("oom_score_adj");
    close(fd);
}

static void setup_signals(void)
{
    sigset_t all;
    sigfillset(&all);
    for (int s = 1; s < NSIG; s++)
        signal(s, SIG_DFL);
    if (sigprocmask(SIG_SETMASK, &all, NULL) < 0)
        fail_step("sigprocmask");
}

static void bind_ro(const char *src, const char *dst)
{
    struct stat st;
    if (lstat(src, &st) < 0)
        return; /* "those that exist" */
    if (S_ISLNK(st.st_mode)) {
        static char target[4096];
        ssize_t n = readlink(src, target, sizeof target - 1);
        if (n < 0)
            fail_step("readlink system dir");
        target[n] = 0;
        if (symlink(target, dst) < 0)
            fail_step("symlink system dir");
        return;
    }
    if (mkdir(dst, 0755) < 0 ||
        mount(src, dst, NULL, MS_BIND | MS_REC, NULL) < 0 ||
        mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
        fail_step("read-only bind of a system dir");
}

static void make_dev(void)
{
    static const struct { const char *name; unsigned minor; } nodes[] = {
        { ROOT "/dev/null", 3 }, { ROOT "/dev/zero", 5 }, { ROOT "/dev/full", 7 },
        { ROOT "/dev/random", 8 }, { ROOT "/dev/urandom", 9 },
    };
    static const char *const links[][2] = {
        { "/proc/self/fd", ROOT "/dev/fd" }, { "/proc/self/fd/0", ROOT "/dev/stdin" },
        { "/proc/self/fd/1", ROOT "/dev/stdout" }, { "/proc/self/fd/2", ROOT "/dev/stderr" },
        { "/tmp", ROOT "/dev/shm" },
    };
    if (mkdir(ROOT "/dev", 0755) < 0 ||
        mount("dev", ROOT "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=32,mode=755") < 0)
        fail_step("mounting /dev");
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
        if (mknod(nodes[i].name, S_IFCHR | 0666, makedev(1, nodes[i].minor)) < 0)
            fail_step("mknod in /dev");
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        if (symlink(links[i][0], links[i][1]) < 0)
            fail_step("symlink in /dev");
    if (mount(NULL, ROOT "/dev", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
        fail_step("read-only /dev");
}

static void setup_mounts(void)
{
    static const char *const sys_dirs[] = { "usr", "bin", "sbin", "lib", "lib64", "lib32", "libx32", "etc" };
    static char src[64], dst[64];
    umask(0); /* modes below are meant exactly; runs get 022 back */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        fail_step("making mounts private");
    if (mount("gradeq", ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=64,mode=755") < 0)
        fail_step("mounting the root tmpfs");
    for (size_t i = 0; i < sizeof sys_dirs / sizeof sys_dirs[0]; i++) {
        strcpy(src, "/");
        strcat(src, sys_dirs[i]);
        strcpy(dst, ROOT "/");
        strcat(dst, sys_dirs[i]);
        bind_ro(src, dst);
    }
    if (mkdir(ROOT "/proc", 0555) < 0)
        fail_step("mkdir /proc");
    /* hidepid: the program must not read the zygote's cmdline or environ,
     * which are the worker's (a Redis password among them). */
    if (mount("proc", ROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible") < 0 &&
        mount("proc", ROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") < 0)
        fail_step("mounting /proc");
    make_dev();
    if (mkdir(ROOT "/box", 0755) < 0 ||
        mount("box", ROOT "/box", "tmpfs", MS_NOSUID | MS_NODEV, cfg->box_opts) < 0)
        fail_step("mounting /box");
    if (mkdir(ROOT "/tmp", 01777) < 0 ||
        mount("tmp", ROOT "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, cfg->tmp_opts) < 0)
        fail_step("mounting /tmp");
    if (chdir(ROOT) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
        chdir("/") < 0)
        fail_step("pivot_root");
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
        fail_step("read-only root");
    box_fd = open("/box", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    tmp_fd = open("/tmp", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    if (box_fd < 0 || tmp_fd < 0)
        fail_step("opening /box and /tmp");
}

static void setup_host_dir(void)
{
    /* Orphans of the run come back to the zygote, to be killed at its end. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
        fail_step("PR_SET_CHILD_SUBREAPER");
    box_fd = open(cfg->box_dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    if (box_fd < 0)
        fail_step("opening the box directory");
}

static void setup_hostname(void)
{
    if (sethostname("gradeq", 6) < 0)
        fail_step("sethostname");
}

/* The network namespace starts with loopback down; the program gets a
 * working 127.0.0.1 of its own and nothing else. */
static void setup_loopback(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
        fail_step("reading loopback flags");
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
        fail_step("bringing loopback up");
    close(s);
}

/* The zygote keeps its own capabilities (it still has to setuid), but no
 * process it starts can ever gain one: empty bounding and ambient sets, no
 * new privileges through exec, then the filter. */
static void setup_privileges(void)
{
    if (cfg->host->root) {
        for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
                fail_step("dropping the capability bounding set");
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
            fail_step("clearing ambient capabilities");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        fail_step("PR_SET_NO_NEW_PRIVS");
    if (cfg->host->seccomp &&
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &cfg->host->bpf) < 0)
        fail_step("loading the seccomp filter");
}

static void announce_ready(void)
{
    zy_msg m = { .op = ZY_READY };
    int fds[2] = { box_fd, tmp_fd >= 0 ? tmp_fd : box_fd };
    char ctl[CMSG_SPACE(sizeof fds)];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = { &m, sizeof m };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    if (sendmsg(FD_SOCK, &mh, MSG_NOSIGNAL) < 0)
        _exit(1);
}

/* ---- one run --------------------------------------------------------- */

static union {
    zy_run_req req;
    char bytes[sizeof(zy_run_req) + ZY_STRINGS_MAX];
} in;
static char *argv_[MAX_STRINGS + 1], *envp_[MAX_STRINGS + 1];
static int run_fds[3];
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
    uid_t u = cfg->uid;
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
    if (chdir(cfg->ns ? "/box" : cfg->box_dir) < 0)
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
    if (cfg->host->root) {
        /* Per-uid, and the uid is this slot's alone: a backstop for pids. */
        set_limit(RLIMIT_NPROC, r->processes, "RLIMIT_NPROC");
        if (drop_to_slot_uid() < 0)
            child_fail("dropping to the slot's uid");
    }
    if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
        child_fail("sigprocmask");
    exec_program();
    return 0;
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
    if (nfds != 3 || parse_request(n) < 0) {
        m.err = EINVAL;
        strcpy(m.what, "malformed run request");
    } else {
        child_errno = 0;
        child_step = NULL;
        pid_t pid = clone(child_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
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
    for (int i = 0; i < nfds && i < 3; i++)
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
    if (!cfg->host->root)
        return;
    pid_t k = clone(killer_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
    if (k > 0)
        waitpid(k, NULL, 0);
}

static void on_request(void)
{
    static char ctl[CMSG_SPACE(3 * sizeof(int))];
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
            memcpy(run_fds, CMSG_DATA(c), (size_t)(nfds > 3 ? 3 : nfds) * sizeof(int));
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

static void serve(void)
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

int zy_main(void *arg)
{
    cfg = arg;
    setup_fds();
    setup_cgroup();
    setup_signals();
    if (cfg->ns) {
        setup_mounts();
        setup_hostname();
        setup_loopback();
    } else {
        setup_host_dir();
    }
    setup_privileges();
    announce_ready();
    serve();
    return 0;
}
