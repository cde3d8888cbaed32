/* policy.c -- the seccomp policy, as one table, compiled once to BPF.
 *
 * DESIGN. Default allow, with a deny-list of what lets a program reach
 * outside its box or the kernel's attack surface (isolate's approach, not an
 * allow-list: allow-lists rot as libc grows new syscalls, see rseq and
 * clone3). Denied calls fail with EPERM so that language runtimes that probe
 * them keep working; a few are answered 0 without running (a flush of the
 * host's disks, advice to drop its page cache, a lock other runs could
 * see), where success is what a program expects and nothing in a box needs
 * the effect. clone3 passes this filter (the zygote starts runs with
 * it) and fails with ENOSYS in each run's second one (clone_into.c): its
 * flags live in memory BPF cannot read, and glibc then falls back to clone,
 * whose flags we check.
 * Foreign ABIs (i386, x32) are killed outright: a filter written for x86_64
 * numbers means nothing for them. mknod stays allowed: FIFOs are legitimate,
 * and devices need CAP_MKNOD, which the slot's uid never has (and /box,
 * /tmp are nodev).
 *
 * The program is built here once per process (a libseccomp build costs far
 * more than a run's spawn) and installed by the zygote with the raw syscall.
 * It is a binary search over call numbers (SCMP_FLTATR_CTL_OPTIMIZE 2), not
 * a list: kernels since 5.11 skip it for a call it allows whatever the
 * arguments, but run it for the calls decided on an argument (fcntl,
 * socket, clone, each lock and fd flag change) and for every call on older
 * kernels.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | \
                  CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP | 0x80 /* NEWTIME */)

typedef struct rule {
    const char *name;
    int err;          /* errno returned */
    const char *why;
} rule;

static const rule deny[] = {
    /* Inspecting or steering other processes. */
    { "ptrace",            EPERM,  "tracing escapes every other check" },
    { "process_vm_readv",  EPERM,  "reads another process's memory" },
    { "process_vm_writev", EPERM,  "writes another process's memory" },
    { "kcmp",              EPERM,  "probes other processes' kernel objects" },
    { "pidfd_getfd",       EPERM,  "steals another process's fds" },
    /* Changing the filesystem view or namespaces. */
    { "mount",             EPERM,  "filesystem view is fixed" },
    { "umount2",           EPERM,  "filesystem view is fixed" },
    { "pivot_root",        EPERM,  "filesystem view is fixed" },
    { "chroot",            EPERM,  "filesystem view is fixed" },
    { "unshare",           EPERM,  "no new namespaces" },
    { "setns",             EPERM,  "no joining namespaces" },
    { "fsopen",            EPERM,  "new mount API" },
    { "fsconfig",          EPERM,  "new mount API" },
    { "fsmount",           EPERM,  "new mount API" },
    { "fspick",            EPERM,  "new mount API" },
    { "move_mount",        EPERM,  "new mount API" },
    { "open_tree",         EPERM,  "new mount API" },
    { "mount_setattr",     EPERM,  "new mount API" },
    { "open_by_handle_at", EPERM,  "opens files by inode, past mounts (shocker)" },
    { "name_to_handle_at", EPERM,  "companion of open_by_handle_at" },
    /* The kernel itself. */
    { "kexec_load",        EPERM,  "replaces the kernel" },
    { "kexec_file_load",   EPERM,  "replaces the kernel" },
    { "init_module",       EPERM,  "loads kernel code" },
    { "finit_module",      EPERM,  "loads kernel code" },
    { "delete_module",     EPERM,  "unloads kernel code" },
    { "bpf",               EPERM,  "kernel attack surface" },
    { "perf_event_open",   EPERM,  "kernel attack surface, side channels" },
    { "userfaultfd",       EPERM,  "widens kernel race windows" },
    { "io_uring_setup",    EPERM,  "bypasses this filter, attack surface" },
    { "io_uring_enter",    EPERM,  "bypasses this filter, attack surface" },
    { "io_uring_register", EPERM,  "bypasses this filter, attack surface" },
    { "keyctl",            EPERM,  "kernel keyrings are not namespaced" },
    { "add_key",           EPERM,  "kernel keyrings are not namespaced" },
    { "request_key",       EPERM,  "kernel keyrings are not namespaced" },
    { "lookup_dcookie",    EPERM,  "kernel profiling interface" },
    { "syslog",            EPERM,  "kernel log" },
    { "iopl",              EPERM,  "raw I/O ports" },
    { "ioperm",            EPERM,  "raw I/O ports" },
    { "modify_ldt",        EPERM,  "segment descriptors: kernel attack surface" },
    /* Memory placement across NUMA nodes is the machine's, not a run's. */
    { "set_mempolicy",     EPERM,  "NUMA placement" },
    { "set_mempolicy_home_node", EPERM, "NUMA placement" },
    { "mbind",             EPERM,  "NUMA placement" },
    { "migrate_pages",     EPERM,  "NUMA placement" },
    { "move_pages",        EPERM,  "NUMA placement" },
    /* Machine-wide state. */
    { "reboot",            EPERM,  "machine state" },
    { "swapon",            EPERM,  "machine state" },
    { "swapoff",           EPERM,  "machine state" },
    { "acct",              EPERM,  "machine state" },
    { "quotactl",          EPERM,  "machine state" },
    { "quotactl_fd",       EPERM,  "machine state" },
    { "settimeofday",      EPERM,  "machine clock" },
    { "clock_settime",     EPERM,  "machine clock" },
    { "clock_adjtime",     EPERM,  "machine clock" },
    { "adjtimex",          EPERM,  "machine clock" },
    { "sethostname",       EPERM,  "host identity" },
    { "setdomainname",     EPERM,  "host identity" },
    { "fanotify_init",     EPERM,  "watches the whole filesystem" },
    { "vhangup",           EPERM,  "terminal state" },
    /* Watches on the read-only system files every box shares would show
     * which programs other runs start, and signal between runs. ENOSYS, as
     * on a kernel built without inotify: libraries that support one fall
     * back to polling (glib, tail -f), and a judged program has nothing
     * to watch but its own files. */
    { "inotify_init",      ENOSYS, "watches on shared files show other runs' activity" },
    { "inotify_init1",     ENOSYS, "watches on shared files show other runs' activity" },
    /* Flushing makes the host write every dirty page of its disks (sync,
     * syncfs), or of a shared file, with a disk cache flush each time
     * (fsync, fdatasync, sync_file_range on a read-only system file): one
     * run would stall every other and the host. Answered 0 without
     * running: a box's writable filesystems are tmpfs, where a flush does
     * nothing, and nothing of a run has to survive a crash. (msync needs
     * no rule: a mapping of a file opened read-only is never shared for
     * writing, and msync flushes only those.) */
    { "sync",              0,      "flushes the host's disks" },
    { "syncfs",            0,      "flushes a host filesystem" },
    { "fsync",             0,      "flushes a shared file, with a disk cache flush" },
    { "fdatasync",         0,      "flushes a shared file, with a disk cache flush" },
    { "sync_file_range",   0,      "writes back a shared file's pages" },
    /* A lock on a read-only system file is seen by every run (flock
     * LOCK_EX|LOCK_NB fails, F_GETLK reports the holder): a channel
     * between concurrent runs. Taking a lock is answered 0 without
     * locking: tools that lock their own files (a JVM's perf data, Go's
     * build cache) work on, as the one user of a box; a run's own
     * processes cannot exclude each other with these locks, which judged
     * programs do not do. F_GETLK stays real and, with no run holding
     * any lock, reports none. */
    { "flock",             0,      "locks on shared files signal between runs" },
};

