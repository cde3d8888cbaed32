/* bench_cgroup.c -- the price of each run's cgroup step, in microseconds,
 * on whichever hierarchy this machine gives (v1 or v2), each beside a
 * baseline measured in the same loop:
 *
 *   1. cg_slot_prepare: v1 resets the slot's counters and writes changed
 *      limits; v2 removes the last run's cgroup and makes the next one
 *      (mkdir, its files opened, limits written)
 *   2. cg_slot_stats after a run (peak, events) and the CPU read
 *   3. v2: the run's first process joining its cgroup (a vfork child
 *      writing "0" to cgroup.procs) vs the same child that does not
 *
 * Medians of N rounds; compare ratios across machines, not microseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

/* vfork + (join) + _exit + wait. */
static double child(int join_fd)
{
    double t0 = now_us();
    pid_t p = vfork();
    if (p == 0) {
        if (join_fd >= 0 && write(join_fd, "0", 1) != 1)
            _exit(1);
        _exit(0);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) < 0 || st != 0) {
        fprintf(stderr, "bench_cgroup: child failed\n");
        exit(1);
    }
    return now_us() - t0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 500;
    char err[SBX_ERR_LEN];
    sbx_host *h;
    sbx_box *b;
    sbx_host_options o = { .require_isolation = true };
    if (sbx_host_open(&h, &o, err, sizeof err) < 0 || sbx_box_open(h, &b, err, sizeof err) < 0) {
        fprintf(stderr, "bench_cgroup: %s\n", err);
        return 1;
    }
    int v2 = h->cg.version == CG_V2;
    sbx_limits l;
    sbx_limits_default(&l);
    double *prep = calloc((size_t)n, sizeof *prep), *stat = calloc((size_t)n, sizeof *stat);
    double *join = calloc((size_t)n, sizeof *join), *plain = calloc((size_t)n, sizeof *plain);
    for (int i = 0; i < n; i++) {
        l.memory_bytes = (i % 2 ? 64ull : 128ull) << 20; /* a limit that changes, as jobs' do */
        double t0 = now_us();
        if (cg_slot_prepare(&b->cg, &l, err, sizeof err) < 0) {
            fprintf(stderr, "bench_cgroup: %s\n", err);
            return 1;
        }
        prep[i] = now_us() - t0;
        plain[i] = child(-1);
        join[i] = v2 ? child(cg_slot_run_fd(&b->cg)) : 0;
        uint64_t peak, ns;
        bool oom, hit;
        t0 = now_us();
        if (cg_slot_cpu_ns(&b->cg, &ns) < 0 || cg_slot_stats(&b->cg, 0, &peak, &oom, &hit, err, sizeof err) < 0) {
            fprintf(stderr, "bench_cgroup: %s\n", err);
            return 1;
        }
        stat[i] = now_us() - t0;
        if (cg_slot_empty(&b->cg, err, sizeof err) < 0) {
            fprintf(stderr, "bench_cgroup: %s\n", err);
            return 1;
        }
    }
    printf("\ncgroup %s, per run (median of %d)\n", v2 ? "v2" : "v1", n);
    printf("%-58s %8.0f us\n", v2 ? "1. prepare: rmdir + mkdir + open + limits" : "1. prepare: reset counters + limits",
           median(prep, n));
    printf("%-58s %8.0f us\n", "2. stats: peak, events, CPU", median(stat, n));
    if (v2) {
        double j = median(join, n), p = median(plain, n);
        printf("%-58s %8.0f us %8.0f us %6.2fx\n", "3. vfork child joining the run's cgroup vs not", j, p, j / p);
    }
    sbx_box_close(b);
    sbx_host_close(h);
    return 0;
}
