/* cgroup_probe.c -- which cgroup hierarchy to use, found at start-up.
 *
 * v2 is chosen when its unified hierarchy holds the memory and pids
 * controllers (current distributions); else v1 when memory, pids and
 * cpuacct hierarchies are mounted (hybrid layouts, whose v2 mount holds
 * no controller). Our subtree `name` is made in each.
 *
 * v2 follows systemd's delegation rules rather than fighting them. The
 * cgroup we may arrange ("top") is the nearest delegated one at or above
 * ours (a unit with Delegate=yes, or a scope made by systemd-run -p
 * Delegate=yes), else the root of our cgroup namespace (a container with a
 * private one, or a host without systemd). Under systemd in a cgroup that
 * is not delegated (a login session) we ask systemd for a transient scope
 * with Delegate=yes and move into it. Then every process in top goes into
 * the leaf <name>-supervisor, top hands memory and pids (and cpu, where it
 * has it) down, and <name> below it holds the slots. What was done is kept in cg_host.note (one
 * line for the start-up log), what failed in cg_host.why (the `isolation`
 * report).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/cgroup_file.h"
#include "sandbox/internal.h"

typedef struct mounts {
    char mem[CG_PATH_MAX], pids[CG_PATH_MAX], cpu[CG_PATH_MAX], cpuw[CG_PATH_MAX], v2[CG_PATH_MAX];
} mounts;

static void find_mounts(mounts *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *dash = strstr(line, " - ");
        if (!dash)
            continue;
        char mp[CG_PATH_MAX], fstype[32], src[64], opts[1024] = "";
        if (sscanf(line, "%*s %*s %*s %*s %511s", mp) != 1)
            continue;
        if (sscanf(dash + 3, "%31s %63s %1023s", fstype, src, opts) < 2)
            continue;
        if (strcmp(fstype, "cgroup2") == 0 && !m->v2[0])
            snprintf(m->v2, sizeof m->v2, "%s", mp);
        if (strcmp(fstype, "cgroup") != 0)
            continue;
        if (cgf_has_token(opts, "memory", ',') && !m->mem[0])
            snprintf(m->mem, sizeof m->mem, "%s", mp);
        if (cgf_has_token(opts, "pids", ',') && !m->pids[0])
            snprintf(m->pids, sizeof m->pids, "%s", mp);
        if (cgf_has_token(opts, "cpuacct", ',') && !m->cpu[0])
            snprintf(m->cpu, sizeof m->cpu, "%s", mp);
        if (cgf_has_token(opts, "cpu", ',') && !m->cpuw[0])
            snprintf(m->cpuw, sizeof m->cpuw, "%s", mp);
    }
    fclose(f);
}

static int probe_v1(cg_host *h, const mounts *m, const char *name)
{
    if (!m->mem[0] || !m->pids[0] || !m->cpu[0])
        return sbx_fail(h->why, sizeof h->why, "cgroup v1: memory, pids or cpuacct hierarchy not mounted");
    const char *roots[3] = { m->mem, m->pids, m->cpu };
    char *dst[3] = { h->mem, h->pids, h->cpu };
    for (int i = 0; i < 3; i++) {
        int n = snprintf(dst[i], CG_PATH_MAX, "%s/%s", roots[i], name);
        if (n < 0 || n >= CG_PATH_MAX)
            return sbx_fail(h->why, sizeof h->why, "cgroup v1: path too long");
        if (cgf_mkdir_ok(dst[i]) < 0)
            return sbx_fail_errno(h->why, sizeof h->why, "cgroup v1: mkdir %s", dst[i]);
    }
    char p[CG_PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/memory.memsw.limit_in_bytes", h->mem);
    h->memsw = access(p, F_OK) == 0;
    h->version = CG_V1;
    /* The cpu controller: co-mounted with cpuacct (its slots are then the
     * same cgroups), or a hierarchy of its own. */
    if (!m->cpuw[0]) {
        snprintf(h->cpu_why, sizeof h->cpu_why, "cgroup v1: the cpu controller is not mounted");
    } else if (strcmp(m->cpuw, m->cpu) == 0) {
        h->cpu_share = true;
    } else if (snprintf(h->cpuw, CG_PATH_MAX, "%s/%s", m->cpuw, name) >= CG_PATH_MAX || cgf_mkdir_ok(h->cpuw) < 0) {
        sbx_fail_errno(h->cpu_why, sizeof h->cpu_why, "cgroup v1: mkdir %s", h->cpuw);
        h->cpuw[0] = 0;
    } else {
        h->cpu_share = true;
    }
    return 0;
}

/* Our own cgroup in the unified hierarchy ("0::/path"). */
static int own_v2_path(char *out, size_t size)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[1024];
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, size, "%s", line + 3);
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

/* The v2 code needs memory.peak (5.19); cgroup.kill (5.14) and
 * CLONE_INTO_CGROUP (5.7) come with it. */
