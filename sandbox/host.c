/* host.c -- what this machine allows, probed once per process.
 *
 * DESIGN. Every protection is tried for real rather than guessed from
 * versions (a cgroup mkdir, the seccomp build; the namespaces by the first
 * zygote itself, since a throw-away probe would cost a fresh network
 * namespace, 1-5 ms), so `isolation` in each result says what held, not
 * what was hoped. With require_isolation, anything missing is an error that
 * names it; without, runs go ahead with what is left and say so.
 *
 * NAMESPACES are decided once per host, by the first zygote that starts or
 * fails for a reason that will not pass (box.c); until then they are not
 * counted. A later zygote that fails is its box's error, never a reason to
 * run every later box without them.
 *
 * Slots are machine-wide: slot N means uid/gid uid_base+N and cgroup
 * slot-N. A slot is owned by whoever holds the flock on its lock file and,
 * as root, the claim on its uid (uid_claim.c), which workers that share no
 * lock file (containers, pods) see too; the kernel drops both when the
 * owner dies, so a killed worker's slots are free again at once
 * (cg_slot_open clears what it left).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define NS_BITS (SBX_ISO_PID_NS | SBX_ISO_MOUNT_NS | SBX_ISO_NET_NS | SBX_ISO_IPC_NS | SBX_ISO_UTS_NS)

int sbx_state_dir(const sbx_host_options *opts, char *out, size_t len)
{
    int n;
    if (opts && opts->state_dir)
        n = snprintf(out, len, "%s", opts->state_dir);
    else if (geteuid() == 0)
        n = snprintf(out, len, "/run/gradeq");
    else
        n = snprintf(out, len, "/tmp/gradeq-%u", (unsigned)getuid());
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int make_state_dir(sbx_host *h, char *err, size_t errlen)
{
    if (sbx_state_dir(&h->opt, h->state_dir, sizeof h->state_dir) < 0)
        return sbx_fail(err, errlen, "state dir path too long");
    if (mkdir(h->state_dir, 0700) < 0 && errno != EEXIST)
        return sbx_fail_errno(err, errlen, "mkdir %s", h->state_dir);
    /* Lock files and (without namespaces) the runs' directories live here:
     * one made by another user (in a shared /tmp, say) is refused. */
    struct stat st;
    if (lstat(h->state_dir, &st) < 0)
        return sbx_fail_errno(err, errlen, "lstat %s", h->state_dir);
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
        return sbx_fail(err, errlen, "%s is not a directory of this user writable by it alone", h->state_dir);
    return 0;
}

/* A read-only path for the boxes (see sbx_host_options.ro_paths). */
static bool plain_path(const char *p)
{
    static const char *const own[] = { "/proc", "/dev", "/sys", "/box", "/tmp" };
    size_t n = strlen(p);
    if (p[0] != '/' || n < 2 || n >= 256 || p[n - 1] == '/')
        return false;
    for (const char *c = p; *c; c++) {
        if (*c <= ' ' || *c >= 127)
            return false;
        if (c[0] == '/' && (c[1] == '/' || (c[1] == '.' && (c[2] == '/' || !c[2] || (c[2] == '.' && (c[3] == '/' || !c[3]))))))
            return false;
    }
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        size_t k = strlen(own[i]);
        if (strncmp(p, own[i], k) == 0 && (p[k] == 0 || p[k] == '/'))
            return false;
    }
    return true;
}

/* Copies the caller's read-only paths into one block the host owns (the
 * zygotes read it after their clone). */
int sbx_host_ro_paths(sbx_host *h, const char *const *in, char *err, size_t errlen)
{
    if (atomic_load(&h->boxes_opened))
        return sbx_fail(err, errlen, "read-only paths are set before the first box is opened");
    size_t n = 0, bytes = 0;
    for (; in && in[n]; n++) {
        if (n == SBX_RO_PATHS_MAX)
            return sbx_fail(err, errlen, "more than %d read-only paths", SBX_RO_PATHS_MAX);
        if (!plain_path(in[n])) {
            char shown[80];
            sbx_quote(shown, sizeof shown, in[n]);
            return sbx_fail(err, errlen, "read-only path \"%s\": not a plain absolute path outside /proc, /dev, "
                            "/sys, /box and /tmp", shown);
        }
        bytes += strlen(in[n]) + 1;
    }
    free(h->ro_paths);
    h->ro_paths = NULL;
    if (!n)
        return 0;
    h->ro_paths = malloc((n + 1) * sizeof *h->ro_paths + bytes);
    if (!h->ro_paths)
        return sbx_fail(err, errlen, "out of memory");
    char *s = (char *)(h->ro_paths + n + 1);
    for (size_t i = 0; i < n; i++) {
        h->ro_paths[i] = strcpy(s, in[i]);
        s += strlen(in[i]) + 1;
    }
    h->ro_paths[n] = NULL;
    return 0;
}

