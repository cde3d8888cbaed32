/* bench_grade.c -- grading a submission whole, beside baselines measured in
 * the same run:
 *
 *   1. `gradeq grade` on 100 tests of a trivial C program (compile step
 *      included) against one compile plus 100 bare vfork+exec+wait runs of
 *      the same binary; the per-test cost is (grade of 100 - grade of 1) /
 *      99, so the CLI's start-up and the compile cancel out (target: within
 *      1.3x of the bare run); beside it, one sbx_run of the binary from the
 *      library (the sandbox's own cost, which a test cannot go below)
 *   2. tests/s of grading jobs (100 tests each) through one gradeq-worker
 *      with 2 threads, beside single-run jobs of /bin/true through it: jobs
 *      of distinct sources (each compiled), then the same jobs again (a
 *      rejudge: the compile cache has them)
 *
 * Rounds alternate the variants, so machine noise hits both; medians are
 * shown. Usage: bench_grade [ROUNDS] (default 5).
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "queue/grade.h"
#include "queue/job.h"
#include "sandbox/sandbox.h"
#include "tests/lib/bench_common.h"
#include "tests/lib/bench_gworker.h"
#include "tests/lib/bench_redis.h"
#include "tests/lib/files.h"

extern char **environ;

#define NTESTS 100
#define NJOBS 8

static const char source[] = "#include <stdio.h>\n"
                             "int main(void) { long a, b; if (scanf(\"%ld %ld\", &a, &b) != 2) return 1;\n"
                             "    printf(\"%ld\\n\", a + b); return 0; }\n";
static char dir[256], bin_gradeq[512];

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

static void put(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        bw_die("writing %s", p);
}

/* Runs argv with stdin from `in` (NULL: /dev/null), stdout and stderr to
 * /dev/null; returns its wall time in us, dies unless it exits 0. */
static double spawn_wait(char *const argv[], const char *in, bool use_vfork)
{
    double t0 = bw_now_us();
    int fd_in = open(in ? in : "/dev/null", O_RDONLY | O_CLOEXEC), fd_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (fd_in < 0 || fd_null < 0)
        bw_die("open %s", in ? in : "/dev/null");
    pid_t pid;
    if (use_vfork) {
        pid = vfork();
        if (pid == 0) {
            dup2(fd_in, 0);
            dup2(fd_null, 1);
            dup2(fd_null, 2);
            execv(argv[0], argv);
            _exit(127);
        }
    } else {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, fd_in, 0);
        posix_spawn_file_actions_adddup2(&fa, fd_null, 1);
        posix_spawn_file_actions_adddup2(&fa, fd_null, 2);
        if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0)
            pid = -1;
        posix_spawn_file_actions_destroy(&fa);
    }
    close(fd_in);
    close(fd_null);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        bw_die("%s failed", argv[0]);
    return bw_now_us() - t0;
}

static double grade(const char *tests)
{
    char t[300], f[300];
    snprintf(t, sizeof t, "%s/%s", dir, tests);
    snprintf(f, sizeof f, "main.c=%s/main.c", dir);
    char *argv[] = { bin_gradeq, "grade", "--tests", t, "--file", f, "--compile", "gcc -O2 -o main main.c", "--",
                     "./main", NULL };
    return spawn_wait(argv, NULL, false);
}

/* One sbx_run of bin (placed in /box) with stdin, in a box kept open. */
static double library_run(sbx_box *box, const char *bin, size_t len, const char *in)
{
    static const char *argv[] = { "./main", NULL };
    sbx_file f = { "main", bin, len, true };
    sbx_spec s = { .argv = argv, .files = &f, .nfiles = 1, .stdin_data = in, .stdin_len = strlen(in) };
    sbx_limits_default(&s.limits);
    sbx_result r;
    double t0 = bw_now_us();
    sbx_run(box, &s, &r);
    double t = bw_now_us() - t0;
    if (r.status != SBX_OK)
        bw_die("library run: %s %s", sbx_status_name(r.status), r.error);
    sbx_result_free(&r);
    return t;
}

