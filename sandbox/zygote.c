/* zygote.c -- the privileged side of a slot: build the box once, then spawn
 * each run inside it.
 *
 * DESIGN. The zygote is cloned by box.c into fresh PID, mount, network, IPC
 * and UTS namespaces; it is PID 1 there. It builds the private root once
 * (the setup_*() list in zy_main), loads the seccomp filter into itself so
 * that every run inherits it for free, and then serves requests from its
 * socket (zygote_run.c): RUN spawns one program, KILL kills the current
 * run's processes (in namespaces always: kill(-1) from PID 1 needs no fd
 * and names no pid); when the main process ends it clears what the run
 * left and reports the exit. Per run, the only privileged work left
 * is a CLONE_VM|CLONE_VFORK child (born in the slot's cgroup) that drops to the
 * slot's uid, sets rlimits and its CPUs, and execs: the namespace, mount,
 * cgroup and filter costs are paid once per slot, not per run. (A process
 * that joined the box per run instead would load the filter per run, which
 * the kernel checks and compiles each time, and could not join the mount
 * namespace from a threaded caller.)
 *
 * INVARIANTS.
 * - The zygote was cloned from a possibly multithreaded process whose malloc
 *   locks may be held: it never calls malloc or stdio. Buffers are static.
 *   Nor any libc call that coordinates threads (set*id): raw syscalls.
 * - It never trusts the program: it reads only its own socket, whose peer is
 *   the caller, and counts the kernel makes (sockstat, IPC info); queue
 *   names the program chose are only passed back to unlinkat. Requests are
 *   bounded (ZY_STRINGS_MAX) and checked.
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

#include "sandbox/zygote.h"

#define ROOT "/tmp" /* where the new root is assembled before pivot_root */

const zy_config *zy_cfg;
int zy_mq_fd = -1, zy_sockstat_fd = -1, zy_last_pid_fd = -1;
cpu_set_t zy_run_cpus;
static int box_fd = -1, tmp_fd = -1;

/* Reported to the caller when a setup step fails. */
static int fail_step(const char *what)
{
    zy_msg m = { .op = ZY_READY, .err = errno ? errno : EINVAL };
    strncpy(m.what, what, sizeof m.what - 1);
    send(FD_SOCK, &m, sizeof m, MSG_NOSIGNAL);
    _exit(1);
}

/* ---- set-up, once per slot ------------------------------------------- */

/* The zygote holds a copy of the caller's memory (a Redis password among
 * it): as root, no core dump and no ptrace or /proc/PID/mem by anyone
 * without privilege (without root it shares its uid with the caller, who
 * is as exposed: it stays dumpable so that it may still write its own
 * /proc files). A name of its own in ps. */
static void setup_identity(void)
{
    if ((zy_cfg->host->root && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) ||
        prctl(PR_SET_NAME, "gradeq-zygote", 0, 0, 0) < 0)
        fail_step("prctl dumpable/name");
}

/* The CPUs its runs get: its own now, its caller's, before box.c first
 * moves it to its caller's CPU. */
static void setup_cpus(void)
{
    if (sched_getaffinity(0, sizeof zy_run_cpus, &zy_run_cpus) < 0)
        fail_step("reading its CPU affinity");
}

/* Only the socket and the cgroup fds survive, at fixed numbers; 0-2 are
 * /dev/null so that fds received later are never 0-2. */
static void setup_fds(void)
{
    int keep[5] = { zy_cfg->sock, zy_cfg->procs_fd[0], zy_cfg->procs_fd[1], zy_cfg->procs_fd[2],
                    zy_cfg->procs_fd[3] };
    for (int i = 0; i < 5; i++)
        if (keep[i] >= 0 && (keep[i] = fcntl(keep[i], F_DUPFD_CLOEXEC, 100)) < 0)
            fail_step("moving fds");
    for (int i = 0; i < 5; i++)
        if (keep[i] >= 0 && dup3(keep[i], FD_SOCK + i, O_CLOEXEC) < 0)
            fail_step("moving fds");
    if (syscall(SYS_close_range, FD_SOCK + 5, ~0U, 0) < 0)
        fail_step("close_range");
    for (int i = 0; i < 5; i++)
        if (keep[i] < 0)
            close(FD_SOCK + i);
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        fail_step("opening /dev/null");
    if (null > 2)
        close(null);
}

