/* cgroup.c -- the cgroups of a slot: limits, accounting, kill.
 *
 * v1 (hybrid layouts): memory, pids and cpuacct hierarchies,
 * each with <name>/slot-N, made once per slot (or taken over from a dead
 * owner: the slot lock says nobody else has it) and reused: a cgroup made
 * and removed per run costs 0.8 ms on v1 and serialises on the kernel's
 * cgroup_mutex, resetting its counters about 0.1 ms. The slot's zygote lives
 * in it, so that runs are born in it (no migration per run, see zygote.c):
 * the kill skips it and pids.max counts it. Memory is one level down: the
 * runs' first thread joins slot-N/a (or b), whose limit is the run's; what
 * is left charged there after a run (page cache of the files it read) is
 * added to the next limit and taken off its peak while it stays small.
 * Past MEM_LEFT_MAX the next run gets the other one, made anew, and the
 * old one is removed: its pages stay cached, charged to the removed
 * cgroup, out of every run's count, and a runtime's libraries read by one
 * run are still in memory for the next (memory.force_empty would evict
 * them, and every run of a large runtime would read them from disk).
 * v1 charges socket buffers to a counter of their own, limited with the
 * memory (else a run could park any amount in loopback TCP queues).
 *
 * CPU SHARE. Each slot is a cgroup of the cpu controller with the same
 * weight (v1 cpu.shares under <name>/slot-N of the cpu hierarchy, which
 * the zygote joins once; v2 cpu.weight of slot-N, whose leaves inherit
 * it: the controller is not enabled below the slot, so the run's cgroup
 * made each run costs no scheduler group). Concurrent runs then split the
 * CPU equally whatever they fork: the kernel's autogroups (a group per
 * session, which 64 processes each calling setsid would multiply 64
 * times) apply only in the root cpu cgroup, never inside a slot. The
 * slots together compete with the rest of the machine as one group.
 *
 * v2: <base>/slot-N hands memory and pids down to two leaves: zygote/
 * (the zygote, outside every run's accounting) and run/, made anew for
 * each run. A fresh cgroup is the only per-run peak on kernels before
 * 6.12 (writing "reset" to memory.peak is refused there), and its
 * memory.events, cpu.stat and pids start at zero: nothing of an earlier
 * run can be read as this one's. The run's first process is born in run/
 * (clone3 with CLONE_INTO_CGROUP, clone_into.c) or joins it before it
 * execs; cgroup.kill ends the whole tree at once.
 *
 * INVARIANTS. Every file the hot path touches is opened once per slot (v1)
 * or once per run (v2); the zygote enters its cgroup by writing "0" to
 * inherited cgroup.procs fds, which works inside its PID namespace.
 * cg_slot_kill allocates nothing. A failed cg_slot_open leaves nothing
 * open.
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

/* Indices of the per-slot files kept open (-1 when absent). v2 reopens
 * those before F_PROCS_READ for every run, and F_PROCS_READ and F_KILL
 * in place (see reopen). */
enum {
    F_MEM_LIMIT, F_MEMSW_LIMIT, F_MEM_PEAK, F_MEMSW_PEAK, F_FAILCNT, F_MEMSW_FAILCNT, F_OOM,
    F_MEM_USAGE, F_PIDS_MAX, F_CPU, F_PROCS_READ,
    F_TCP_LIMIT, F_KILL, F_COUNT
};

_Static_assert(F_COUNT <= CG_FILES, "cg_slot.fd too small");

