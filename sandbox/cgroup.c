/* cgroup.c -- one reusable cgroup per slot: limits, accounting, kill.
 *
 * DESIGN. A cgroup made and removed per run costs 0.8 ms here and serialises
 * on the kernel's cgroup_mutex; reusing one per slot and resetting its
 * counters costs about 0.1 ms. So a slot's cgroup is made once (or taken over
 * from a dead owner: the slot lock says nobody else has it) and every run
 * starts with cg_slot_prepare, which writes only the limits that changed and
 * resets what can be reset. What cannot be reset (v2's cpu.stat, the OOM
 * counters) is read before the run and subtracted after.
 *
 * v1 (this machine's hybrid layout): memory, pids and cpuacct hierarchies,
 * each with <name>/slot-N. v2: <base>/slot-N under one unified hierarchy,
 * where <base> is <name> under our own cgroup with memory and pids enabled
 * (cgroup_probe.c finds which).
 *
 * The slot's zygote lives in the cgroup too, so that runs are born in it
 * (no migration per run, see zygote.c). So the kill skips it, pids.max
 * counts it, and its own memory charge (measured before each run) is added
 * to the limit and taken off the peak.
 *
 * INVARIANTS. Every file the hot path touches is opened once per slot; the
 * zygote enters the cgroup by writing "0" to inherited cgroup.procs fds,
 * which works inside its PID namespace. cg_slot_kill allocates nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/cgroup_file.h"
#include "sandbox/internal.h"

/* Indices of the per-slot files kept open (-1 when absent). */
enum {
    F_MEM_LIMIT, F_MEMSW_LIMIT, F_MEM_PEAK, F_MEMSW_PEAK, F_FAILCNT, F_OOM,
    F_MEM_USAGE, F_FORCE_EMPTY, F_PIDS_MAX, F_CPU, F_PROCS_READ,
    F_SWAP_MAX, F_COUNT
};

_Static_assert(F_COUNT <= CG_FILES, "cg_slot.fd too small");