static bool kernel_at_least(unsigned major, unsigned minor, char *release, size_t size)
{
    struct utsname u;
    unsigned a = 0, b = 0;
    if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &a, &b) != 2)
        return false;
    snprintf(release, size, "%s", u.release);
    return a > major || (a == major && b >= minor);
}

/* Whether systemd delegated this cgroup (it marks it trusted.delegate=1,
 * or user.delegate=1 for a user manager). */
static bool marked_delegated(const char *dir)
{
    static const char *const names[] = { "trusted.delegate", "user.delegate" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char v[8] = "";
        ssize_t n = getxattr(dir, names[i], v, sizeof v - 1);
        if (n > 0 && v[0] == '1')
            return true;
    }
    return false;
}

/* The cgroup that is ours to arrange: the root of our cgroup namespace
 * when we are at it (a container's own tree, or a host's root), else the
 * nearest delegated cgroup at or above ours, never the root above a
 * delegated one. 0 and top set, or -1 when none is. */
static int find_top(const char *mnt, const char *own, char *top, size_t size)
{
    if (strcmp(own, "/") == 0) {
        snprintf(top, size, "%s", mnt);
        return 0;
    }
    char rel[CG_PATH_MAX];
    snprintf(rel, sizeof rel, "%s", own);
    for (char *slash; rel[0] && strcmp(rel, "/") != 0; *slash = 0) {
        snprintf(top, size, "%s%s", mnt, rel);
        if (marked_delegated(top))
            return 0;
        slash = strrchr(rel, '/');
    }
    return -1;
}

/* Asks systemd for a transient scope with Delegate=yes holding this
 * process (what `systemd-run --scope -p Delegate=yes` does), then waits
 * until the kernel shows us in it. */
static int ask_systemd_scope(cg_host *h, const char *name, char *own, size_t ownsize)
{
    char unit[64], pid[24];
    snprintf(unit, sizeof unit, "%s-%ld.scope", name, (long)getpid());
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    char *argv[] = {
        "busctl", "--quiet", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
        "org.freedesktop.systemd1.Manager", "StartTransientUnit", "ssa(sv)a(sa(sv))", unit, "fail", "4",
        "PIDs", "au", "1", pid, "Delegate", "b", "true", "CollectMode", "s", "inactive-or-failed",
        "Description", "s", "gradeq sandbox", "0", NULL,
    };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t child;
    int rc = posix_spawnp(&child, "busctl", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: %s is not delegated to us, and busctl (to ask systemd for a scope)", own);
    }
    int st;
    while (waitpid(child, &st, 0) < 0)
        if (errno != EINTR)
            return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: waiting for busctl");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: %s is not delegated to us, and systemd refused a delegated scope", own);
    /* The job moves us when systemd runs it, just after it answered. */
    for (int i = 0; i < 5000; i++) {
        char now[CG_PATH_MAX];
        if (own_v2_path(now, sizeof now) == 0 && strcmp(now, own) != 0) {
            snprintf(own, ownsize, "%s", now);
            snprintf(h->note, sizeof h->note, "moved into transient scope %s (Delegate=yes, by systemd)", unit);
            return 0;
        }
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    }
    return sbx_fail(h->why, sizeof h->why, "cgroup v2: systemd made %s but did not move us into it within 5 s", unit);
}

/* Moves every process of dir into its leaf; returns how many it moved.
 * pids are whole processes: moving one takes all its threads. */
