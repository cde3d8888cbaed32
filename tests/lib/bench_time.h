/* bench_time.h -- the clock and the order statistics the sandbox's
 * benchmarks (bench_sandbox, bench_box) report with, and the environment
 * they time `gradeq run` without its holder in. */
#ifndef GRADEQ_TESTS_BENCH_TIME_H
#define GRADEQ_TESTS_BENCH_TIME_H

/* CLOCK_MONOTONIC, in us. */
double bm_now_us(void);
/* The median of v[0..n-1] (n > 0), sorting v. */
double bm_median(double *v, int n);
/* The p-quantile (0..1) of v[0..n-1] (n > 0), sorting v. */
double bm_pct(double *v, int n, double p);

/* This process's environment with GRADEQ_RUN_HOLD_MS=ms in place of any
 * value it had (malloc'd array, NULL-terminated; NULL without memory):
 * "0" for no holder, a time for the warm path. */
char **bm_env_holder(const char *ms);

#endif