static void part1(int rounds)
{
    char src[300], out[300], in[300];
    snprintf(src, sizeof src, "%s/main.c", dir);
    snprintf(out, sizeof out, "%s/main", dir);
    snprintf(in, sizeof in, "%s/t100/1.in", dir);
    char *cc[] = { "gcc", "-O2", "-o", out, src, NULL }, *run[] = { out, NULL };
    double compile[64], bare[64], lib[64], g100[64], g1[64];
    char err[SBX_ERR_LEN];
    sbx_host *host;
    sbx_box *box;
    if (sbx_host_open(&host, NULL, err, sizeof err) < 0 || sbx_box_open(host, &box, err, sizeof err) < 0)
        bw_die("sandbox: %s", err);
    for (int r = 0; r < rounds; r++) {
        compile[r] = spawn_wait(cc, NULL, false);
        char *bin;
        size_t len;
        FILE *fb = fopen(out, "rb");
        static char binbuf[1 << 20];
        if (!fb || (len = fread(binbuf, 1, sizeof binbuf, fb)) == 0)
            bw_die("reading %s", out);
        fclose(fb);
        bin = binbuf;
        double tl = 0;
        for (int i = 0; i < NTESTS; i++)
            tl += library_run(box, bin, len, "1 1\n");
        lib[r] = tl / NTESTS;
        double t0 = bw_now_us();
        for (int i = 0; i < NTESTS; i++)
            spawn_wait(run, in, true);
        bare[r] = (bw_now_us() - t0) / NTESTS;
        g100[r] = grade("t100");
        g1[r] = grade("t1");
    }
    sbx_box_close(box);
    sbx_host_close(host);
    double c = median(compile, rounds), b = median(bare, rounds), a = median(g100, rounds), o = median(g1, rounds);
    double l = median(lib, rounds);
    double per = (a - o) / (NTESTS - 1);
    printf("1. gradeq grade, %d tests of a trivial C program (medians of %d rounds)\n", NTESTS, rounds);
    printf("   %-44s %10.1f ms\n", "baseline: gcc once", c / 1e3);
    printf("   %-44s %10.1f us\n", "baseline: bare vfork+exec+wait, per run", b);
    printf("   %-44s %10.1f ms\n", "baseline: compile + 100 bare runs", (c + NTESTS * b) / 1e3);
    printf("   %-44s %10.1f ms\n", "gradeq grade, 100 tests (compile included)", a / 1e3);
    printf("   %-44s %10.1f ms\n", "gradeq grade, 1 test (start-up + compile)", o / 1e3);
    printf("   %-44s %10.1f us   %.2fx the bare run\n", "the sandbox alone: sbx_run of it, per run", l, l / b);
    printf("   %-44s %10.1f us   %.2fx the bare run (target 1.3x), %.2fx sbx_run\n", "gradeq grade, per test", per,
           per / b, per / l);
    printf("   %-44s %10.1f ms   (paid once per submission)\n", "start-up + compile", (o - per) / 1e3);
}

/* Job k's source differs from the others by a comment. */
static void grading_job(msgpack_sbuffer *sb, const char *id, q_test *tests, int k)
{
    static char *argv[] = { "./main", NULL }, *cc[] = { "gcc", "-O2", "-o", "main", "main.c", NULL };
    char src[sizeof source + 32];
    snprintf(src, sizeof src, "%s/* %d */\n", source, k);
    q_file files[] = { { "main.c", src, strlen(src) } };
    q_grade g = { .tests = tests, .ntests = NTESTS, .has_compile = true, .compile = { .argv = cc, .argc = 5 } };
    q_job j = { .prog = { .argv = argv, .argc = 1, .files = files, .nfiles = 1 }, .grade = &g, .has_id = true };
    snprintf(j.id, sizeof j.id, "%s", id);
    char err[Q_ERR_LEN];
    msgpack_sbuffer_init(sb);
    if (q_job_encode(&j, sb, err, sizeof err) < 0)
        bw_die("encoding a grading job: %s", err);
}

/* Until n results have come on P:results; returns the time it took. */
static double wait_results(bw_follower *f, long n, double t0)
{
    long got = 0;
    while (got < n) {
        long k = bw_follow(f, 1000, n - got, NULL, NULL);
        if (k == 0)
            bw_worker_check_alive();
        got += k;
    }
    return bw_now_us() - t0;
}