/* why: for namespaces found missing, the set-up's error. */
static void describe(sbx_host *h, const char *why)
{
    const char *names[32];
    unsigned missing = SBX_ISO_ALL & ~h->isolation;
    if (h->ns == HOST_NS_UNTRIED)
        missing &= ~(unsigned)NS_BITS;
    size_t n = sbx_isolation_names(missing, names, 32);
    int at = snprintf(h->describe, sizeof h->describe, "cgroup %s%s%s%s, %s, namespaces %s%s%.200s%s, seccomp %s",
                      h->cg.version == CG_V2 ? "v2" : h->cg.version == CG_V1 ? "v1" : "none",
                      h->cg.note[0] ? " (" : "", h->cg.note, h->cg.note[0] ? ")" : "", h->root ? "root" : "not root",
                      h->ns == HOST_NS_YES ? "yes" : h->ns == HOST_NS_NO ? "no" : "untried",
                      why && why[0] ? " (" : "", why ? why : "", why && why[0] ? ")" : "", h->seccomp ? "yes" : "no");
    for (size_t i = 0; i < n && at > 0 && (size_t)at < sizeof h->describe; i++)
        at += snprintf(h->describe + at, sizeof h->describe - (size_t)at, "%s%s",
                       i == 0 ? "; missing: " : ", ", names[i]);
    if (h->cg.version == CG_NONE && at > 0 && (size_t)at < sizeof h->describe)
        at += snprintf(h->describe + at, sizeof h->describe - (size_t)at, " (%s)", h->cg.why);
    else if (!(h->isolation & SBX_ISO_CG_CPU_SHARE) && at > 0 && (size_t)at < sizeof h->describe)
        at += snprintf(h->describe + at, sizeof h->describe - (size_t)at, " (%s)", h->cg.cpu_why);
    /* Not an isolation bit (most containers lack the capability): said
     * here, where the operator reads what held. */
    if (h->root && !h->oom_pinned && at > 0 && (size_t)at < sizeof h->describe)
        snprintf(h->describe + at, sizeof h->describe - (size_t)at,
                 "; oom_score_adj +1000 not pinned (no CAP_SYS_RESOURCE): a run may lower its own to the "
                 "worker's floor");
}

/* Whether this process holds CAP_SYS_RESOURCE, with which the run's +1000
 * oom_score_adj is written so that the run cannot lower it. */
static bool has_sys_resource(void)
{
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) < 0)
        return false;
    return data[CAP_SYS_RESOURCE / 32].effective & (1u << (CAP_SYS_RESOURCE % 32));
}

int sbx_host_open(sbx_host **out, const sbx_host_options *opts, char *err, size_t errlen)
{
    sbx_host *h = calloc(1, sizeof *h);
    if (!h)
        return sbx_fail(err, errlen, "out of memory");
    if (opts)
        h->opt = *opts;
    if (!h->opt.uid_base)
        h->opt.uid_base = 60000;
    if (!h->opt.max_slots)
        h->opt.max_slots = 256;
    if (!h->opt.cgroup_name)
        h->opt.cgroup_name = "gradeq";
    if (!h->opt.box_bytes)
        h->opt.box_bytes = 256ull << 20;
    if (!h->opt.tmp_bytes)
        h->opt.tmp_bytes = 64ull << 20;
    h->root = geteuid() == 0;
    h->procfs_ours = self_procfs_ours();
    /* The CPUs we may use, not all online ones: a cpuset (a container's
     * limit, systemd's AllowedCPUs=) makes pinning elsewhere fail. */
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
        for (unsigned c = 0; c < CPU_SETSIZE && h->ncpu < 1024; c++)
            if (CPU_ISSET(c, &allowed))
                h->cpus[h->ncpu++] = c;
    }
    if (!h->ncpu) {
        h->ncpu = 1;
        h->cpus[0] = (unsigned)sched_getcpu();
    }
    if (make_state_dir(h, err, errlen) < 0)
        goto fail;
    char perr[SBX_ERR_LEN];
    h->seccomp = prctl(PR_GET_SECCOMP) >= 0 && pol_build(&h->bpf, perr, sizeof perr) == 0;
    h->ns = h->root ? HOST_NS_UNTRIED : HOST_NS_NO;
    pthread_mutex_init(&h->mu, NULL);
    pthread_mutex_init(&h->probe_mu, NULL);
    if (h->root)
        cg_probe(&h->cg, h->opt.cgroup_name);
    else
        snprintf(h->cg.why, sizeof h->cg.why, "not root");
    h->isolation = SBX_ISO_NO_NEW_PRIVS | SBX_ISO_RLIMITS | SBX_ISO_FDS | SBX_ISO_CLEAN_ENV;
    if (h->root)
        h->isolation |= SBX_ISO_UID;
    if (h->seccomp)
        h->isolation |= SBX_ISO_SECCOMP;
    if (h->cg.version != CG_NONE)
        h->isolation |= SBX_ISO_CG_MEMORY | SBX_ISO_CG_PIDS | SBX_ISO_CG_CPU | SBX_ISO_CG_KILL;
    if (h->cg.version != CG_NONE && h->cg.cpu_share)
        h->isolation |= SBX_ISO_CG_CPU_SHARE;
    h->oom_pinned = h->root && has_sys_resource();
    describe(h, NULL);
    /* Namespaces are the first box's to find (box_start). */
    if (h->opt.require_isolation && (h->isolation | (h->root ? NS_BITS : 0)) != SBX_ISO_ALL) {
        sbx_fail(err, errlen, "full isolation required but not available: %s", h->describe);
        goto fail;
    }
    *out = h;
    return 0;