static int open_in(const char *dir, const char *file, int flags)
{
    char p[CG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return open(p, flags | O_CLOEXEC);
}

/* v1: the files of the memory cgroup mem, into fd. */
static int open_mem_v1(const cg_slot *s, const char *mem, int *fd)
{
    fd[F_MEM_LIMIT] = open_in(mem, "memory.limit_in_bytes", O_RDWR);
    fd[F_MEM_PEAK] = open_in(mem, "memory.max_usage_in_bytes", O_RDWR);
    fd[F_FAILCNT] = open_in(mem, "memory.failcnt", O_RDWR);
    fd[F_OOM] = open_in(mem, "memory.oom_control", O_RDONLY);
    fd[F_MEM_USAGE] = open_in(mem, "memory.usage_in_bytes", O_RDONLY);
    fd[F_TCP_LIMIT] = open_in(mem, "memory.kmem.tcp.limit_in_bytes", O_RDWR);
    if (s->host->memsw) {
        fd[F_MEMSW_LIMIT] = open_in(mem, "memory.memsw.limit_in_bytes", O_RDWR);
        fd[F_MEMSW_PEAK] = open_in(mem, "memory.memsw.max_usage_in_bytes", O_RDWR);
        fd[F_MEMSW_FAILCNT] = open_in(mem, "memory.memsw.failcnt", O_RDWR);
    }
    static const int need[] = { F_MEM_LIMIT, F_MEM_PEAK, F_FAILCNT, F_OOM, F_MEM_USAGE, F_TCP_LIMIT };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (fd[need[i]] < 0)
            return -1;
    if (s->host->memsw && (fd[F_MEMSW_LIMIT] < 0 || fd[F_MEMSW_PEAK] < 0 || fd[F_MEMSW_FAILCNT] < 0))
        return -1;
    return 0;
}

static int open_files_v1(cg_slot *s, int *fd)
{
    const char *pids = s->dir[1], *cpu = s->dir[2];
    fd[F_PIDS_MAX] = open_in(pids, "pids.max", O_RDWR);
    fd[F_CPU] = open_in(cpu, "cpuacct.usage", O_RDWR);
    fd[F_PROCS_READ] = open_in(pids, ".", O_RDONLY | O_DIRECTORY);
    if (fd[F_PIDS_MAX] < 0 || fd[F_CPU] < 0 || fd[F_PROCS_READ] < 0)
        return -1;
    s->cpu_fd = fd[F_CPU];
    return 0;
}

static void close_fds(int *fd, int n)
{
    for (int i = 0; i < n; i++) {
        if (fd[i] >= 0)
            close(fd[i]);
        fd[i] = -1;
    }
}

/* v1: the memory files, by index. */
static const int mem_files[] = { F_MEM_LIMIT, F_MEMSW_LIMIT, F_MEM_PEAK, F_MEMSW_PEAK, F_FAILCNT,
                                 F_MEMSW_FAILCNT, F_OOM, F_MEM_USAGE, F_TCP_LIMIT };
#define MEM_FILES (sizeof mem_files / sizeof mem_files[0])

/* Removes an emptied cgroup; the last exits may still be under way. */
static int remove_cgroup(const char *dir)
{
    for (int i = 0; rmdir(dir) < 0 && errno != ENOENT; i++)
        if (errno != EBUSY || i == 100000)
            return -1;
        else
            sched_yield();
    return 0;
}

/* v1: the runs' next memory cgroup, a or b under the slot's (the one not
 * in use), made empty with no limit yet; the one in use, if any, is
 * removed once the new one is open. Only between runs: nothing is in it
 * but charges. */
static int new_mem_v1(cg_slot *s)
{
    char next[CG_PATH_MAX + 2];
    int fd[F_COUNT];
    for (int i = 0; i < F_COUNT; i++)
        fd[i] = -1;
    bool was_a = s->memrun[0] && s->memrun[strlen(s->memrun) - 1] == 'a';
    snprintf(next, sizeof next, "%s/%c", s->dir[0], was_a ? 'b' : 'a');
    /* A dead owner's, or one whose removal failed: emptied already. */
    if (remove_cgroup(next) < 0 || mkdir(next, 0755) < 0)
        return -1;
    int tasks = open_in(next, "tasks", O_WRONLY);
    if (tasks < 0 || open_mem_v1(s, next, fd) < 0) {
        int e = errno;
        if (tasks >= 0)
            close(tasks);
        for (size_t i = 0; i < MEM_FILES; i++)
            if (fd[mem_files[i]] >= 0)
                close(fd[mem_files[i]]);
        rmdir(next);
        errno = e;
        return -1;
    }
    for (size_t i = 0; i < MEM_FILES; i++) {
        if (s->fd[mem_files[i]] >= 0)
            close(s->fd[mem_files[i]]);
        s->fd[mem_files[i]] = fd[mem_files[i]];
    }
    if (s->mem_tasks >= 0)
        close(s->mem_tasks);
    s->mem_tasks = tasks;
    int rc = s->memrun[0] ? remove_cgroup(s->memrun) : 0;
    snprintf(s->memrun, sizeof s->memrun, "%s", next);
    s->cur_mem = UINT64_MAX; /* a new cgroup's: unlimited */
    return rc;
}

/* Puts the file at path into *fd, keeping its number when it has one:
 * cg_slot_kill may be writing to it from another thread right now, and
 * must reach the old run's file or the new one, never a reused number. */
static int reopen(int *fd, const char *dir, const char *file, int flags)
{
    int n = open_in(dir, file, flags);
    if (n < 0 || *fd < 0) {
        *fd = n;
        return n;
    }
    int rc = dup3(n, *fd, O_CLOEXEC);
    close(n);
    return rc;
}

/* v2: removes the last run's cgroup (empty since cg_slot_empty) and makes
 * the next one, its files open and its limits written. */
static int new_run_v2(cg_slot *s, const sbx_limits *l)
{
    int *fd = s->fd;
    close_fds(fd, F_PROCS_READ);
    /* Emptied by cg_slot_empty. */
    if (remove_cgroup(s->dir[1]) < 0 || mkdir(s->dir[1], 0755) < 0)
        return -1;
    const char *d = s->dir[1];
    fd[F_MEM_LIMIT] = open_in(d, "memory.max", O_WRONLY);
    fd[F_MEMSW_LIMIT] = open_in(d, "memory.swap.max", O_WRONLY);
    fd[F_MEM_PEAK] = open_in(d, "memory.peak", O_RDONLY);
    fd[F_OOM] = open_in(d, "memory.events", O_RDONLY);
    fd[F_PIDS_MAX] = open_in(d, "pids.max", O_WRONLY);
    fd[F_CPU] = open_in(d, "cpu.stat", O_RDONLY);
    if (reopen(&fd[F_KILL], d, "cgroup.kill", O_WRONLY) < 0 || reopen(&fd[F_PROCS_READ], d, ".", O_RDONLY | O_DIRECTORY) < 0)
        return -1;
    static const int need[] = { F_MEM_LIMIT, F_MEM_PEAK, F_OOM, F_PIDS_MAX, F_CPU };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (fd[need[i]] < 0)
            return -1;
    /* No swap: memory.max alone is the run's memory (absent without swap
     * accounting, where there is nothing to turn off). */
    if ((fd[F_MEMSW_LIMIT] >= 0 && cgf_write_str(fd[F_MEMSW_LIMIT], "0") < 0) ||
        cgf_write_u64(fd[F_MEM_LIMIT], l->memory_bytes) < 0 || cgf_write_u64(fd[F_PIDS_MAX], l->processes) < 0)
        return -1;
    s->cpu_fd = fd[F_CPU];
    s->cur_mem = l->memory_bytes;
    return 0;
}

/* Every slot has the same CPU weight (the kernel's default, written so
 * that it is what a dead owner may have left changed): see the header. */
#define CPU_SHARES_V1 1024
#define CPU_WEIGHT_V2 100

static int set_weight(const char *dir, const char *file, unsigned weight)
{
    char p[CG_PATH_MAX + 64], v[16];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    snprintf(v, sizeof v, "%u", weight);
    return cgf_write_file(p, v);
}

static void release(cg_slot *s)
{
    close_fds(s->fd, CG_FILES);
    close_fds(s->procs_fd, 4);
    close_fds(&s->mem_tasks, 1);
    s->cpu_fd = -1;
    s->host = NULL;
}

void cg_slot_forget(cg_slot *s)
{
    release(s);
}

/* v2: slot-N hands memory and pids to its two leaves; a slot taken over
 * from a dead owner is killed whole first (zygote and run). The run leaf
 * made here is only what cg_slot_empty waits on until the first prepare
 * replaces it. */
static int open_v2(cg_slot *s, char *err, size_t errlen)
{
    char p[CG_PATH_MAX + 64];
    snprintf(s->dir[0], CG_PATH_MAX, "%s/slot-%u", s->host->mem, s->slot);
    snprintf(s->dir[1], CG_PATH_MAX, "%s/run", s->dir[0]);
    snprintf(s->dir[2], CG_PATH_MAX, "%s/zygote", s->dir[0]);
    if (cgf_mkdir_ok(s->dir[0]) < 0)
        return sbx_fail_errno(err, errlen, "cgroup mkdir %s", s->dir[0]);
    snprintf(p, sizeof p, "%s/cgroup.kill", s->dir[0]);
    if (cgf_write_file(p, "1") < 0)
        return sbx_fail_errno(err, errlen, "cgroup: %s", p);
    snprintf(p, sizeof p, "%s/cgroup.subtree_control", s->dir[0]);
    if (cgf_write_file(p, "+memory +pids") < 0)
        return sbx_fail_errno(err, errlen, "cgroup: enabling controllers in %s", s->dir[0]);
    if (s->host->cpu_share && set_weight(s->dir[0], "cpu.weight", CPU_WEIGHT_V2) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: %s/cpu.weight", s->dir[0]);
    if (cgf_mkdir_ok(s->dir[2]) < 0 || (s->procs_fd[0] = open_in(s->dir[2], "cgroup.procs", O_WRONLY)) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: %s/cgroup.procs", s->dir[2]);
    if (cgf_mkdir_ok(s->dir[1]) < 0 || (s->fd[F_PROCS_READ] = open_in(s->dir[1], ".", O_RDONLY | O_DIRECTORY)) < 0 ||
        (s->fd[F_KILL] = open_in(s->dir[1], "cgroup.kill", O_WRONLY)) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: %s", s->dir[1]);
    return 0;
}

static int open_v1(cg_slot *s, char *err, size_t errlen)
{
    const cg_host *h = s->host;
    const char *bases[4] = { h->mem, h->pids, h->cpu, h->cpuw };
    for (int i = 0; i < 4; i++) {
        if (!bases[i][0])
            continue; /* no cpu hierarchy of its own */
        snprintf(s->dir[i], CG_PATH_MAX, "%s/slot-%u", bases[i], s->slot);
        if (cgf_mkdir_ok(s->dir[i]) < 0)
            return sbx_fail_errno(err, errlen, "cgroup mkdir %s", s->dir[i]);
        if (i == 0)
            continue; /* memory: the runs join it, not the zygote */
        /* The zygote (one thread) joins through "tasks": moving only the
         * calling thread skips the threadgroup lock and the RCU grace
         * period that moving a process through cgroup.procs waits for. */
        s->procs_fd[i] = open_in(s->dir[i], "tasks", O_WRONLY);
        if (s->procs_fd[i] < 0)
            return sbx_fail_errno(err, errlen, "cgroup open %s/tasks", s->dir[i]);
    }
    if (h->cpu_share && set_weight(s->dir[h->cpuw[0] ? 3 : 2], "cpu.shares", CPU_SHARES_V1) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: %s/cpu.shares", s->dir[h->cpuw[0] ? 3 : 2]);
    if (open_files_v1(s, s->fd) < 0)
        return sbx_fail_errno(err, errlen, "cgroup files in %s", s->dir[1]);
    if (cgf_read_u64(s->fd[F_PIDS_MAX], &s->cur_pids) < 0)
        return sbx_fail_errno(err, errlen, "cgroup limits in %s", s->dir[1]);
    /* The slot's own memory cgroup limits nothing (a dead owner's limit
     * would bind the runs' below it): memsw first, it must stay >= the
     * limit. */
    char p[CG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/memory.memsw.limit_in_bytes", s->dir[0]);
    if (h->memsw && cgf_write_file(p, "-1") < 0)
        return sbx_fail_errno(err, errlen, "cgroup: %s", p);
    snprintf(p, sizeof p, "%s/memory.limit_in_bytes", s->dir[0]);
    if (cgf_write_file(p, "-1") < 0)
        return sbx_fail_errno(err, errlen, "cgroup: %s", p);
    if (new_mem_v1(s) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: the runs' memory cgroup under %s", s->dir[0]);
    return 0;
}

int cg_slot_open(const cg_host *h, unsigned slot, cg_slot *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->host = h;
    s->slot = slot;
    s->cpu_fd = s->mem_tasks = -1;
    for (int i = 0; i < 4; i++)
        s->procs_fd[i] = -1;
    for (int i = 0; i < CG_FILES; i++)
        s->fd[i] = -1;
    /* A dead owner may have left processes behind: the slot lock is ours
     * now, so whatever runs here is stale. */
    if ((h->version == CG_V2 ? open_v2(s, err, errlen) : open_v1(s, err, errlen)) < 0 ||
        cg_slot_empty(s, err, errlen) < 0) {
        release(s);
        return -1;
    }
    return 0;
}

void cg_slot_close(cg_slot *s)
{
    if (!s->host)
        return;
    char err[SBX_ERR_LEN];
    cg_slot_empty(s, err, sizeof err);
    release(s);
    /* The leaves before the slot (rmdir wants it childless). */
    if (s->memrun[0])
        rmdir(s->memrun);
    for (int i = 3; i >= 0; i--)
        if (s->dir[i][0])
            rmdir(s->dir[i]);
}

int cg_slot_run_fd(const cg_slot *s)
{
    return s->host->version == CG_V2 ? s->fd[F_PROCS_READ] : s->mem_tasks;
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
    /* Socket buffers are charged apart on v1, and only once a limit is set. */
    return cgf_write_u64(fd[F_TCP_LIMIT], bytes);
}

static int set_memory(cg_slot *s, uint64_t bytes)
{
    if (bytes == s->cur_mem)
        return 0;
    if (set_memory_v1(s, s->fd, bytes) < 0)
        return -1;
    s->cur_mem = bytes;
    return 0;
}

/* v1: what an earlier run may leave charged in the runs' memory cgroup
 * (added to the next limit, so at most this much past it can be used). */
#define MEM_LEFT_MAX (4u << 20)

/* v1: peak and counters reset, then what is left charged is the base. */
static int reset_v1(cg_slot *s)
{
    int *fd = s->fd;
    uint64_t usage = 0;
    if (cgf_read_u64(fd[F_MEM_USAGE], &usage) < 0 || (usage > MEM_LEFT_MAX && new_mem_v1(s) < 0))
        return -1;
    if (cgf_write_str(fd[F_MEM_PEAK], "0") < 0 || cgf_write_str(fd[F_FAILCNT], "0") < 0 || cgf_write_str(fd[F_CPU], "0") < 0 ||
        (fd[F_MEMSW_PEAK] >= 0 && cgf_write_str(fd[F_MEMSW_PEAK], "0") < 0) ||
        (fd[F_MEMSW_FAILCNT] >= 0 && cgf_write_str(fd[F_MEMSW_FAILCNT], "0") < 0))
        return -1;
    if (cgf_read_u64(fd[F_MEM_USAGE], &s->mem_base) < 0)
        return -1;
    if (cgf_read_key(fd[F_OOM], "oom_kill", &s->oom_base) < 0)
        s->oom_base = 0;
    return 0;
}

int cg_slot_prepare(cg_slot *s, const sbx_limits *l, char *err, size_t errlen)
{
    if (s->host->version == CG_V2) {
        if (new_run_v2(s, l) < 0)
            return sbx_fail_errno(err, errlen, "cgroup: making the run's cgroup %s", s->dir[1]);
        return 0;
    }
    if (reset_v1(s) < 0)
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
    *ns = usec * 1000;
    return 0;
}

/* Kills every pid listed in the cgroup's cgroup.procs but `keep`; returns
 * how many it listed. The file is opened anew each time: v1 caches the pid
 * list per open file, so a kept fd would list the processes of its first
 * read. A process our PID namespace cannot see is listed as 0 (v2): it is
 * counted (cgroup.kill reaches it) but never passed to kill(), where 0
 * means our own process group. */
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
                    if (pid > 0)
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
        if (pid > 0)
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
        if ((pid_t)pid != s->keep && pid > 0)
            out[n++] = (pid_t)pid;
        while (*end == '\n')
            end++;
    }
    return n;
}

void cg_slot_kill(cg_slot *s)
{
    if (s->host->version == CG_V2)
        cgf_write_str(s->fd[F_KILL], "1");
    else
        kill_listed(s->fd[F_PROCS_READ], s->keep);
}

int cg_slot_empty(cg_slot *s, char *err, size_t errlen)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (s->host->version == CG_V2 && cgf_write_str(s->fd[F_KILL], "1") < 0)
        return sbx_fail_errno(err, errlen, "cgroup: writing %s/cgroup.kill", s->dir[1]);
    for (;;) {
        /* v2: the kill is sent; this lists who has yet to exit (and kills
         * again, which is harmless). */
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

/* The kernel charges memory to a cgroup in batches of up to 64 pages
 * (MEMCG_CHARGE_BATCH). */
#define CHARGE_BATCH_BYTES (64u * 4096u)

int cg_slot_stats(cg_slot *s, uint64_t floor, cg_mem *m, char *err, size_t errlen)
{
    int *fd = s->fd;
    *m = (cg_mem){ 0 };
    int pfd = fd[F_MEMSW_PEAK] >= 0 ? fd[F_MEMSW_PEAK] : fd[F_MEM_PEAK];
    uint64_t raw;
    if (cgf_read_u64(pfd, &raw) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: reading peak memory in %s", s->dir[0]);
    /* v1: the charge left from before the run is not the run's. The
     * resident set counts shared file pages the limit does not charge, so
     * as a floor it stops at the limit. */
    m->peak = raw > s->mem_base ? raw - s->mem_base : 0;
    uint64_t limit = s->cur_mem - s->mem_base;
    if (m->peak < floor)
        m->peak = floor < limit ? floor : limit;
    if (s->host->version == CG_V1) {
        uint64_t kills = 0, fails = 0, swfails = 0;
        if (cgf_read_key(fd[F_OOM], "oom_kill", &kills) < 0)
            kills = s->oom_base;
        m->oom_kill = m->failed = kills > s->oom_base;
        /* With swap accounting memory+swap is charged first: at equal
         * limits its counter is the one that meets the limit. Some
         * kernels keep neither failcnt; the peak itself then shows the
         * limit met (a charge that does not fit is not made, so the peak
         * stops at most a charge batch short of it). */
        m->reclaimed = (cgf_read_u64(fd[F_FAILCNT], &fails) == 0 && fails > 0) ||
                       (fd[F_MEMSW_FAILCNT] >= 0 && cgf_read_u64(fd[F_MEMSW_FAILCNT], &swfails) == 0 && swfails > 0) ||
                       raw + CHARGE_BATCH_BYTES >= s->cur_mem;
        return 0;
    }
    /* v2: a fresh cgroup, whose memory.events are this run's alone. */
    char ev[1024];
    uint64_t kills = 0, ooms = 0, max = 0;
    if (cgf_read_text(fd[F_OOM], ev, sizeof ev) < 0)
        return sbx_fail_errno(err, errlen, "cgroup: reading %s/memory.events", s->dir[1]);
    cgf_text_key(ev, "oom_kill", &kills);
    cgf_text_key(ev, "oom", &ooms);
    cgf_text_key(ev, "max", &max);
    m->oom_kill = kills > 0;
    m->failed = m->oom_kill || ooms > 0;
    m->reclaimed = m->failed || max > 0;
    return 0;
}
