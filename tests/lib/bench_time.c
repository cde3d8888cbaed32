/* bench_time.c -- the benchmarks' clock, order statistics and the
 * environment of a `gradeq run` without its holder (bench_time.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/lib/bench_time.h"

double bm_now_us(void)
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

double bm_pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[(int)(p * (n - 1))];
}

double bm_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

char **bm_env_holder(const char *ms)
{
    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    /* The variable lives in the same block as the array: one free, and
     * each call's environment its own. */
    char **env = calloc(n + 2 + 64 / sizeof *env, sizeof *env);
    if (!env)
        return NULL;
    char *var = (char *)(env + n + 2);
    (void)snprintf(var, 64, "GRADEQ_RUN_HOLD_MS=%s", ms);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "GRADEQ_RUN_HOLD_MS=", 19) != 0)
            env[k++] = environ[i];
    env[k] = var;
    return env;
}
