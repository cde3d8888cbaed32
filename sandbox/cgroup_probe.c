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
 * with Delegate=yes holding this process (systemd_scope.c: named by the
 * kernel, never by a pid of ours) and move into it. Then every process in
 * top goes into the leaf <name>-supervisor, top hands memory and pids (and
 * cpu, where it has it) down, and <name> below it holds the slots. What was
 * done is kept in cg_host.note (one line for the start-up log; what it did
 * to other processes in cg_host.others as well), what failed
 * in cg_host.why (the `isolation` report, with how to start instead).
 *
 * Paths: /proc/self/cgroup and the cgroup2 mount's root (mountinfo) are
 * both relative to our cgroup namespace; our cgroup is the mount point
 * plus its path below the mount's root. A mount whose root is not at or
 * above our cgroup ("/.." under a private cgroup namespace with the host's
 * tree bound in) does not show our cgroup at all: refused, never guessed.
 *
 * PID namespaces: a process listed in a cgroup.procs that our PID
 * namespace cannot see reads as pid 0 (v2), and 0 written back would mean
 * ourselves: such entries are never moved, and a top that holds one
 * cannot hand controllers down (whoever started us in the namespace
 * shares our cgroup): refused with how to start instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/cgroup_file.h"
#include "sandbox/internal.h"

/* A cgroup hierarchy's mount: where, and which cgroup (in our cgroup
 * namespace) it shows as its root. */
typedef struct mnt {
    char at[CG_PATH_MAX];
    char root[CG_PATH_MAX];
} mnt;

typedef struct mounts {
    mnt mem, pids, cpu, cpuw, v2;
} mounts;

/* How to get full isolation where the cgroup cannot be had. */
#define HOW_TO_START "; start it under systemd-run --scope -p Delegate=yes, in a unit with Delegate=yes or a private cgroup namespace, or with --require-isolation no"

static void keep(mnt *m, const char *at, const char *root)
{
    if (m->at[0])
        return;
    snprintf(m->at, sizeof m->at, "%s", at);
    snprintf(m->root, sizeof m->root, "%s", root);
}

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
        char root[CG_PATH_MAX], mp[CG_PATH_MAX], fstype[32], src[64], opts[1024] = "";
        if (sscanf(line, "%*s %*s %*s %511s %511s", root, mp) != 2)
            continue;
        if (sscanf(dash + 3, "%31s %63s %1023s", fstype, src, opts) < 2)
            continue;
        if (strcmp(fstype, "cgroup2") == 0)
            keep(&m->v2, mp, root);
        if (strcmp(fstype, "cgroup") != 0)
            continue;
        if (cgf_has_token(opts, "memory", ','))
            keep(&m->mem, mp, root);
        if (cgf_has_token(opts, "pids", ','))
            keep(&m->pids, mp, root);
        if (cgf_has_token(opts, "cpuacct", ','))
            keep(&m->cpu, mp, root);
        if (cgf_has_token(opts, "cpu", ','))
            keep(&m->cpuw, mp, root);
    }
    fclose(f);
}

/* Our own cgroup in the hierarchy of `controller` (v1), or in the unified
 * one (controller ""): "ID:controllers:/path" in /proc/self/cgroup. */
