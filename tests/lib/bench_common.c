/* bench_common.c -- bench_worker's shared basics: the private redis-server,
 * the clock, and bw_die, the one way out when a run cannot be done.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tests/lib/bench_common.h"
#include "tests/lib/bench_gworker.h"

rs_server bw_srv;

double bw_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void bw_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_worker: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    bw_worker_kill();
    rs_destroy(&bw_srv);
    exit(1);
}
