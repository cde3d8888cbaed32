/* syscalls: tries system calls a graded program never needs and a sandbox
 * escape often does, each in its own child process (so one that succeeds
 * cannot change the next, and a seccomp kill ends only that child). Prints
 * one line per call, in this order:
 *   NAME ok              the call succeeded: the sandbox failed
 *   NAME errno=ENAME     the call failed with that errno
 *   NAME signal=SIGNAME  the child died of that signal (seccomp kill: SIGSYS)
 * NAMEs: ptrace_traceme unshare_newuser mount chroot bpf perf_event_open
 * keyctl io_uring_setup userfaultfd setns clone_newnet kexec_load init_module
 * open_by_handle_at process_vm_readv vsock modify_ldt set_mempolicy mbind
 * migrate_pages move_pages personality f_setlease f_notify inotify af_alg
 * (26 lines), then exits 0.
 * Every call is made harmless should it succeed (e.g. as root outside a
 * sandbox): mount first tries a private mount namespace, kexec_load asks for
 * more segments than the kernel accepts (root gets EINVAL, never an unload),
 * init_module passes an empty image.
 * Sandbox must report: OK, 26 lines, none of them ending in " ok". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/vm_sockets.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

static long do_ptrace(void) { return ptrace(PTRACE_TRACEME, 0, NULL, NULL); }
static long do_unshare(void) { return unshare(CLONE_NEWUSER); }
static long do_chroot(void) { return chroot("/"); }

static long do_mount(void)
{
    /* If we may make a private mount namespace (root outside a sandbox),
     * mount there, so nothing reaches the host. */
    if (unshare(CLONE_NEWNS) == 0 &&
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return -1;
    return mount("gradeq", "/tmp", "tmpfs", 0, "size=64k");
}

static long do_bpf(void)
{
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_ARRAY;
    a.key_size = 4;
    a.value_size = 4;
    a.max_entries = 1;
    return syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof a);
}

static long do_perf(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static long do_keyctl(void)
{
    return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0);
}

static long do_io_uring(void)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    return syscall(SYS_io_uring_setup, 1, &p);
}

static long do_userfaultfd(void)
{
    return syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
}

static long do_setns(void)
{
    int fd = open("/proc/1/ns/net", O_RDONLY);
    if (fd < 0)
        fd = open("/proc/self/ns/net", O_RDONLY);
    if (fd < 0)
        return -1;
    return setns(fd, CLONE_NEWNET);
}

static long do_clone(void)
{
    long r = syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, NULL, NULL, NULL, NULL);
    if (r == 0)
        _exit(0);
    if (r > 0)
        waitpid((pid_t)r, NULL, 0);
    return r;
}

static long do_kexec(void)
{
    /* 1000 segments > KEXEC_SEGMENT_MAX: checked after the privilege. */
    return syscall(SYS_kexec_load, 0UL, 1000UL, NULL, 0UL);
}

static long do_init_module(void)
{
    return syscall(SYS_init_module, NULL, 0UL, "");
}

static long do_open_by_handle(void)
{
    struct {
        struct file_handle fh;
        unsigned char bytes[MAX_HANDLE_SZ];
    } h;
    int mnt;
    memset(&h, 0, sizeof h);
    h.fh.handle_bytes = MAX_HANDLE_SZ;
    if (name_to_handle_at(AT_FDCWD, ".", &h.fh, &mnt, 0) < 0) {
        memset(&h, 0, sizeof h); /* a made-up handle: the check comes first */
        h.fh.handle_bytes = 8;
        h.fh.handle_type = 1;
    }
    int mfd = open(".", O_RDONLY | O_DIRECTORY);
    return open_by_handle_at(mfd, &h.fh, O_RDONLY);
}

static long do_process_vm_readv(void)
{
    static char src[16] = "gradeq", dst[16];
    struct iovec l = {dst, sizeof dst}, r = {src, sizeof src};
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0);
}

/* Each of these is harmless if it succeeds: a vsock socket closed at
 * exit, an LDT entry nobody uses, the default memory policy, pages moved
 * to node 0 where they already are, a persona in a child about to exit, a
 * lease and a notification on a file and directory of the run's own. */
