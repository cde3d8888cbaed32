/* host.c -- what this machine allows, probed once per process.
 *
 * DESIGN. Every protection is tried for real rather than guessed from
 * versions (a cgroup mkdir, the seccomp build; the namespaces by the first
 * zygote itself, since a throw-away probe would cost a fresh network
 * namespace, 1-5 ms), so `isolation` in each result says what held, not
 * what was hoped. With require_isolation, anything missing is an error that
 * names it; without, runs go ahead with what is left and say so.
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
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"

static int make_state_dir(sbx_host *h, char *err, size_t errlen)
{
    const char *d = h->opt.state_dir;
    char fallback[200];
    if (!d) {
        if (h->root)
            d = "/run/gradeq";
        else {
            snprintf(fallback, sizeof fallback, "/tmp/gradeq-%u", (unsigned)getuid());
            d = fallback;
        }
    }
    if (snprintf(h->state_dir, sizeof h->state_dir, "%s", d) >= (int)sizeof h->state_dir)
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

static void describe(sbx_host *h)
{
    const char *names[32];
    unsigned missing = SBX_ISO_ALL & ~h->isolation;
    size_t n = sbx_isolation_names(missing, names, 32);
    int at = snprintf(h->describe, sizeof h->describe, "cgroup %s%s%s%s, %s, namespaces %s, seccomp %s",
                      h->cg.version == CG_V2 ? "v2" : h->cg.version == CG_V1 ? "v1" : "none",
                      h->cg.note[0] ? " (" : "", h->cg.note, h->cg.note[0] ? ")" : "",
                      h->root ? "root" : "not root", atomic_load(&h->namespaces) ? "yes" : "no",
                      h->seccomp ? "yes" : "no");
    for (size_t i = 0; i < n && at > 0 && (size_t)at < sizeof h->describe; i++)
        at += snprintf(h->describe + at, sizeof h->describe - (size_t)at, "%s%s",
                       i == 0 ? "; missing: " : ", ", names[i]);
    if (h->cg.version == CG_NONE && at > 0 && (size_t)at < sizeof h->describe)
        snprintf(h->describe + at, sizeof h->describe - (size_t)at, " (%s)", h->cg.why);
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
    atomic_store(&h->namespaces, h->root);
    pthread_mutex_init(&h->mu, NULL);
    if (h->root)
        cg_probe(&h->cg, h->opt.cgroup_name);
    else
        snprintf(h->cg.why, sizeof h->cg.why, "not root");
    h->isolation = SBX_ISO_NO_NEW_PRIVS | SBX_ISO_RLIMITS | SBX_ISO_FDS | SBX_ISO_CLEAN_ENV;
    if (atomic_load(&h->namespaces))
        h->isolation |= SBX_ISO_PID_NS | SBX_ISO_MOUNT_NS | SBX_ISO_NET_NS | SBX_ISO_IPC_NS | SBX_ISO_UTS_NS;
    if (h->root)
        h->isolation |= SBX_ISO_UID;
    if (h->seccomp)
        h->isolation |= SBX_ISO_SECCOMP;
    if (h->cg.version != CG_NONE)
        h->isolation |= SBX_ISO_CG_MEMORY | SBX_ISO_CG_PIDS | SBX_ISO_CG_CPU | SBX_ISO_CG_KILL;
    describe(h);
    if (h->opt.require_isolation && h->isolation != SBX_ISO_ALL) {
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
    free(h->bpf.filter);
    free(h);
}

#define NS_BITS (SBX_ISO_PID_NS | SBX_ISO_MOUNT_NS | SBX_ISO_NET_NS | SBX_ISO_IPC_NS | SBX_ISO_UTS_NS)

void host_namespaces_failed(sbx_host *h)
{
    pthread_mutex_lock(&h->mu);
    if (atomic_exchange(&h->namespaces, false)) {
        h->isolation &= ~(unsigned)NS_BITS;
        describe(h);
    }
    pthread_mutex_unlock(&h->mu);
}

unsigned sbx_host_isolation(const sbx_host *h)
{
    pthread_mutex_lock((pthread_mutex_t *)&h->mu);
    unsigned iso = h->isolation;
    pthread_mutex_unlock((pthread_mutex_t *)&h->mu);
    return iso;
}

const char *sbx_host_cgroup_note(const sbx_host *h)
{
    return h->cg.note;
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