static int move_all(const char *dir, const char *leaf_procs)
{
    char p[CG_PATH_MAX + 64], buf[4096];
    snprintf(p, sizeof p, "%s/cgroup.procs", dir);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int to = open(leaf_procs, O_WRONLY | O_CLOEXEC);
    if (to < 0) {
        close(fd);
        return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    int moved = 0;
    buf[n > 0 ? n : 0] = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (cgf_write_str(to, line) == 0 || errno == ESRCH)
            moved++;
    close(to);
    return moved;
}

/* Whether every word of want ("+a +b") is among the words of the file. */
static bool has_all(const char *path, const char *want)
{
    char ctl[256] = "";
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    int rc = cgf_read_text(fd, ctl, sizeof ctl);
    close(fd);
    if (rc < 0)
        return false;
    for (const char *w = want; w; w = strchr(w, ' '), w = w ? w + 1 : NULL) {
        char name[32];
        if (sscanf(w, "+%31[a-z]", name) != 1 || !cgf_has_token(ctl, name, ' '))
            return false;
    }
    return true;
}

/* The controllers (want, "+memory +pids ...") in top's children: v2 lets a
 * cgroup hand them down only when it holds no process itself (the root
 * excepted), so whatever runs in top (us, and in a delegated unit or a
 * container whoever started us) goes into the leaf <name>-supervisor
 * first. */
static int enable_in_top(cg_host *h, const char *top, const char *name, const char *want)
{
    char sub[CG_PATH_MAX + 64];
    snprintf(sub, sizeof sub, "%s/cgroup.subtree_control", top);
    if (has_all(sub, want))
        return 0;
    char leaf[CG_PATH_MAX + 80], procs[CG_PATH_MAX + 100];
    snprintf(leaf, sizeof leaf, "%s/%s-supervisor", top, name);
    snprintf(procs, sizeof procs, "%s/cgroup.procs", leaf);
    /* Processes forking while we move them: a few passes. */
    for (int pass = 0; pass < 20; pass++) {
        if (cgf_write_file(sub, want) == 0) {
            if (pass > 0) {
                size_t at = strlen(h->note);
                snprintf(h->note + at, sizeof h->note - at, "%sprocesses of %s moved into %s-supervisor",
                         at ? "; " : "", top, name);
            }
            return 0;
        }
        if (errno != EBUSY)
            break;
        if (cgf_mkdir_ok(leaf) < 0 || move_all(top, procs) < 0)
            return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: moving the processes of %s into %s", top, leaf);
    }
    return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: enabling controllers in %s", top);
}

static int probe_v2(cg_host *h, const mounts *m, const char *name)
{
    char p[CG_PATH_MAX + 64], ctl[256] = "", release[65] = "";
    snprintf(p, sizeof p, "%s/cgroup.controllers", m->v2);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || cgf_read_text(fd, ctl, sizeof ctl) < 0) {
        if (fd >= 0)
            close(fd);
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: no controllers");
    }
    close(fd);
    if (!cgf_has_token(ctl, "memory", ' ') || !cgf_has_token(ctl, "pids", ' '))
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: memory and pids controllers not available (%s)",
                        ctl[0] ? "held by v1" : "none");
    if (!kernel_at_least(5, 19, release, sizeof release))
        return sbx_fail(h->why, sizeof h->why, "cgroup v2 needs Linux 5.19 or newer (memory.peak), this is %s",
                        release[0] ? release : "unknown");
    char own[CG_PATH_MAX], top[CG_PATH_MAX + 8];
    if (own_v2_path(own, sizeof own) < 0)
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: cannot read /proc/self/cgroup");
    if (find_top(m->v2, own, top, sizeof top) < 0) {
        /* Not delegated. Under systemd the cgroup is systemd's, and a
         * process must not rearrange it: ask systemd for one of our own.
         * Without systemd (a container sharing the host's cgroup
         * namespace) our own cgroup is the best there is. */
        if (access("/run/systemd/system", F_OK) == 0 && ask_systemd_scope(h, name, own, sizeof own) < 0)
            return -1;
        snprintf(top, sizeof top, "%s%s", m->v2, own);
    }
    /* cpu where top has it: each slot's weight (see cgroup.c). Without it
     * the runs still have memory and pids, and the result says which
     * protection is missing. */
    snprintf(p, sizeof p, "%s/cgroup.controllers", top);
    h->cpu_share = has_all(p, "+cpu");
    if (!h->cpu_share)
        snprintf(h->cpu_why, sizeof h->cpu_why, "cgroup v2: no cpu controller in %.200s", top);
    if (h->cpu_share && enable_in_top(h, top, name, "+memory +pids +cpu") < 0) {
        snprintf(h->cpu_why, sizeof h->cpu_why, "%.200s", h->why);
        h->why[0] = 0;
        h->cpu_share = false;
    }
    if (!h->cpu_share && enable_in_top(h, top, name, "+memory +pids") < 0)
        return -1;
    int n = snprintf(h->mem, CG_PATH_MAX, "%s/%s", top, name);
    if (n < 0 || n >= CG_PATH_MAX)
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: path too long");
    if (cgf_mkdir_ok(h->mem) < 0)
        return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: mkdir %s", h->mem);
    snprintf(p, sizeof p, "%s/cgroup.subtree_control", h->mem);
    if (h->cpu_share && cgf_write_file(p, "+memory +pids +cpu") < 0) {
        sbx_fail_errno(h->cpu_why, sizeof h->cpu_why, "cgroup v2: enabling cpu in %s", h->mem);
        h->cpu_share = false;
    }
    if (!h->cpu_share && cgf_write_file(p, "+memory +pids") < 0)
        return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: enabling controllers in %s", h->mem);
    snprintf(h->pids, CG_PATH_MAX, "%s", h->mem);
    snprintf(h->cpu, CG_PATH_MAX, "%s", h->mem);
    h->version = CG_V2;
    return 0;
}

int cg_probe(cg_host *h, const char *name)
{
    memset(h, 0, sizeof *h);
    mounts m;
    find_mounts(&m);
    char why2[SBX_ERR_LEN] = "cgroup v2: not mounted";
    if (m.v2[0]) {
        if (probe_v2(h, &m, name) == 0)
            return 0;
        snprintf(why2, sizeof why2, "%s", h->why);
    }
    if (probe_v1(h, &m, name) == 0)
        return 0;
    char why1[SBX_ERR_LEN];
    snprintf(why1, sizeof why1, "%s", h->why);
    snprintf(h->why, sizeof h->why, "%.120s; %.120s", why2, why1);
    h->version = CG_NONE;
    return 0;
}
