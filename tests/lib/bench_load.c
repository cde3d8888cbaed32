/* bench_load.c -- bench_worker's machine-load accounting from /proc: CPU
 * ticks of the machine (/proc/stat), of this process tree and of the
 * redis-server (/proc/PID/stat), and a scan of /proc at both ends of a run
 * that says how much of the foreign load was kernel threads and long-lived
 * processes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/bench_common.h"
#include "tests/lib/bench_load.h"

bw_load_row bw_loads[BW_MAX_LOADS];
int bw_nloads;
long bw_clk_tck;

/* utime+stime of pid in ticks, and cutime+cstime in *children (if not
 * NULL); 0 if unreadable. */
unsigned long long bw_proc_ticks(pid_t pid, unsigned long long *children)
{
    if (children)
        *children = 0;
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    /* p + 2 is field 3 (state); utime is field 14. */
    unsigned long long v[4] = { 0 };
    char *save = NULL, *tok = strtok_r(p + 2, " ", &save);
    for (int field = 3; tok && field <= 17; field++, tok = strtok_r(NULL, " ", &save))
        if (field >= 14)
            v[field - 14] = strtoull(tok, NULL, 10);
    if (children)
        *children = v[2] + v[3];
    return v[0] + v[1];
}

void bw_snap(bw_cpu_snap *s)
{
    s->t = bw_now_us();
    unsigned long long f[8] = { 0 };
    FILE *fp = fopen("/proc/stat", "re");
    if (!fp || fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4],
                      &f[5], &f[6], &f[7]) != 8)
        bw_die("cannot read /proc/stat");
    fclose(fp);
    s->busy = f[0] + f[1] + f[2] + f[5] + f[6];
    s->steal = f[7];
    s->total = s->busy + f[3] + f[4] + f[7];
    s->redis = bw_srv.pid ? bw_proc_ticks(bw_srv.pid, NULL) : 0;
    s->self = bw_proc_ticks(getpid(), &s->children);
    s->ours = s->self + s->children + s->redis;
}

bw_load bw_load_between(const bw_cpu_snap *a, const bw_cpu_snap *b)
{
    double total = (double)(b->total - a->total);
    if (total <= 0)
        total = 1;
    double busy = (double)(b->busy - a->busy), ours = (double)(b->ours - a->ours);
    double other = busy - ours;
    return (bw_load){ (b->t - a->t) / 1e6, 100 * busy / total, 100 * (double)(b->steal - a->steal) / total,
                      other > 0 ? 100 * other / total : 0 };
}

/* Machine CPU per job between two snapshots, in us. */
double bw_cpu_per_job(const bw_cpu_snap *a, const bw_cpu_snap *b, long jobs)
{
    return jobs > 0 ? (double)(b->busy - a->busy) * 1e6 / (double)bw_clk_tck / (double)jobs : 0;
}

/* Who else ran: every process outside this bench's tree, by /proc scan at
 * both ends of a run (one that came and went between is not seen). */
typedef struct pent {
    int pid, ppid;
    unsigned long long start, ticks;
    bool kthread, ours;
} pent;

typedef struct pscan {
    int n;
    pent e[4096];
} pscan;

static pscan scan_begin, scan_end;

static void scan_procs(pscan *s)
{
    s->n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *de;
    char path[64], buf[2048];
    while ((de = readdir(d)) && s->n < (int)(sizeof s->e / sizeof s->e[0])) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        char *p = n > 0 ? (buf[n] = 0, strrchr(buf, ')')) : NULL;
        if (!p)
            continue;
        pent *e = &s->e[s->n];
        memset(e, 0, sizeof *e);
        e->pid = atoi(de->d_name);
        char *save = NULL, *tok = strtok_r(p + 2, " ", &save);
        for (int field = 3; tok && field <= 22; field++, tok = strtok_r(NULL, " ", &save)) {
            unsigned long long v = strtoull(tok, NULL, 10);
            if (field == 4)
                e->ppid = (int)v;
            else if (field == 9)
                e->kthread = (v & 0x00200000) != 0; /* PF_KTHREAD */
            else if (field == 14 || field == 15)
                e->ticks += v;
            else if (field == 22)
                e->start = v;
        }
        s->n++;
    }
    closedir(d);
    int self = getpid();
    for (int i = 0; i < s->n; i++) {
        int pid = s->e[i].pid;
        for (int hops = 0; hops < 64 && pid > 1 && pid != self; hops++) {
            int next = 0;
            for (int k = 0; k < s->n; k++)
                if (s->e[k].pid == pid) {
                    next = s->e[k].ppid;
                    break;
                }
            pid = next;
        }
        s->e[i].ours = pid == self;
    }
}

void bw_window_begin(bw_cpu_snap *s0)
{
    scan_procs(&scan_begin);
    bw_snap(s0);
}

void bw_window_end(const char *what, const bw_cpu_snap *s0, bw_cpu_snap *out)
{
    bw_cpu_snap s1;
    bw_snap(&s1);
    if (out)
        *out = s1;
    scan_procs(&scan_end);
    if (bw_nloads == BW_MAX_LOADS)
        return;
    double kt = 0, pr = 0, total = (double)(s1.total - s0->total);
    for (int i = 0; i < scan_end.n; i++) {
        const pent *b = &scan_end.e[i];
        if (b->ours)
            continue;
        unsigned long long before = 0;
        for (int k = 0; k < scan_begin.n; k++)
            if (scan_begin.e[k].pid == b->pid && scan_begin.e[k].start == b->start) {
                before = scan_begin.e[k].ticks;
                break;
            }
        double d = b->ticks >= before ? (double)(b->ticks - before) : 0;
        *(b->kthread ? &kt : &pr) += d;
    }
    snprintf(bw_loads[bw_nloads].what, sizeof bw_loads[bw_nloads].what, "%s", what);
    bw_loads[bw_nloads].l = bw_load_between(s0, &s1);
    bw_loads[bw_nloads].kthreads = total > 0 ? 100 * kt / total : 0;
    bw_loads[bw_nloads].procs = total > 0 ? 100 * pr / total : 0;
    bw_nloads++;
}