static int open_in(const char *dir, const char *file, int flags)
{
    char p[CG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return open(p, flags | O_CLOEXEC);
}

static int open_files_v1(cg_slot *s, int *fd)
{
    const char *mem = s->dir[0], *pids = s->dir[1], *cpu = s->dir[2];
    fd[F_MEM_LIMIT] = open_in(mem, "memory.limit_in_bytes", O_RDWR);
    fd[F_MEM_PEAK] = open_in(mem, "memory.max_usage_in_bytes", O_RDWR);
    fd[F_FAILCNT] = open_in(mem, "memory.failcnt", O_RDWR);
    fd[F_OOM] = open_in(mem, "memory.oom_control", O_RDONLY);
    fd[F_MEM_USAGE] = open_in(mem, "memory.usage_in_bytes", O_RDONLY);
    fd[F_FORCE_EMPTY] = open_in(mem, "memory.force_empty", O_WRONLY);
    fd[F_PIDS_MAX] = open_in(pids, "pids.max", O_RDWR);
    fd[F_CPU] = open_in(cpu, "cpuacct.usage", O_RDWR);
    fd[F_PROCS_READ] = open_in(pids, ".", O_RDONLY | O_DIRECTORY);
    if (s->host->memsw) {
        fd[F_MEMSW_LIMIT] = open_in(mem, "memory.memsw.limit_in_bytes", O_RDWR);
        fd[F_MEMSW_PEAK] = open_in(mem, "memory.memsw.max_usage_in_bytes", O_RDWR);
    }
    static const int need[] = { F_MEM_LIMIT, F_MEM_PEAK, F_FAILCNT, F_OOM, F_MEM_USAGE,
                                F_FORCE_EMPTY, F_PIDS_MAX, F_CPU, F_PROCS_READ };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (fd[need[i]] < 0)
            return -1;
    if (s->host->memsw && (fd[F_MEMSW_LIMIT] < 0 || fd[F_MEMSW_PEAK] < 0))
        return -1;
    s->cpu_fd = fd[F_CPU];
    return 0;
}

static int open_files_v2(cg_slot *s, int *fd)
{
    const char *d = s->dir[0];
    fd[F_MEM_LIMIT] = open_in(d, "memory.max", O_RDWR);
    fd[F_SWAP_MAX] = open_in(d, "memory.swap.max", O_RDWR);
    fd[F_MEM_PEAK] = open_in(d, "memory.peak", O_RDWR);
    fd[F_MEM_USAGE] = open_in(d, "memory.current", O_RDONLY);
    fd[F_OOM] = open_in(d, "memory.events", O_RDONLY);
    fd[F_PIDS_MAX] = open_in(d, "pids.max", O_RDWR);
    fd[F_CPU] = open_in(d, "cpu.stat", O_RDONLY);
    fd[F_PROCS_READ] = open_in(d, ".", O_RDONLY | O_DIRECTORY);
    if (fd[F_MEM_LIMIT] < 0 || fd[F_MEM_PEAK] < 0 || fd[F_MEM_USAGE] < 0 || fd[F_OOM] < 0 || fd[F_PIDS_MAX] < 0 ||
        fd[F_CPU] < 0 || fd[F_PROCS_READ] < 0)
        return -1;
    if (fd[F_SWAP_MAX] >= 0 && cgf_write_str(fd[F_SWAP_MAX], "0") < 0)
        return -1;
    s->cpu_fd = fd[F_CPU];
    return 0;
}

int cg_slot_open(const cg_host *h, unsigned slot, cg_slot *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->host = h;
    s->cpu_fd = -1;
    for (int i = 0; i < 3; i++)
        s->procs_fd[i] = -1;
    const char *bases[3] = { h->mem, h->pids, h->cpu };
    s->ndirs = h->version == CG_V1 ? 3 : 1;
    for (int i = 0; i < s->ndirs; i++) {
        snprintf(s->dir[i], CG_PATH_MAX, "%s/slot-%u", bases[i], slot);
        if (cgf_mkdir_ok(s->dir[i]) < 0)
            return sbx_fail_errno(err, errlen, "cgroup mkdir %s", s->dir[i]);
        /* v1: the zygote (one thread) joins through "tasks": moving only
         * the calling thread skips the threadgroup lock and the RCU grace
         * period that moving a process through cgroup.procs waits for
         * (~10 ms seen here). */
        s->procs_fd[i] = open_in(s->dir[i], h->version == CG_V1 ? "tasks" : "cgroup.procs", O_WRONLY);
        if (s->procs_fd[i] < 0)
            return sbx_fail_errno(err, errlen, "cgroup open %s/cgroup.procs", s->dir[i]);
    }
    for (int i = 0; i < CG_FILES; i++)
        s->fd[i] = -1;
    int rc = h->version == CG_V1 ? open_files_v1(s, s->fd) : open_files_v2(s, s->fd);
    if (rc < 0)
        return sbx_fail_errno(err, errlen, "cgroup files in %s", s->dir[0]);
    if (cgf_read_u64(s->fd[F_MEM_LIMIT], &s->cur_mem) < 0 || cgf_read_u64(s->fd[F_PIDS_MAX], &s->cur_pids) < 0)
        return sbx_fail_errno(err, errlen, "cgroup limits in %s", s->dir[0]);
    /* A dead owner may have left processes behind: the slot lock is ours
     * now, so whatever runs here is stale. */
    return cg_slot_empty(s, err, errlen);
}

void cg_slot_close(cg_slot *s)
{
    if (!s->host)
        return;
    char err[SBX_ERR_LEN];
    cg_slot_empty(s, err, sizeof err);
    for (int i = 0; i < CG_FILES; i++)
        if (s->fd[i] >= 0)
            close(s->fd[i]);
    for (int i = 0; i < s->ndirs; i++) {
        if (s->procs_fd[i] >= 0)
            close(s->procs_fd[i]);
        rmdir(s->dir[i]);
    }
    s->host = NULL;
}

static int set_memory_v1(cg_slot *s, int *fd, uint64_t bytes)
{
    /* memsw must stay >= limit at every step: raise memsw first, lower it last. */
    bool up = bytes > s->cur_mem;
    if (up && fd[F_MEMSW_LIMIT] >= 0 && cgf_write_u64(fd[F_MEMSW_LIMIT], bytes) < 0)
        return -1;
    if (cgf_write_u64(fd[F_MEM_LIMIT], bytes) < 0)
        return -1;
    if (!up && fd[F_MEMSW_LIMIT] >= 0 && cgf_write_u64(fd[F_MEMSW_LIMIT], bytes) < 0)
        return -1;
    return 0;
}

static int set_memory(cg_slot *s, uint64_t bytes)
{
    if (bytes == s->cur_mem)
        return 0;
    int rc = s->host->version == CG_V1 ? set_memory_v1(s, s->fd, bytes) : cgf_write_u64(s->fd[F_MEM_LIMIT], bytes);
    if (rc == 0)
        s->cur_mem = bytes;
    return rc;
}

/* v1: peak and counters reset, then the zygote's charge is what is left. */
static int reset_v1(cg_slot *s)
{
    int *fd = s->fd;
    uint64_t usage = 0;
    /* Page cache the last run left charged here would count as the zygote's
     * and inflate the next limit. */
    if (cgf_read_u64(fd[F_MEM_USAGE], &usage) == 0 && usage > (4u << 20))
        cgf_write_str(fd[F_FORCE_EMPTY], "0");
    if (cgf_write_str(fd[F_MEM_PEAK], "0") < 0 || cgf_write_str(fd[F_FAILCNT], "0") < 0 || cgf_write_str(fd[F_CPU], "0") < 0 ||
        (fd[F_MEMSW_PEAK] >= 0 && cgf_write_str(fd[F_MEMSW_PEAK], "0") < 0))
        return -1;
    if (cgf_read_u64(fd[F_MEM_USAGE], &s->mem_base) < 0)
        return -1;
    if (cgf_read_key(fd[F_OOM], "oom_kill", &s->oom_base) < 0)
        s->oom_base = 0;
    s->cpu_base = 0;
    return 0;
}

/* v2: memory.peak resets per open file on kernels >= 6.12 (older ones
 * refuse and report the peak since the slot was made); cpu.stat and
 * memory.events cannot be reset, so they are read now and diffed after. */
static int reset_v2(cg_slot *s)
{
    int *fd = s->fd;
    uint64_t usec = 0;
    cgf_write_str(fd[F_MEM_PEAK], "reset");
    if (cgf_read_key(fd[F_CPU], "usage_usec", &usec) < 0 || cgf_read_u64(fd[F_MEM_USAGE], &s->mem_base) < 0)
        return -1;
    s->cpu_base = usec;
    if (cgf_read_key(fd[F_OOM], "oom_kill", &s->oom_base) < 0)
        s->oom_base = 0;
    return 0;
}

int cg_slot_prepare(cg_slot *s, const sbx_limits *l, char *err, size_t errlen)
{
    int rc = s->host->version == CG_V1 ? reset_v1(s) : reset_v2(s);
    if (rc < 0)
        return sbx_fail_errno(err, errlen, "cgroup: resetting counters in %s", s->dir[0]);
    if (set_memory(s, l->memory_bytes + s->mem_base) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: setting memory limit %" PRIu64, l->memory_bytes);
    if (l->processes + 1 != s->cur_pids) {
        if (cgf_write_u64(s->fd[F_PIDS_MAX], l->processes + 1) < 0)
            return sbx_fail_errno(err, errlen, "cgroup: setting pids.max %" PRIu64, l->processes);
        s->cur_pids = l->processes + 1;
    }
    return 0;
}

int cg_slot_cpu_ns(cg_slot *s, uint64_t *ns)
{
    if (s->host->version == CG_V1)
        return cgf_read_u64(s->cpu_fd, ns);
    uint64_t usec;
    if (cgf_read_key(s->cpu_fd, "usage_usec", &usec) < 0)
        return -1;
    *ns = (usec - s->cpu_base) * 1000;
    return 0;
}

/* Kills every pid listed in the cgroup's cgroup.procs but `keep`; returns
 * how many it killed. The file is opened anew each time: v1 caches the pid
 * list per open file, so a kept fd would list the processes of its first
 * read. */
static int kill_listed(int dirfd, pid_t keep)
{
    char buf[4096];
    int count = 0;
    long pid = 0;
    bool in_num = false;
    int fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                pid = pid * 10 + (buf[i] - '0');
                in_num = true;
            } else if (in_num) {
                if ((pid_t)pid != keep) {
                    kill((pid_t)pid, SIGKILL);
                    count++;
                }
                pid = 0;
                in_num = false;
            }
        }
    }
    close(fd);
    if (in_num && (pid_t)pid != keep) {
        kill((pid_t)pid, SIGKILL);
        count++;
    }
    return count;
}

