/* bench_box.c -- what a box costs from its creation to its end, step by
 * step: the steps of one `gradeq run -- /bin/true`, each beside a bare
 * vfork+exec+wait of /bin/true measured interleaved in the same run (so
 * machine noise hits both).
 *
 *   host open        sbx_host_open: its cgroup probe, its seccomp program
 *                    compiled
 *   box open         sbx_box_open: the slot's lock and uid claim, its
 *                    cgroup, its zygote (namespaces, mounts, pivot_root,
 *                    loopback, filter) up to READY
 *   namespaces alone clone with the zygote's namespace flags, _exit, wait:
 *                    creation and teardown with nothing in them
 *   a run            sbx_run of /bin/true in an open box
 *   the reset        the caller's part after a run: /box and /tmp emptied,
 *                    the two directories put back
 *   box close        sbx_box_close: the zygote killed (its namespaces torn
 *                    down), the cgroup let go
 *   the whole box    open, one run, close, as `gradeq run` does in process
 *   the command      `gradeq --version` (process start, dynamic linking)
 *                    and `gradeq run -- /bin/true` as a whole: with its
 *                    holder off (GRADEQ_RUN_HOLD_MS=0: a host and a box
 *                    per command), and served by the holder the command
 *                    before it left (the warm path); these two in loops
 *                    of their own, after the steps
 *
 * Prints a table with medians and ratios to the bare spawn. Timing lives
 * here, never in tests.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"
#include "tests/lib/bench_time.h"

extern char **environ;

#define NS_ALL (CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)

static void die(const char *what, const char *err)
{
    fprintf(stderr, "bench_box: %s: %s\n", what, err);
    exit(1);
}

/* A command, its stdout and stderr to /dev/null, waited for; env NULL:
 * this process's. */
static double spawn_wait(char *const argv[], char *const env[])
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0 || posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) != 0 ||
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0) != 0)
        die("posix_spawn_file_actions", "out of memory");
    double t0 = bm_now_us();
    pid_t pid;
    int st = 0;
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, env ? env : environ) != 0 || waitpid(pid, &st, 0) < 0 || st != 0)
        die(argv[0], "did not exit 0");
    double t = bm_now_us() - t0;
    posix_spawn_file_actions_destroy(&fa);
    return t;
}

static double bare(void)
{
    static char *argv[] = { "/bin/true", NULL };
    return spawn_wait(argv, NULL);
}

static int just_exit(void *arg)
{
    (void)arg;
    _exit(0);
}

static char stack[16384] __attribute__((aligned(16)));

/* Namespaces made and torn down with nothing in them. */
static double ns_only(int flags)
{
    double t0 = bm_now_us();
    pid_t p = clone(just_exit, stack + sizeof stack, flags | SIGCHLD, NULL);
    if (p < 0 || waitpid(p, NULL, 0) < 0)
        die("clone", "namespaces refused");
    return bm_now_us() - t0;
}

static double run_true(sbx_box *b)
{
    static const char *argv[] = { "/bin/true", NULL };
    sbx_spec s = { .argv = argv };
    sbx_limits_default(&s.limits);
    sbx_result r;
    double t0 = bm_now_us();
    if (sbx_run(b, &s, &r) < 0 || r.status != SBX_OK)
        die("run", r.error);
    double t = bm_now_us() - t0;
    sbx_result_free(&r);
    return t;
}

enum {
    S_HOST, S_POLICY, S_CGPROBE, S_BOX, S_LOCK, S_CGOPEN, S_ZYGOTE, S_NS_FRESH, S_RUN, S_RESET, S_CLOSE, S_REAP,
    S_CGCLOSE, S_WHOLE, S_VERSION, S_CMD, S_WARM, S_N
};