static long do_vsock(void) { return socket(AF_VSOCK, SOCK_STREAM, 0); }
static long do_modify_ldt(void)
{
    static char ldt[16];
    return syscall(SYS_modify_ldt, 0, ldt, sizeof ldt);
}
static long do_set_mempolicy(void) { return syscall(SYS_set_mempolicy, 0 /* MPOL_DEFAULT */, NULL, 0); }
static long do_mbind(void)
{
    static char page[8192] __attribute__((aligned(4096)));
    return syscall(SYS_mbind, page, 4096, 0 /* MPOL_DEFAULT */, NULL, 0, 0);
}
static long do_migrate_pages(void)
{
    unsigned long node0 = 1;
    return syscall(SYS_migrate_pages, 0, 8 * sizeof node0, &node0, &node0);
}
static long do_move_pages(void)
{
    static char page[4096] __attribute__((aligned(4096)));
    void *pages[1] = { page };
    int status[1];
    page[0] = 1;
    return syscall(SYS_move_pages, 0, 1, pages, NULL, status, 0);
}
static long do_personality(void) { return personality(PER_LINUX | ADDR_NO_RANDOMIZE); }
static long do_setlease(void)
{
    int fd = open("/tmp/lease", O_RDONLY | O_CREAT, 0644);
    return fd < 0 ? -1 : fcntl(fd, F_SETLEASE, F_RDLCK);
}
static long do_notify(void)
{
    int fd = open("/tmp", O_RDONLY | O_DIRECTORY);
    return fd < 0 ? -1 : fcntl(fd, F_NOTIFY, DN_CREATE);
}
/* An inotify instance (a watch on shared files would follow other runs) and
 * the kernel crypto API: harmless here, closed at exit. */
static long do_inotify(void) { return inotify_init1(IN_CLOEXEC); }
static long do_af_alg(void) { return socket(AF_ALG, SOCK_SEQPACKET, 0); }

static const struct {
    const char *name;
    long (*fn)(void);
} calls[] = {
    {"ptrace_traceme", do_ptrace},
    {"unshare_newuser", do_unshare},
    {"mount", do_mount},
    {"chroot", do_chroot},
    {"bpf", do_bpf},
    {"perf_event_open", do_perf},
    {"keyctl", do_keyctl},
    {"io_uring_setup", do_io_uring},
    {"userfaultfd", do_userfaultfd},
    {"setns", do_setns},
    {"clone_newnet", do_clone},
    {"kexec_load", do_kexec},
    {"init_module", do_init_module},
    {"open_by_handle_at", do_open_by_handle},
    {"process_vm_readv", do_process_vm_readv},
    {"vsock", do_vsock},
    {"modify_ldt", do_modify_ldt},
    {"set_mempolicy", do_set_mempolicy},
    {"mbind", do_mbind},
    {"migrate_pages", do_migrate_pages},
    {"move_pages", do_move_pages},
    {"personality", do_personality},
    {"f_setlease", do_setlease},
    {"f_notify", do_notify},
    {"inotify", do_inotify},
    {"af_alg", do_af_alg},
};

static void print_errno(const char *name, int e)
{
    const char *n = e > 0 ? strerrorname_np(e) : NULL;
    if (n)
        printf("%s errno=%s\n", name, n);
    else
        printf("%s errno=%d\n", name, e);
}

int main(void)
{
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            alarm(5); /* nothing here should block; never hang the run */
            errno = 0;
            long r = calls[i].fn();
            _exit(r >= 0 ? 0 : errno > 0 && errno < 255 ? errno : 255);
        }
        if (p < 0) { /* no fork: try it here, side effects and all */
            errno = 0;
            long r = calls[i].fn();
            if (r >= 0)
                printf("%s ok\n", calls[i].name);
            else
                print_errno(calls[i].name, errno);
            continue;
        }
        int st;
        while (waitpid(p, &st, 0) == p && WIFSTOPPED(st))
            kill(p, SIGKILL); /* a traced child stopped: end it */
        if (WIFSIGNALED(st)) {
            const char *s = sigabbrev_np(WTERMSIG(st));
            printf("%s signal=SIG%s\n", calls[i].name, s ? s : "?");
        } else if (WEXITSTATUS(st) == 0) {
            printf("%s ok\n", calls[i].name);
        } else {
            print_errno(calls[i].name, WEXITSTATUS(st));
        }
    }
    return 0;
}