/* Calls denied for one value of one argument (compared on its low 32
 * bits: the kernel reads each of these as an int). */
typedef struct arg_rule {
    const char *name;
    unsigned arg;
    uint32_t mask;    /* the bits compared; 0: all 32 */
    uint32_t value;
    int err;
    const char *why;
} arg_rule;

static const arg_rule deny_arg[] = {
    { "fcntl",   1, 0, F_SETLEASE,   EPERM, "leases signal through inodes other runs share" },
    { "fcntl",   1, 0, F_NOTIFY,     EPERM, "directory notifications signal through shared inodes" },
    /* Byte-range locks: as flock above, taking one is answered 0. */
    { "fcntl",   1, 0, F_SETLK,      0,     "locks on shared files signal between runs" },
    { "fcntl",   1, 0, F_SETLKW,     0,     "locks on shared files signal between runs" },
    { "fcntl",   1, 0, F_OFD_SETLK,  0,     "locks on shared files signal between runs" },
    { "fcntl",   1, 0, F_OFD_SETLKW, 0,     "locks on shared files signal between runs" },
    /* Dropping clean pages of the shared system files from the host's page
     * cache slows every other run (and the host) and resets a cache a
     * channel could be read from. Advice, so answered 0. */
    { "fadvise64", 3, 0, POSIX_FADV_DONTNEED, 0, "evicts shared files from the host's page cache" },
};

/* Socket families a box may open: unix, IPv4 and IPv6 (its own loopback),
 * netlink (getaddrinfo and getifaddrs ask it about the box's interfaces).
 * Every other one fails with EAFNOSUPPORT, as where the kernel lacks it:
 * vsock is not confined by the network namespace (it reaches the
 * hypervisor), AF_ALG opens the kernel crypto API, and the rest are kernel
 * attack surface (a rare family's module is loaded on its first use) no
 * judged program needs. A rule compares an argument once, so the refused
 * values are spelled as masked ranges around AF_UNIX 1, AF_INET 2,
 * AF_INET6 10 and AF_NETLINK 16: 0, 3, 4-7, 8-9, 11, 12-15, then 17 and
 * everything above (a value with a high bit set included: the kernel
 * reads the family as an int). socketpair is for unix sockets only. */
typedef struct family_range {
    uint64_t mask, value; /* refused: (family & mask) == value */
} family_range;

static const family_range socket_refused[] = {
    { ~0ull, 0 }, { ~0ull, 3 }, { ~3ull, 4 }, { ~1ull, 8 }, { ~0ull, 11 }, { ~3ull, 12 },
};
static const family_range socketpair_refused[] = { { ~0ull, 0 } };
#define FAMILY_ABOVE_NETLINK 17 /* AF_PACKET: this and every value above is refused */
#define FAMILY_ABOVE_UNIX 2

