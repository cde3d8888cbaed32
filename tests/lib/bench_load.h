/* bench_load.h -- machine-load accounting for bench_worker, from /proc:
 * CPU snapshots (/proc/stat, this process tree, redis-server), the load
 * between two of them, and the per-run "windows" whose rows make the
 * machine-load table (busy, steal, other = CPU outside this bench's tree,
 * split by a /proc scan into kernel threads and other processes).
 */
#ifndef GRADEQ_TESTS_BENCH_LOAD_H
#define GRADEQ_TESTS_BENCH_LOAD_H

#include <sys/types.h>

typedef struct bw_cpu_snap {
    double t;                          /* us */
    unsigned long long busy, total, steal; /* /proc/stat, all CPUs, ticks */
    unsigned long long ours;           /* this tree: self + reaped children + redis-server */
    unsigned long long redis;          /* redis-server alone */
    unsigned long long self, children; /* this process; its reaped children */
} bw_cpu_snap;

typedef struct bw_load {
    double secs, busy, steal, other; /* % of all CPUs */
} bw_load;

/* One row of the machine-load table: a run's window. */
typedef struct bw_load_row {
    char what[48];
    bw_load l;
    double kthreads, procs; /* % of all CPUs, seen by the scans */
} bw_load_row;

#define BW_MAX_LOADS 32
extern bw_load_row bw_loads[BW_MAX_LOADS]; /* in the order the runs ended */
extern int bw_nloads;

extern long bw_clk_tck; /* sysconf(_SC_CLK_TCK), set by main */

/* utime+stime of pid in ticks, and cutime+cstime in *children (if not
 * NULL); 0 if unreadable. */
unsigned long long bw_proc_ticks(pid_t pid, unsigned long long *children);
/* The machine, this process, its reaped children and bw_srv's server now. */
void bw_snap(bw_cpu_snap *s);
bw_load bw_load_between(const bw_cpu_snap *a, const bw_cpu_snap *b);
/* Machine CPU per job between two snapshots, in us. */
double bw_cpu_per_job(const bw_cpu_snap *a, const bw_cpu_snap *b, long jobs);

/* A run's window: bw_window_begin snapshots (and scans /proc) into s0;
 * bw_window_end adds the row `what` to bw_loads (while there is room) and
 * gives its end snapshot in *out (if not NULL). */
void bw_window_begin(bw_cpu_snap *s0);
void bw_window_end(const char *what, const bw_cpu_snap *s0, bw_cpu_snap *out);

#endif
