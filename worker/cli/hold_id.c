/* hold_id.c -- what makes a `gradeq run` differ besides its argv: the
 * identity a holder compares with its own before it serves a command.
 *
 * Each field is there because the command's process passes it on to the
 * host it opens, its zygote or its run, or reads it:
 *   the binary      /proc/self/exe's device, inode, mtime and ctime: a
 *                   rebuilt or replaced gradeq is another program;
 *   namespaces      mount, PID, user, cgroup: another /run, another /proc,
 *                   another root, another cgroup tree;
 *   credentials     euid, egid and the capability sets: root or not, the
 *                   slots' uids, CAP_SYS_RESOURCE (oom_score_adj pinned);
 *   seccomp, no_new_privs, nice, umask, rlimits, CPU affinity: inherited
 *                   by the zygote and its runs (or read by the host:
 *                   affinity);
 *   GRADEQ_*        every variable the command or the sandbox reads;
 *   /proc/self/cgroup  the slots' cgroups are made below the process's own.
 * The peer's euid is also checked on the socket itself (hold_sock.c).
 *
 * No field is a pointer; the struct is zeroed before it is filled, so it
 * compares with memcmp, and travels as bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "worker/cli/hold.h"

extern char **environ;

long wk_hold_idle_ms(void)
{
    const char *v = getenv(WK_HOLD_ENV);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    long ms = strtol(v, &end, 10);
    return errno || end == v || *end || ms < 0 ? 0 : ms;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each GRADEQ_* variable, sorted (the order of environ is the caller's
 * accident), NUL-terminated one after the other. */
static int env_part(wk_hold_self *s, size_t *len)
{
    const char *mine[64];
    size_t n = 0;
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "GRADEQ_", 7) == 0) {
            if (n == sizeof mine / sizeof mine[0])
                return -1;
            mine[n++] = *e;
        }
    qsort(mine, n, sizeof mine[0], cmp_str);
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(mine[i]) + 1;
        if (*len + k > sizeof s->ctx)
            return -1;
        memcpy(s->ctx + *len, mine[i], k);
        *len += k;
    }
    return 0;
}

static int cgroup_part(wk_hold_self *s, size_t *len)
{
    int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    for (;;) {
        ssize_t k = read(fd, s->ctx + *len, sizeof s->ctx - *len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0 || *len + (size_t)k == sizeof s->ctx) {
            close(fd);
            return k == 0 ? 0 : -1; /* an error, or too long to be sure of */
        }
        *len += (size_t)k;
    }
}

int wk_hold_self_get(wk_hold_self *s, char *err, size_t errlen)
{
    memset(&s->id, 0, sizeof s->id);
    wk_hold_id *id = &s->id;
    struct stat st;
    if (stat("/proc/self/exe", &st) < 0)
        return snprintf(err, errlen, "stat /proc/self/exe: %s", strerror(errno)), -1;
    id->exe_dev = st.st_dev;
    id->exe_ino = st.st_ino;
    id->exe_mtime_s = st.st_mtim.tv_sec;
    id->exe_mtime_ns = st.st_mtim.tv_nsec;
    id->exe_ctime_s = st.st_ctim.tv_sec;
    id->exe_ctime_ns = st.st_ctim.tv_nsec;
    static const char *const ns[4] = { "/proc/self/ns/mnt", "/proc/self/ns/pid", "/proc/self/ns/user",
                                       "/proc/self/ns/cgroup" };
    for (int i = 0; i < 4; i++)
        if (stat(ns[i], &st) == 0) /* a kernel without one: 0 on both sides */
            id->ns[i] = st.st_ino;
    id->euid = geteuid();
    id->egid = getegid();
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct cap[2];
    if (syscall(SYS_capget, &hdr, cap) < 0)
        return snprintf(err, errlen, "capget: %s", strerror(errno)), -1;
    for (int i = 0; i < 2; i++) {
        id->caps[3 * i] = cap[i].effective;
        id->caps[3 * i + 1] = cap[i].permitted;
        id->caps[3 * i + 2] = cap[i].inheritable;
    }
    mode_t mask = umask(0); /* read back at once: nothing runs between */
    umask(mask);
    id->umask = mask;
    id->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
    id->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
    errno = 0;
    id->nice = getpriority(PRIO_PROCESS, 0);
    if (errno)
        return snprintf(err, errlen, "getpriority: %s", strerror(errno)), -1;
    for (int r = 0; r < RLIM_NLIMITS; r++) {
        struct rlimit rl;
        if (getrlimit((__rlimit_resource_t)r, &rl) < 0)
            return snprintf(err, errlen, "getrlimit %d: %s", r, strerror(errno)), -1;
        id->rlim[r][0] = rl.rlim_cur;
        id->rlim[r][1] = rl.rlim_max;
    }
    if (sched_getaffinity(0, sizeof id->affinity, (cpu_set_t *)id->affinity) < 0)
        return snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno)), -1;
    size_t len = 0;
    if (env_part(s, &len) < 0 || cgroup_part(s, &len) < 0)
        return snprintf(err, errlen, "GRADEQ_* variables and /proc/self/cgroup past %d bytes", WK_HOLD_CTX_MAX), -1;
    id->ctx_len = (uint32_t)len;
    return 0;
}

bool wk_hold_self_equal(const wk_hold_self *a, const wk_hold_id *id, const char *ctx)
{
    return memcmp(&a->id, id, sizeof *id) == 0 && memcmp(a->ctx, ctx, id->ctx_len) == 0;
}
