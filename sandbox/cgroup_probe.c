/* cgroup_probe.c -- which cgroup hierarchy to use, found at start-up.
 *
 * v2 is chosen when its unified hierarchy holds the memory and pids
 * controllers (current distributions); else v1 when memory, pids and
 * cpuacct hierarchies are mounted (this project's VMs: a hybrid layout whose
 * v2 mount holds nothing). Our subtree is made in each (`name`), and on v2
 * the controllers are enabled for it, moving this process into a leaf of
 * its own first when its cgroup has to hand them down (what systemd's
 * Delegate= expects). What failed is kept in cg_host.why for the
 * `isolation` report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/cgroup_file.h"
#include "sandbox/internal.h"

typedef struct mounts {
    char mem[CG_PATH_MAX], pids[CG_PATH_MAX], cpu[CG_PATH_MAX], v2[CG_PATH_MAX];
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

static int probe_v2(cg_host *h, const mounts *m, const char *name)
{
    char p[CG_PATH_MAX + 64], ctl[256] = "";
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
    char own[CG_PATH_MAX];
    if (own_v2_path(own, sizeof own) < 0)
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: cannot read /proc/self/cgroup");
    char parent[CG_PATH_MAX + 8];
    snprintf(parent, sizeof parent, "%s%s", m->v2, strcmp(own, "/") == 0 ? "" : own);
    snprintf(p, sizeof p, "%s/cgroup.subtree_control", parent);
    if (cgf_write_file(p, "+memory +pids") < 0 && errno == EBUSY) {
        /* No processes in a cgroup whose children have controllers: move
         * ourselves into a leaf first (what systemd's Delegate= expects). */
        char self[CG_PATH_MAX + 80];
        snprintf(self, sizeof self, "%s/%s-supervisor", parent, name);
        char procs[CG_PATH_MAX + 100];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", self);
        if (cgf_mkdir_ok(self) < 0 || cgf_write_file(procs, "0") < 0)
            return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: cannot leave %s", parent);
        if (cgf_write_file(p, "+memory +pids") < 0)
            return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: enabling controllers in %s", parent);
    }
    int n = snprintf(h->mem, CG_PATH_MAX, "%s/%s", parent, name);
    if (n < 0 || n >= CG_PATH_MAX)
        return sbx_fail(h->why, sizeof h->why, "cgroup v2: path too long");
    if (cgf_mkdir_ok(h->mem) < 0)
        return sbx_fail_errno(h->why, sizeof h->why, "cgroup v2: mkdir %s", h->mem);
    snprintf(p, sizeof p, "%s/cgroup.subtree_control", h->mem);
    if (cgf_write_file(p, "+memory +pids") < 0)
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