static int own_path(const char *controller, char *out, size_t size)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[1024];
    int rc = -1;
    while (rc < 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
        if (!path)
            continue;
        *ctl++ = 0;
        *path++ = 0;
        bool match = controller[0] ? cgf_has_token(ctl, controller, ',') : strcmp(line, "0") == 0 && !ctl[0];
        if (match) {
            snprintf(out, size, "%s", path);
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

static int own_v2_path(char *out, size_t size)
{
    return own_path("", out, size);
}

/* The directory of cgroup `cg` (a path in our cgroup namespace) in the
 * mount m; -1 when the mount does not show it. */
static int cg_dir(const mnt *m, const char *cg, char *out, size_t size)
{
    const char *root = m->root, *rest;
    size_t n = strlen(root);
    if (strcmp(root, "/") == 0)
        rest = strcmp(cg, "/") == 0 ? "" : cg;
    else if (strncmp(root, "/..", 3) != 0 && strncmp(cg, root, n) == 0 && (cg[n] == '/' || cg[n] == 0))
        rest = cg + n;
    else
        return -1;
    int k = snprintf(out, size, "%s%s", m->at, rest);
    return k < 0 || (size_t)k >= size ? -1 : 0;
}

/* v1: our subtree `name` under our own cgroup in each hierarchy, so that
 * what limits the cgroup we were started in (a container's) holds our
 * jobs too. */
static int probe_v1(cg_host *h, const mounts *m, const char *name)
{
    if (!m->mem.at[0] || !m->pids.at[0] || !m->cpu.at[0])
        return sbx_fail(h->why, sizeof h->why, "cgroup v1: memory, pids or cpuacct hierarchy not mounted");
    const mnt *mnts[3] = { &m->mem, &m->pids, &m->cpu };
    static const char *const ctl[3] = { "memory", "pids", "cpuacct" };
    char *dst[3] = { h->mem, h->pids, h->cpu };
    for (int i = 0; i < 3; i++) {
        char own[CG_PATH_MAX], dir[CG_PATH_MAX];
        if (own_path(ctl[i], own, sizeof own) < 0)
            return sbx_fail(h->why, sizeof h->why, "cgroup v1: /proc/self/cgroup has no %s hierarchy", ctl[i]);
        if (cg_dir(mnts[i], own, dir, sizeof dir) < 0)
            return sbx_fail(h->why, sizeof h->why,
                            "cgroup v1: the %s mount at %s (its root %s) does not show our cgroup %s: another "
                            "cgroup namespace's tree; mount our own, or start with --require-isolation no",
                            ctl[i], mnts[i]->at, mnts[i]->root, own);
        int n = snprintf(dst[i], CG_PATH_MAX, "%s/%s", dir, name);
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
     * same cgroups), or a hierarchy of its own, where our subtree is under
     * our own cgroup as above. */
    char own[CG_PATH_MAX], dir[CG_PATH_MAX];
    if (!m->cpuw.at[0]) {
        snprintf(h->cpu_why, sizeof h->cpu_why, "cgroup v1: the cpu controller is not mounted");
    } else if (strcmp(m->cpuw.at, m->cpu.at) == 0) {
        h->cpu_share = true;
    } else if (own_path("cpu", own, sizeof own) < 0 || cg_dir(&m->cpuw, own, dir, sizeof dir) < 0) {
        snprintf(h->cpu_why, sizeof h->cpu_why, "cgroup v1: the cpu mount at %.100s does not show our cgroup",
                 m->cpuw.at);
    } else if (snprintf(h->cpuw, CG_PATH_MAX, "%s/%s", dir, name) >= CG_PATH_MAX || cgf_mkdir_ok(h->cpuw) < 0) {
        sbx_fail_errno(h->cpu_why, sizeof h->cpu_why, "cgroup v1: mkdir %s", h->cpuw);
        h->cpuw[0] = 0;
    } else {
        h->cpu_share = true;
    }
    return 0;
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
 * nearest delegated cgroup at or above ours that the mount shows, never
 * the root above a delegated one. 0 and top set, or -1 when none is. */
static int find_top(const mounts *m, const char *own, char *top, size_t size)
{
    if (strcmp(own, "/") == 0)
        return cg_dir(&m->v2, own, top, size);
    char rel[CG_PATH_MAX];
    snprintf(rel, sizeof rel, "%s", own);
    for (char *slash; rel[0] && strcmp(rel, "/") != 0; *slash = 0) {
        if (cg_dir(&m->v2, rel, top, size) < 0)
            return -1;
        if (marked_delegated(top))
            return 0;
        slash = strrchr(rel, '/');
    }
    return -1;
}

/* Asks systemd for a transient scope with Delegate=yes holding this
 * process, then waits until the kernel shows us in it. The scope's name
 * is unique on the machine: a pid of ours alone is not, in a PID
 * namespace. */
static int ask_systemd_scope(cg_host *h, const char *name, char *own, size_t ownsize)
{
    char tag[48], unit[128], err[SBX_ERR_LEN];
    sbx_self_id(tag, sizeof tag);
    snprintf(unit, sizeof unit, "%.60s-%s.scope", name, tag);
    if (sdscope_start(unit, err, sizeof err) < 0)
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: %s is not delegated to us, and %s" HOW_TO_START, own, err);
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

/* Moves every process of dir that our PID namespace sees into its leaf;
 * returns how many of them other than this one it moved (-1: dir or the
 * leaf unreadable), and in *foreign how many it cannot see (pid 0: writing
 * that would move ourselves, not them). pids are whole processes: moving
 * one takes all its threads. */
static int move_all(const char *dir, const char *leaf_procs, int *foreign)
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
    if (n < 0) {
        close(to);
        return -1;
    }
    char self[24];
    snprintf(self, sizeof self, "%d", (int)getpid());
    int moved = 0;
    *foreign = 0;
    buf[n] = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        if (strcmp(line, "0") == 0)
            ++*foreign;
        else if ((cgf_write_str(to, line) == 0 || errno == ESRCH) && strcmp(line, self) != 0)
            moved++;
    }
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
    int others = 0;
    for (int pass = 0; pass < 20; pass++) {
        if (cgf_write_file(sub, want) == 0) {
            if (pass > 0) {
                size_t at = strlen(h->note);
                snprintf(h->note + at, sizeof h->note - at, "%sprocesses of %s moved into %s-supervisor",
                         at ? "; " : "", top, name);
            }
            if (others)
                snprintf(h->others, sizeof h->others, "%d other process%s of %s moved into %s-supervisor", others,
                         others == 1 ? "" : "es", top, name);
            return 0;
        }
        if (errno != EBUSY)
            break;
        int foreign, moved;
        if (cgf_mkdir_ok(leaf) < 0 || (moved = move_all(top, procs, &foreign)) < 0)
            return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: moving the processes of %s into %s", top, leaf);
        if (foreign)
            return sbx_fail(h->why, sizeof h->why,
                            "cgroup v2: %s also holds %d process%s outside our PID namespace (who started us in it), "
                            "which we cannot move into a leaf" HOW_TO_START,
                            top, foreign, foreign == 1 ? "" : "es");
        others += moved;
    }
    return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: enabling controllers in %s", top);
}

/* -1 with *ours set when v2 holds the controllers (so v1 cannot) but is
 * not usable: its reason is the one to give. */
static int probe_v2(cg_host *h, const mounts *m, const char *name, bool *ours)
{
    char p[CG_PATH_MAX + 64], ctl[256] = "", release[65] = "";
    snprintf(p, sizeof p, "%s/cgroup.controllers", m->v2.at);
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
    *ours = true;
    if (!kernel_at_least(5, 19, release, sizeof release))
        return sbx_fail(h->why, sizeof h->why, "cgroup v2 needs Linux 5.19 or newer (memory.peak), this is %s",
                        release[0] ? release : "unknown");
    char own[CG_PATH_MAX], top[CG_PATH_MAX + 8];
    if (own_v2_path(own, sizeof own) < 0)
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: cannot read /proc/self/cgroup");
    if (cg_dir(&m->v2, own, top, sizeof top) < 0)
        return sbx_fail(h->why, sizeof h->why,
                        "cgroup v2: the mount at %s (its root %s) does not show our cgroup %s: another cgroup "
                        "namespace's tree" HOW_TO_START, m->v2.at, m->v2.root, own);
    if (find_top(m, own, top, sizeof top) < 0) {
        /* Not delegated. Under systemd the cgroup is systemd's, and a
         * process must not rearrange it: ask systemd for one of our own.
         * Without systemd (a container sharing the host's cgroup
         * namespace) our own cgroup is the best there is. */
        if (access("/run/systemd/system", F_OK) == 0 && ask_systemd_scope(h, name, own, sizeof own) < 0)
            return -1;
        if (cg_dir(&m->v2, own, top, sizeof top) < 0)
            return sbx_fail(h->why, sizeof h->why, "cgroup v2: the mount at %s does not show our cgroup %s", m->v2.at, own);
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
    char why2[CG_WHY_LEN] = "cgroup v2: not mounted";
    if (m.v2.at[0]) {
        bool ours = false;
        if (probe_v2(h, &m, name, &ours) == 0)
            return 0;
        if (ours) {
            h->version = CG_NONE;
            return 0;
        }
        snprintf(why2, sizeof why2, "%s", h->why);
    }
    if (probe_v1(h, &m, name) == 0)
        return 0;
    char why1[CG_WHY_LEN];
    snprintf(why1, sizeof why1, "%s", h->why);
    snprintf(h->why, sizeof h->why, "%.200s; %.200s", why2, why1);
    h->version = CG_NONE;
    return 0;
}