static const char *const names[S_N] = {
    [S_HOST] = "host open (sbx_host_open)",
    [S_POLICY] = "  of which: seccomp program (pol_build)",
    [S_CGPROBE] = "  of which: cgroup probe (cg_probe)",
    [S_BOX] = "box open (sbx_box_open)",
    [S_LOCK] = "  of which: slot lock and uid claim",
    [S_CGOPEN] = "  of which: slot cgroup (cg_slot_open)",
    [S_ZYGOTE] = "  of which: zygote to READY (box_start)",
    [S_NS_FRESH] = "namespaces alone: clone PID|NS|NET|IPC|UTS, exit",
    [S_RUN] = "a run of /bin/true (sbx_run)",
    [S_RESET] = "the reset: /box, /tmp wiped and put back",
    [S_CLOSE] = "box close (sbx_box_close)",
    [S_REAP] = "  of which: zygote killed, namespaces down",
    [S_CGCLOSE] = "  of which: slot cgroup let go (cg_slot_close)",
    [S_WHOLE] = "the whole box in process: open, run, close",
    [S_VERSION] = "`gradeq --version` (process start)",
    [S_CMD] = "`gradeq run -- /bin/true`, holder off",
    [S_WARM] = "`gradeq run -- /bin/true`, warm holder",
};

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n < 5)
        n = 5;
    const char *dir = getenv("GRADEQ_BIN") ? getenv("GRADEQ_BIN") : "build";
    char gpath[512];
    snprintf(gpath, sizeof gpath, "%s/gradeq", dir);
    char *version[] = { gpath, "--version", NULL };
    char *cmd[] = { gpath, "run", "--", "/bin/true", NULL };
    char **cold_env = bm_env_holder("0"), **warm_env = bm_env_holder("5000");
    if (!cold_env || !warm_env)
        die("calloc", "out of memory");
    double *t[S_N], *base[S_N];
    for (int s = 0; s < S_N; s++) {
        t[s] = calloc((size_t)n, sizeof(double));
        base[s] = calloc((size_t)n, sizeof(double));
        if (!t[s] || !base[s])
            die("calloc", "out of memory");
    }
    char err[SBX_HOST_ERR_LEN];
    sbx_host_options o = { .require_isolation = true };
    for (int w = 0; w < 5; w++) { /* warm-up: page cache, slot directories */
        sbx_host *h;
        sbx_box *b;
        if (sbx_host_open(&h, &o, err, sizeof err) < 0 || sbx_box_open(h, &b, err, sizeof err) < 0)
            die("warm-up", err);
        run_true(b);
        sbx_box_close(b);
        sbx_host_close(h);
        bare();
        spawn_wait(cmd, NULL);
    }
    for (int i = 0; i < n; i++) {
        sbx_host *h;
        sbx_box *b;
        double t0;

        base[S_HOST][i] = bare();
        t0 = bm_now_us();
        if (sbx_host_open(&h, &o, err, sizeof err) < 0)
            die("host open", err);
        t[S_HOST][i] = bm_now_us() - t0;

        base[S_POLICY][i] = bare();
        struct sock_fprog prog;
        t0 = bm_now_us();
        if (pol_build(&prog, err, sizeof err) < 0)
            die("pol_build", err);
        t[S_POLICY][i] = bm_now_us() - t0;
        free(prog.filter);

        base[S_CGPROBE][i] = bare();
        cg_host cg;
        t0 = bm_now_us();
        cg_probe(&cg, "gradeq");
        t[S_CGPROBE][i] = bm_now_us() - t0;

        base[S_BOX][i] = bare();
        t0 = bm_now_us();
        if (sbx_box_open(h, &b, err, sizeof err) < 0)
            die("box open", err);
        t[S_BOX][i] = bm_now_us() - t0;

        base[S_RUN][i] = bare();
        t[S_RUN][i] = run_true(b);

        base[S_RESET][i] = bare();
        t0 = bm_now_us();
        if (wipe_dir(b->box_fd, err, sizeof err) < 0 || wipe_dir(b->tmp_fd, err, sizeof err) < 0 ||
            box_restore_dirs(b, err, sizeof err) < 0 || box_touch_dirs(b, err, sizeof err) < 0)
            die("reset", err);
        t[S_RESET][i] = bm_now_us() - t0;

        /* The zygote alone: stopped, then started again in the same slot. */
        base[S_REAP][i] = bare();
        t0 = bm_now_us();
        box_stop(b);
        t[S_REAP][i] = bm_now_us() - t0;
        base[S_ZYGOTE][i] = bare();
        t0 = bm_now_us();
        if (box_start(b, err, sizeof err) < 0)
            die("zygote", err);
        t[S_ZYGOTE][i] = bm_now_us() - t0;

        base[S_CLOSE][i] = bare();
        t0 = bm_now_us();
        sbx_box_close(b);
        t[S_CLOSE][i] = bm_now_us() - t0;

        /* The slot's lock and cgroup alone. */
        unsigned slot;
        int claim;
        base[S_LOCK][i] = bare();
        t0 = bm_now_us();
        int lock = host_lock_slot(h, &slot, &claim, err, sizeof err);
        t[S_LOCK][i] = bm_now_us() - t0;
        if (lock < 0)
            die("slot lock", err);
        base[S_CGOPEN][i] = bare();
        cg_slot cs;
        t0 = bm_now_us();
        if (cg_slot_open(&h->cg, slot, &cs, err, sizeof err) < 0)
            die("slot cgroup", err);
        t[S_CGOPEN][i] = bm_now_us() - t0;
        base[S_CGCLOSE][i] = bare();
        t0 = bm_now_us();
        cg_slot_close(&cs);
        t[S_CGCLOSE][i] = bm_now_us() - t0;
        close(lock);
        if (claim >= 0)
            close(claim);

        base[S_WHOLE][i] = bare();
        t0 = bm_now_us();
        if (sbx_box_open(h, &b, err, sizeof err) < 0)
            die("box open", err);
        run_true(b);
        sbx_box_close(b);
        t[S_WHOLE][i] = bm_now_us() - t0;
        sbx_host_close(h);

        base[S_NS_FRESH][i] = bare();
        t[S_NS_FRESH][i] = ns_only(NS_ALL);

        base[S_VERSION][i] = bare();
        t[S_VERSION][i] = spawn_wait(version, NULL);
    }
    /* The command, warm then cold, each loop beside bare spawns only: a
     * box torn down just before (the steps above, a cold command) leaves
     * the kernel its namespaces to clean up on a workqueue, which a warm
     * command would otherwise pay for. */
    for (int i = 0; i < n; i++) {
        base[S_WARM][i] = bare();
        t[S_WARM][i] = spawn_wait(cmd, warm_env);
    }
    for (int i = 0; i < n; i++) {
        base[S_CMD][i] = bare();
        t[S_CMD][i] = spawn_wait(cmd, cold_env);
    }
    printf("\n%-52s %10s %10s %8s\n", "step (median of runs)", "step", "bare", "ratio");
    for (int s = 0; s < S_N; s++) {
        double m = bm_median(t[s], n), b = bm_median(base[s], n);
        printf("%-52s %7.0f us %7.0f us %7.2fx\n", names[s], m, b, m / b);
    }
    printf("(n=%d each; bare = vfork+exec+wait of /bin/true just before the step; target for the last "
           "line: 2.50x)\n", n);
    for (int s = 0; s < S_N; s++) {
        free(t[s]);
        free(base[s]);
    }
    free(cold_env);
    free(warm_env);
    return 0;
}