fail:
    free(h->bpf.filter);
    free(h);
    return -1;
}

void sbx_host_close(sbx_host *h)
{
    if (!h)
        return;
    pthread_mutex_destroy(&h->mu);
    pthread_mutex_destroy(&h->probe_mu);
    free(h->bpf.filter);
    free(h->ro_paths);
    free(h);
}

int host_namespaces(sbx_host *h)
{
    pthread_mutex_lock(&h->mu);
    int ns = h->ns;
    pthread_mutex_unlock(&h->mu);
    return ns;
}

void host_namespaces_decided(sbx_host *h, bool yes, const char *why)
{
    pthread_mutex_lock(&h->mu);
    if (h->ns == HOST_NS_UNTRIED) {
        h->ns = yes ? HOST_NS_YES : HOST_NS_NO;
        if (yes)
            h->isolation |= NS_BITS;
        describe(h, yes ? NULL : why);
    }
    pthread_mutex_unlock(&h->mu);
}

unsigned host_isolation_for(sbx_host *h, bool ns)
{
    pthread_mutex_lock(&h->mu);
    unsigned iso = (h->isolation & ~(unsigned)NS_BITS) | (ns ? NS_BITS : 0);
    pthread_mutex_unlock(&h->mu);
    return iso;
}

unsigned sbx_host_isolation(const sbx_host *h)
{
    pthread_mutex_lock((pthread_mutex_t *)&h->mu);
    unsigned iso = h->isolation;
    pthread_mutex_unlock((pthread_mutex_t *)&h->mu);
    return iso;
}

const char *sbx_host_cgroup_others(const sbx_host *h)
{
    return h->cg.others;
}

const char *sbx_host_describe(const sbx_host *h)
{
    return h->describe;
}

int host_lock_slot(sbx_host *h, unsigned *slot, int *claim_fd, char *err, size_t errlen)
{
    unsigned start = atomic_fetch_add(&h->next_slot, 1);
    *claim_fd = -1;
    for (unsigned i = 0; i < h->opt.max_slots; i++) {
        unsigned s = (start + i) % h->opt.max_slots;
        char path[300];
        snprintf(path, sizeof path, "%s/slot-%u.lock", h->state_dir, s);
        int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
            return sbx_fail_errno(err, errlen, "opening %s", path);
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            close(fd);
            if (errno != EWOULDBLOCK)
                return sbx_fail_errno(err, errlen, "locking %s", path);
            continue;
        }
        /* Ours here; the uid must be ours on the whole machine too (a
         * worker in a container shares no lock file with us). */
        int c = h->root ? uid_claim((uid_t)(h->opt.uid_base + s), err, errlen) : -1;
        if (c == UID_CLAIM_BUSY) {
            close(fd);
            continue;
        }
        if (c < 0 && h->root) {
            close(fd);
            return -1;
        }
        *slot = s;
        *claim_fd = c;
        return fd;
    }
    return sbx_fail(err, errlen, "all %u sandbox slots of this machine are in use", h->opt.max_slots);
}
