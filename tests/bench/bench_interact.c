/* bench_interact.c -- one small message's round trip through a sandboxed
 * program and its sandboxed interactor (wk_run_pair: direct pipes, both on
 * one CPU), against a bare two-process pipe ping-pong of the same programs
 * with no sandbox, measured in the same run, pinned to one CPU and not.
 * The programs are tests/progs/pingpong (one read and one write syscall per
 * message each way). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "tests/lib/files.h"
#include "worker/engine/interact.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
}

/* Two plain processes wired by two pipes. */
static double bare(const char *prog, long n, bool pinned)
{
    int a[2], b[2];
    if (pipe(a) < 0 || pipe(b) < 0)
        return -1;
    char count[32];
    snprintf(count, sizeof count, "%ld", n);
    double t0 = now_s();
    pid_t asker = fork();
    if (asker == 0) {
        if (pinned)
            pin(0);
        dup2(b[0], 0);
        dup2(a[1], 1);
        close(a[0]); close(a[1]); close(b[0]); close(b[1]);
        execl(prog, prog, "ask", count, (char *)NULL);
        _exit(127);
    }
    pid_t answerer = fork();
    if (answerer == 0) {
        if (pinned)
            pin(0);
        dup2(a[0], 0);
        dup2(b[1], 1);
        close(a[0]); close(a[1]); close(b[0]); close(b[1]);
        execl(prog, prog, "answer", (char *)NULL);
        _exit(127);
    }
    close(a[0]); close(a[1]); close(b[0]); close(b[1]);
    int st1, st2;
    waitpid(asker, &st1, 0);
    waitpid(answerer, &st2, 0);
    if (!WIFEXITED(st1) || WEXITSTATUS(st1) || !WIFEXITED(st2) || WEXITSTATUS(st2))
        fprintf(stderr, "bare ping-pong failed\n");
    return now_s() - t0;
}

static double sandboxed(sbx_box *b1, sbx_box *b2, const sbx_file *f, long n)
{
    char count[32];
    snprintf(count, sizeof count, "%ld", n);
    const char *ask[] = { "./pingpong", "ask", count, NULL }, *answer[] = { "./pingpong", "answer", NULL };
    sbx_spec prog = { .argv = ask, .files = f, .nfiles = 1 }, inter = { .argv = answer, .files = f, .nfiles = 1 };
    sbx_limits_default(&prog.limits);
    prog.limits.cpu_ms = prog.limits.wall_ms = 60000;
    inter.limits = prog.limits;
    wk_pair p;
    double t0 = now_s();
    wk_run_pair(b1, &prog, b2, &inter, NULL, &p);
    double t = now_s() - t0;
    if (strcmp(p.status, "OK") != 0)
        fprintf(stderr, "sandboxed ping-pong: %s %s\n", p.status, p.message);
    wk_pair_free(&p);
    return t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 50000;
    const char *dir = getenv("GRADEQ_PROGS") ? getenv("GRADEQ_PROGS") : "build/progs";
    char prog[512], err[SBX_ERR_LEN];
    snprintf(prog, sizeof prog, "%s/pingpong", dir);
    size_t len;
    char *bytes = tl_read_file(prog, &len);
    sbx_host *h;
    sbx_box *b1, *b2;
    sbx_host_options o = { .require_isolation = true };
    if (!bytes || sbx_host_open(&h, &o, err, sizeof err) < 0 || sbx_box_open(h, &b1, err, sizeof err) < 0 ||
        sbx_box_open(h, &b2, err, sizeof err) < 0) {
        fprintf(stderr, "bench_interact: %s\n", bytes ? err : "build/progs/pingpong missing");
        return 1;
    }
    sbx_file f = { "pingpong", bytes, len, true };
    double bu[3], bp[3], sb[3];
    for (int i = 0; i < 3; i++) {
        bu[i] = bare(prog, n, false);
        bp[i] = bare(prog, n, true);
        sb[i] = sandboxed(b1, b2, &f, n);
    }
    qsort(bu, 3, sizeof *bu, cmp);
    qsort(bp, 3, sizeof *bp, cmp);
    qsort(sb, 3, sizeof *sb, cmp);
    double per_bu = bu[1] / n * 1e6, per_bp = bp[1] / n * 1e6, per_sb = sb[1] / n * 1e6;
    printf("\ninteractive round trip, median of 3 x %ld messages\n%-60s %10s %10s %8s\n", n, "", "gradeq", "baseline", "ratio");
    printf("%-60s %7.2f us %7.2f us %7.2fx   (target <= 2x)\n", "program+interactor, sandboxed, vs bare pipes, one CPU",
           per_sb, per_bp, per_sb / per_bp);
    printf("%-60s %7.2f us %7.2f us %7.2fx\n", "program+interactor, sandboxed, vs bare pipes, any CPU", per_sb, per_bu,
           per_sb / per_bu);
    printf("%-60s %10s %7.2f us\n", "(bare, one CPU vs any CPU)", "", per_bp);
    sbx_box_close(b1);
    sbx_box_close(b2);
    sbx_host_close(h);
    free(bytes);
    return 0;
}