static int refuse_families(scmp_filter_ctx ctx, const char *call, const family_range *r, size_t n, uint64_t from,
                           char *err, size_t errlen)
{
    int nr = seccomp_syscall_resolve_name(call), rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), nr, 1,
                              SCMP_A0_64(SCMP_CMP_MASKED_EQ, r[i].mask, r[i].value));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), nr, 1, SCMP_A0_64(SCMP_CMP_GE, from));
    return rc < 0 ? sbx_fail(err, errlen, "seccomp rule %s: %s", call, strerror(-rc)) : 0;
}

static int add_arg_rules(scmp_filter_ctx ctx, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof deny_arg / sizeof deny_arg[0]; i++) {
        const arg_rule *a = &deny_arg[i];
        int nr = seccomp_syscall_resolve_name(a->name);
        if (nr == __NR_SCMP_ERROR)
            continue;
        struct scmp_arg_cmp c = { a->arg, SCMP_CMP_MASKED_EQ, a->mask ? a->mask : 0xffffffffu, a->value };
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(a->err), nr, 1, c);
        if (rc < 0)
            return sbx_fail(err, errlen, "seccomp rule %s: %s", a->name, strerror(-rc));
    }
    if (refuse_families(ctx, "socket", socket_refused, sizeof socket_refused / sizeof socket_refused[0],
                        FAMILY_ABOVE_NETLINK, err, errlen) < 0 ||
        refuse_families(ctx, "socketpair", socketpair_refused, 1, FAMILY_ABOVE_UNIX, err, errlen) < 0)
        return -1;
    /* personality: only the default (0) and the query (0xffffffff); a
     * persona changes the address-space layout and the syscall ABI. A rule
     * compares an argument once, so "neither all zeros nor all ones" is
     * spelled as 32 rules: some bit i is set and bit i+1 (mod 32) is clear,
     * which holds for every other value, going round its bits. */
    for (unsigned i = 0; i < 32; i++) {
        uint32_t set = 1u << i, clear = 1u << ((i + 1) % 32);
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
                                  SCMP_A0_32(SCMP_CMP_MASKED_EQ, set | clear, set));
        if (rc < 0)
            return sbx_fail(err, errlen, "seccomp rule personality: %s", strerror(-rc));
    }
    return 0;
}

static int add_rules(scmp_filter_ctx ctx, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof deny / sizeof deny[0]; i++) {
        int nr = seccomp_syscall_resolve_name(deny[i].name);
        if (nr == __NR_SCMP_ERROR)
            continue; /* not a syscall of this architecture */
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(deny[i].err), nr, 0);
        if (rc < 0)
            return sbx_fail(err, errlen, "seccomp rule %s: %s", deny[i].name, strerror(-rc));
    }
    /* clone with any namespace flag (its first argument): one rule a flag,
     * since a masked compare matches all bits of the mask at once. */
    for (unsigned bit = 0; bit < 32; bit++) {
        unsigned long f = 1ul << bit;
        if (!(NS_FLAGS & f))
            continue;
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
        if (rc < 0)
            return sbx_fail(err, errlen, "seccomp rule clone: %s", strerror(-rc));
    }
    return add_arg_rules(ctx, err, errlen);
}

/* libseccomp 2.5 exports only to an fd: go through a memfd. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_fprog *prog, char *err, size_t errlen)
{
    int fd = memfd_create("gradeq-bpf", MFD_CLOEXEC);
    if (fd < 0)
        return sbx_fail_errno(err, errlen, "memfd_create for seccomp");
    int rc = seccomp_export_bpf(ctx, fd);
    if (rc < 0) {
        close(fd);
        return sbx_fail(err, errlen, "seccomp_export_bpf: %s", strerror(-rc));
    }
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 || size > 65536) {
        close(fd);
        return sbx_fail(err, errlen, "seccomp_export_bpf: odd program size %lld", (long long)size);
    }
    struct sock_filter *f = malloc((size_t)size);
    if (!f) {
        close(fd);
        return sbx_fail(err, errlen, "seccomp program: out of memory");
    }
    ssize_t n = pread(fd, f, (size_t)size, 0);
    close(fd);
    if (n != size) {
        free(f);
        return sbx_fail(err, errlen, "reading the seccomp program back failed");
    }
    prog->filter = f;
    prog->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
    return 0;
}

int pol_build(struct sock_fprog *prog, char *err, size_t errlen)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return sbx_fail(err, errlen, "seccomp_init failed");
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc == 0)
        rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    /* The zygote sets NO_NEW_PRIVS itself, before installing. */
    if (rc == 0)
        rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
    if (rc < 0) {
        seccomp_release(ctx);
        return sbx_fail(err, errlen, "seccomp attributes: %s", strerror(-rc));
    }
    rc = add_rules(ctx, err, errlen);
    if (rc == 0)
        rc = export_bpf(ctx, prog, err, errlen);
    seccomp_release(ctx);
    return rc;
}