size_t cg_slot_pids(cg_slot *s, pid_t *out, size_t max)
{
    char buf[4096];
    size_t n = 0;
    int fd = openat(s->fd[F_PROCS_READ], "cgroup.procs", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[len > 0 ? len : 0] = 0;
    for (char *p = buf, *end; *p && n < max; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if ((pid_t)pid != s->keep)
            out[n++] = (pid_t)pid;
        while (*end == '\n')
            end++;
    }
    return n;
}

void cg_slot_kill(cg_slot *s)
{
    kill_listed(s->fd[F_PROCS_READ], s->keep);
}

int cg_slot_empty(cg_slot *s, char *err, size_t errlen)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int n = kill_listed(s->fd[F_PROCS_READ], s->keep);
        if (n < 0)
            return sbx_fail_errno(err, errlen, "cgroup: reading %s/cgroup.procs", s->dir[0]);
        if (n == 0)
            return 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec > 5)
            return sbx_fail(err, errlen, "cgroup %s: %d processes survive SIGKILL for 5 s", s->dir[0], n);
        /* Killed processes leave the list as they finish exiting. */
        sched_yield();
    }
}

int cg_slot_stats(cg_slot *s, uint64_t *peak, bool *oom, bool *hit_limit, char *err, size_t errlen)
{
    int *fd = s->fd;
    int pfd = fd[F_MEMSW_PEAK] >= 0 ? fd[F_MEMSW_PEAK] : fd[F_MEM_PEAK];
    if (cgf_read_u64(pfd, peak) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: reading peak memory in %s", s->dir[0]);
    *peak = *peak > s->mem_base ? *peak - s->mem_base : 0;
    uint64_t kills = 0;
    if (cgf_read_key(fd[F_OOM], "oom_kill", &kills) < 0)
        kills = s->oom_base;
    *oom = kills > s->oom_base;
    uint64_t fails = 0;
    if (s->host->version == CG_V1)
        *hit_limit = cgf_read_u64(fd[F_FAILCNT], &fails) == 0 && fails > 0;
    else
        *hit_limit = *oom || *peak + s->mem_base >= s->cur_mem;
    return 0;
}