/* NJOBS grading jobs TAG-0.., queued at once; the time until all results. */
static double run_jobs(redisContext *c, bw_follower *f, const char *prefix, const char *tag, q_test *tests)
{
    double t0 = bw_now_us();
    for (int k = 0; k < NJOBS; k++) {
        char id[32];
        msgpack_sbuffer sb;
        snprintf(id, sizeof id, "%s-%d", tag, k);
        grading_job(&sb, id, tests, k);
        bw_rdo(c, "XADD %s:jobs * job %b", prefix, sb.data, sb.size);
        msgpack_sbuffer_destroy(&sb);
    }
    return wait_results(f, NJOBS, t0);
}

static void part2(void)
{
    static q_test tests[NTESTS];
    static char ins[NTESTS][32], outs[NTESTS][32];
    for (int i = 0; i < NTESTS; i++) {
        snprintf(ins[i], sizeof ins[i], "%d %d\n", i, i);
        snprintf(outs[i], sizeof outs[i], "%d\n", 2 * i);
        tests[i] = (q_test){ .name = "", .stdin_data = ins[i], .stdin_len = strlen(ins[i]), .expected = outs[i],
                             .expected_len = strlen(outs[i]) };
    }
    const char *prefix = "bgrade";
    redisContext *c = bw_rconnect(), *fc = bw_rconnect();
    bw_fresh_queue(c, prefix);
    bw_follower f;
    bw_follower_init(&f, fc, prefix);
    bw_worker_start(prefix, 2, "bgrade");
    /* Warm up: one job of each kind. */
    bw_prefill(c, prefix, "warm", 0, 1, bw_true_argv, 0);
    wait_results(&f, 1, bw_now_us());
    long singles = NJOBS * NTESTS;
    double t0 = bw_now_us();
    bw_prefill(c, prefix, "single", 0, singles, bw_true_argv, 0);
    double single_us = wait_results(&f, singles, t0);
    double grade_us = run_jobs(c, &f, prefix, "grade", tests);
    double rejudge_us = run_jobs(c, &f, prefix, "rejudge", tests);
    long ok = bw_stat_get(c, prefix, "OK");
    printf("2. one gradeq-worker, 2 threads\n");
    printf("   %-44s %10.0f runs/s\n", "baseline: single-run jobs of /bin/true", singles / (single_us / 1e6));
    printf("   %-44s %10.0f tests/s  %6.1f ms a job (%d jobs of %d tests)\n", "grading jobs, each compiled",
           NJOBS * NTESTS / (grade_us / 1e6), grade_us / 1e3 / NJOBS, NJOBS, NTESTS);
    printf("   %-44s %10.0f tests/s  %6.1f ms a job (compile cache hits)\n", "the same jobs again (rejudge)",
           NJOBS * NTESTS / (rejudge_us / 1e6), rejudge_us / 1e3 / NJOBS);
    if (ok < singles + 1 + 2 * NJOBS)
        bw_die("only %ld results OK of %ld", ok, singles + 1 + 2 * NJOBS);
    bw_worker_stop(c, "bgrade");
    redisFree(c);
    redisFree(fc);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 64)
        rounds = 5;
    const char *bin = getenv("GRADEQ_BIN");
    snprintf(bin_gradeq, sizeof bin_gradeq, "%s/gradeq", bin ? bin : "build");
    snprintf(bw_worker_bin, sizeof bw_worker_bin, "%s/gradeq-worker", bin ? bin : "build");
    if (!tl_mkdtemp(dir, sizeof dir, "bench-grade-"))
        bw_die("mkdtemp %s", dir);
    put("main.c", source);
    char p[512];
    snprintf(p, sizeof p, "%s/t100", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/t1", dir);
    mkdir(p, 0755);
    for (int i = 1; i <= NTESTS; i++) {
        char name[64], in[32], out[32];
        snprintf(in, sizeof in, "%d %d\n", i, i);
        snprintf(out, sizeof out, "%d\n", 2 * i);
        snprintf(name, sizeof name, "t100/%d.in", i);
        put(name, in);
        snprintf(name, sizeof name, "t100/%d.out", i);
        put(name, out);
        if (i == 1) {
            put("t1/1.in", in);
            put("t1/1.out", out);
        }
    }
    printf("bench_grade (the figures of this run: any other load shows in both columns)\n");
    part1(rounds);
    char err[256];
    if (rs_start(&bw_srv, NULL, err, sizeof err) < 0)
        bw_die("redis: %s", err);
    part2();
    rs_destroy(&bw_srv);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