/* The zygote joins the slot's cgroups once (v1: pids, cpuacct and, as a
 * hierarchy of its own, cpu), so that every run is born in them:
 * moving a process between v1 cgroups takes the kernel's cgroup_mutex and
 * can wait for an RCU grace period, once per run
 * otherwise. The zygote itself must never be the OOM killer's choice. On
 * v1 it stays out of the slot's memory cgroup altogether (cgroup.c opens
 * no tasks file of it for the zygote): each run's child joins the runs'
 * memory cgroup alone (zy_join_memcg, a single thread moved, no RCU
 * wait). Each run also raises its own oom_score_adj to +1000 (always
 * allowed), which puts it first, and the zygote lowers its own where it
 * may. */
static void setup_cgroup(void)
{
    for (int i = 0; i < 4; i++) {
        if (zy_cfg->procs_fd[i] < 0)
            continue;
        if (write(FD_PROCS + i, "0", 1) != 1)
            fail_step("joining the slot's cgroup");
        close(FD_PROCS + i);
    }
    /* Lowering needs CAP_SYS_RESOURCE, which many containers (and this
     * project's VMs) lack: then only the run's +1000 protects the zygote,
     * and a program may lower its own back (the +1000 becomes a floor only
     * when written with that capability). If the OOM killer then takes the
     * zygote, run.c reports MEMORY_LIMIT and rebuilds the box. */
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

/* The host's read-only paths (sbx_host_options.ro_paths) at the same
 * place: the parents made in the root tmpfs, then the path bound (a file
 * onto an empty file, a directory onto a directory, a link copied). One
 * under a tree already bound is there already. */
static void bind_extra(const char *path, const char *const *sys_dirs, size_t nsys)
{
    static char dst[300];
    struct stat st;
    for (size_t i = 0; i < nsys; i++) {
        size_t n = strlen(sys_dirs[i]);
        if (path[0] == '/' && strncmp(path + 1, sys_dirs[i], n) == 0 && (path[n + 1] == 0 || path[n + 1] == '/'))
            return;
    }
    for (char *const *p = zy_cfg->host->ro_paths; *p != path; p++) {
        size_t n = strlen(*p);
        if (strncmp(path, *p, n) == 0 && path[n] == '/')
            return;
    }
    if (lstat(path, &st) < 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
        return;
    strcpy(dst, ROOT);
    strcat(dst, path);
    for (char *slash = strchr(dst + strlen(ROOT) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = 0;
        if (mkdir(dst, 0755) < 0 && errno != EEXIST)
            fail_step("making a read-only path's parents");
        *slash = '/';
    }
    if (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)) {
        bind_ro(path, dst);
        return;
    }
    int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        fail_step("making a read-only file's mount point");
    close(fd);
    if (mount(path, dst, NULL, MS_BIND, NULL) < 0 ||
        mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
        fail_step("read-only bind of a file");
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

/* The box's own /etc/passwd and /etc/group over the host's: the slot's
 * user and group, root and nobody; no host account is listed. Both are
 * written into a small tmpfs of their own, bound onto the files /etc has,
 * and that tmpfs is then detached (the binds keep it): no path in the box
 * leads to it, and no unlinked file keeps the root tmpfs from going
 * read-only. A host whose /etc lacks a file, or has a link there, keeps
 * what it has: there is nothing to mount onto. */
static void own_etc_files(void)
{
    static const char *const names[] = { "passwd", "group" };
    const char *texts[] = { zy_cfg->passwd, zy_cfg->group };
    static char src[64], dst[64];
    struct stat st;
    if (lstat(ROOT "/etc", &st) < 0 || !S_ISDIR(st.st_mode))
        return;
    if (mkdir(ROOT "/.etc", 0700) < 0 ||
        mount("etc", ROOT "/.etc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=8k,nr_inodes=8,mode=755") < 0)
        fail_step("mounting the box's /etc files");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        strcpy(dst, ROOT "/etc/");
        strcat(dst, names[i]);
        if (lstat(dst, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        strcpy(src, ROOT "/.etc/");
        strcat(src, names[i]);
        size_t len = strlen(texts[i]);
        int fd = open(src, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, texts[i], len) != (ssize_t)len || close(fd) < 0)
            fail_step("writing the box's /etc file");
        if (mount(src, dst, NULL, MS_BIND, NULL) < 0 ||
            mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
            fail_step("binding the box's /etc file");
    }
    if (umount2(ROOT "/.etc", MNT_DETACH) < 0 || rmdir(ROOT "/.etc") < 0)
        fail_step("detaching the box's /etc files");
}

/* A detached mount of the IPC namespace's POSIX queues: how the zygote
 * lists and removes what a run left, out of every program's sight. Made on
 * the old root, before the new one is assembled there. */
static void setup_mqueue(void)
{
    if (mount("mqueue", ROOT, "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
        if (errno == ENODEV)
            return; /* no POSIX queues in this kernel: none to clear */
        fail_step("mounting mqueue");
    }
    zy_mq_fd = open(ROOT, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    if (zy_mq_fd < 0 || umount2(ROOT, MNT_DETACH) < 0)
        fail_step("detaching mqueue");
}

static void setup_mounts(void)
{
    static const char *const sys_dirs[] = { "usr", "bin", "sbin", "lib", "lib64", "lib32", "libx32", "etc" };
    static char src[64], dst[64];
    umask(0); /* modes below are meant exactly; runs get 022 back */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        fail_step("making mounts private");
    setup_mqueue();
    /* Inodes: the directories, links and mount points below, a few for
     * each read-only path's parents. */
    if (mount("gradeq", ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=512,mode=755") < 0)
        fail_step("mounting the root tmpfs");
    for (size_t i = 0; i < sizeof sys_dirs / sizeof sys_dirs[0]; i++) {
        strcpy(src, "/");
        strcat(src, sys_dirs[i]);
        strcpy(dst, ROOT "/");
        strcat(dst, sys_dirs[i]);
        bind_ro(src, dst);
    }
    for (char *const *p = zy_cfg->host->ro_paths; p && *p; p++)
        bind_extra(*p, sys_dirs, sizeof sys_dirs / sizeof sys_dirs[0]);
    own_etc_files();
    if (mkdir(ROOT "/proc", 0555) < 0)
        fail_step("mkdir /proc");
    /* hidepid: the program must not read the zygote's cmdline or environ,
     * which are the worker's (a Redis password among them). */
    if (mount("proc", ROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible") < 0 &&
        mount("proc", ROOT "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2") < 0)
        fail_step("mounting /proc");
    make_dev();
    if (mkdir(ROOT "/box", 0755) < 0 ||
        mount("box", ROOT "/box", "tmpfs", MS_NOSUID | MS_NODEV, zy_cfg->box_opts) < 0)
        fail_step("mounting /box");
    if (mkdir(ROOT "/tmp", 01777) < 0 ||
        mount("tmp", ROOT "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, zy_cfg->tmp_opts) < 0)
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
    /* Per network namespace: what a run left there (see zygote_run.c). */
    zy_sockstat_fd = open("/proc/net/sockstat", O_RDONLY | O_CLOEXEC);
    if (zy_sockstat_fd < 0)
        fail_step("opening /proc/net/sockstat");
    /* The PID namespace's counter, which the zygote puts back after each
     * run (zygote_run.c). Writing it takes CAP_SYS_ADMIN (or
     * CAP_CHECKPOINT_RESTORE), which the zygote keeps; a kernel built
     * without checkpoint/restore has no such file, and there PIDs go on
     * from run to run (docs/operations.md says so). */
    zy_last_pid_fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (zy_last_pid_fd < 0 && errno != ENOENT)
        fail_step("opening /proc/sys/kernel/ns_last_pid");
    if (zy_last_pid_fd >= 0 && pwrite(zy_last_pid_fd, "1", 1, 0) != 1)
        fail_step("writing /proc/sys/kernel/ns_last_pid");
}

static void setup_host_dir(void)
{
    /* Orphans of the run come back to the zygote, to be killed at its end. */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
        fail_step("PR_SET_CHILD_SUBREAPER");
    box_fd = open(zy_cfg->box_dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
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
    if (zy_cfg->host->root) {
        /* Every capability the kernel knows: EINVAL past the last one. */
        int cap = 0;
        while (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
            cap++;
        if (errno != EINVAL || cap == 0)
            fail_step("dropping the capability bounding set");
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
            fail_step("clearing ambient capabilities");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        fail_step("PR_SET_NO_NEW_PRIVS");
    if (zy_cfg->host->seccomp &&
        (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &zy_cfg->host->bpf) < 0 ||
         (!zy_clone3_used() && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &zy_no_clone3) < 0)))
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

int zy_main(void *arg)
{
    zy_cfg = arg;
    setup_identity();
    setup_cpus();
    setup_fds();
    setup_cgroup();
    setup_signals();
    if (zy_cfg->ns) {
        setup_mounts();
        setup_hostname();
        setup_loopback();
    } else {
        setup_host_dir();
    }
    setup_privileges();
    announce_ready();
    zy_serve();
    return 0;
}
