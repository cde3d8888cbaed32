/* bench_sandbox.c -- the sandbox's costs, each beside a baseline measured
 * in the same run (variants interleaved, so machine noise hits both).
 *
 *   1. full-isolation run of /bin/true from the library vs a bare
 *      vfork+exec+wait of it
 *   2. `gradeq run -- /bin/true` as a whole command vs the bare spawn,
 *      served by the holder the first command left, and with the holder
 *      off (2b: GRADEQ_RUN_HOLD_MS=0, a host and a box per command; in a
 *      loop of its own after row 2's, beside bare spawns of its own)
 *   3. 1 GiB of stdout captured vs the same stream read into nothing
 *   4. stdout and stderr flooding at once vs one stream
 *   5. a flood against a 1 MiB cap: bytes kept, bytes read past the cap
 *   6. how far past cpu_ms and wall_ms the kill lands
 *   7. a box rebuild: a run that leaves a socket in flight vs one that
 *      leaves nothing (same program, tests/progs/sock_left)
 *   8. how many runs of the hostile programs cost a rebuild
 *   9. the per-run cgroup step: v1 resets the slot's counters and writes
 *      changed limits; v2 removes the last run's cgroup and makes the next
 *      (mkdir, files, limits); then the accounting read after a run, and
 *      on v2 the run's first process joining its cgroup (a vfork child
 *      writing "0" to cgroup.procs) and born in it (clone3 with
 *      CLONE_INTO_CGROUP), each vs a vfork child that does neither
 *  10. the box's two directories themselves, per run: put back after it
 *      (flags, attributes, owner and mode looked at, only what differs
 *      written) and their times set as the next starts; once with nothing
 *      to undo, once after everything a program can change was changed
 *  11. PIDs: what a fresh PID namespace per run would add to a spawn
 *      (clone with CLONE_NEWPID vs a bare vfork, both exec /bin/true; a
 *      run would also need an init of its own and a /proc of its own,
 *      not counted), beside what the sandbox does instead: one write of
 *      the namespace's ns_last_pid after each run
 *  12. how often a run wakes the box's threads (the readers and the
 *      watchdog: each wake-up is a hand-off, and an interrupt to another
 *      CPU, on the run's path), counted from their voluntary context
 *      switches: runs of a program that prints a line and ends at once,
 *      beside runs of one that lives past the readers' first look
 *  13. runs back to back, as a grading's tests are, of a program that
 *      reads its stdin and writes it back: the zygote moved to the CPU of
 *      the thread that runs the box (as the sandbox does) vs left where
 *      the scheduler wakes it (on another, idle CPU: each hand-off then an
 *      interrupt between CPUs); blocks of 20 runs, alternating
 *
 * Prints a table with medians and ratios. Timing lives here, never in tests.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "sandbox/zygote.h"
#include "tests/lib/bench_time.h"
#include "tests/lib/files.h"

extern char **environ;

/* Bare: vfork + exec + wait, optionally reading stdout into nothing, or
 * (store) into a fresh mapping the way the sandbox's reader does. */
static double bare_spawn_store(char *const argv[], bool drain, bool store, size_t *bytes);

static double bare_spawn(char *const argv[], bool drain, size_t *bytes)
{
    return bare_spawn_store(argv, drain, false, bytes);
}

static double bare_spawn_store(char *const argv[], bool drain, bool store, size_t *bytes)
{
    int p[2] = { -1, -1 };
    if (drain && pipe(p) < 0)
        return -1;
    double t0 = bm_now_us();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (drain) {
        posix_spawn_file_actions_adddup2(&fa, p[1], 1);
        posix_spawn_file_actions_addclose(&fa, p[0]);
    }
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0)
        return -1;
    posix_spawn_file_actions_destroy(&fa);
    if (drain) {
        close(p[1]);
        static char buf[65536];
        size_t cap = (size_t)1 << 31;
        char *dst = store ? mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                          : MAP_FAILED;
        if (dst != MAP_FAILED)
            madvise(dst + (4u << 20), cap - (4u << 20), MADV_HUGEPAGE);
        ssize_t n;
        *bytes = 0;
        while ((n = read(p[0], dst != MAP_FAILED ? dst + *bytes : buf, 65536)) > 0)
            *bytes += (size_t)n;
        if (dst != MAP_FAILED)
            munmap(dst, cap);
        close(p[0]);
    }
    waitpid(pid, NULL, 0);
    return bm_now_us() - t0;
}

/* A run of tests/progs/NAME with up to two arguments, as ./prog in /box;
 * its time in us, or -1 if the program is missing. */
static double prog_time(sbx_box *b, const char *name, const char *a1, const char *a2)
{
    size_t len;
    char *bytes = tl_read_prog(name, &len);
    if (!bytes)
        return -1;
    const char *argv[] = { "./prog", a1, a2, NULL };
    sbx_file f = { "prog", bytes, len, true };
    sbx_spec s = { .argv = argv, .files = &f, .nfiles = 1 };
    sbx_limits_default(&s.limits);
    s.limits.memory_bytes = 64 << 20;
    s.limits.processes = 32;
    s.limits.cpu_ms = 500;
    s.limits.wall_ms = 1500;
    sbx_result r;
    double t0 = bm_now_us();
    sbx_run(b, &s, &r);
    double t = bm_now_us() - t0;
    sbx_result_free(&r);
    free(bytes);
    return t;
}

static double sbx_time(sbx_box *b, const char *const *argv, const sbx_limits *l, sbx_result *keep)
{
    sbx_spec s = { .argv = argv, .limits = *l };
    sbx_result r;
    double t0 = bm_now_us();
    if (sbx_run(b, &s, &r) < 0) {
        fprintf(stderr, "run failed: %s\n", r.error);
        exit(1);
    }
    double t = bm_now_us() - t0;
    if (keep)
        *keep = r;
    else
        sbx_result_free(&r);
    return t;
}

static int child_exit(void)
{
    return 0;
}

static char child_stack[16384] __attribute__((aligned(16)));

/* vfork + (join the run's cgroup, directory fd cg) + _exit + wait; or with
 * born_in, clone3 into it + _exit + wait. */
static double child(int cg, bool born_in)
{
    double t0 = bm_now_us();
    pid_t p = born_in ? zy_clone_into(child_exit, child_stack, sizeof child_stack, cg) : vfork();
    if (p == 0) {
        int procs = cg >= 0 ? openat(cg, "cgroup.procs", O_WRONLY) : -1;
        if (cg >= 0 && (procs < 0 || write(procs, "0", 1) != 1))
            _exit(1);
        _exit(0);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) < 0 || st != 0) {
        fprintf(stderr, "bench: child failed\n");
        exit(1);
    }
    return bm_now_us() - t0;
}

/* 7. Between runs, so nothing else holds the slot's cgroup. */
static void cgroup_step(sbx_host *h, sbx_box *b, int n)
{
    if (h->cg.version == CG_NONE)
        return;
    bool v2 = h->cg.version == CG_V2;
    char err[SBX_ERR_LEN];
    sbx_limits l;
    sbx_limits_default(&l);
    double *prep = calloc((size_t)n, sizeof *prep), *stat = calloc((size_t)n, sizeof *stat);
    double *join = calloc((size_t)n, sizeof *join), *plain = calloc((size_t)n, sizeof *plain);
    double *born = calloc((size_t)n, sizeof *born);
    for (int i = 0; i < n; i++) {
        l.memory_bytes = (i % 2 ? 64ull : 128ull) << 20; /* limits change, as jobs' do */
        double t0 = bm_now_us();
        if (cg_slot_prepare(&b->cg, &l, err, sizeof err) < 0) {
            fprintf(stderr, "bench: %s\n", err);
            exit(1);
        }
        prep[i] = bm_now_us() - t0;
        plain[i] = child(-1, false);
        join[i] = v2 ? child(cg_slot_run_fd(&b->cg), false) : 0;
        born[i] = v2 ? child(cg_slot_run_fd(&b->cg), true) : 0;
        uint64_t ns;
        cg_mem mem;
        t0 = bm_now_us();
        if (cg_slot_cpu_ns(&b->cg, &ns) < 0 || cg_slot_stats(&b->cg, 0, &mem, err, sizeof err) < 0 ||
            (stat[i] = bm_now_us() - t0, cg_slot_empty(&b->cg, err, sizeof err) < 0)) {
            fprintf(stderr, "bench: %s\n", err);
            exit(1);
        }
    }
    printf("%-52s %10.0f us %12s %8s   (n=%d)\n", v2 ? "9a. cgroup v2 per run: rmdir, mkdir, files, limits" : "9a. cgroup v1 per run: reset counters, limits",
           bm_median(prep, n), "-", "-", n);
    printf("%-52s %10.0f us %12s %8s\n", "9b. accounting read after a run", bm_median(stat, n), "-", "-");
    if (v2) {
        double j = bm_median(join, n), p = bm_median(plain, n);
        printf("%-52s %10.0f us %10.0f us %7.2fx\n", "9c. vfork child joining the run's cgroup vs not", j, p, j / p);
        double c3 = bm_median(born, n);
        printf("%-52s %10.0f us %10.0f us %7.2fx\n", "9d. clone3 child born in the run's cgroup vs vfork", c3, p, c3 / p);
    }
    free(born);
    free(prep);
    free(stat);
    free(join);
    free(plain);
}

/* What box_attrs plants, done here through the box's own fd. */
static void spoil_box_dir(sbx_box *b)
{
    static const struct {
        uint32_t version;
        struct { uint16_t tag, perm; uint32_t id; } e[5];
    } acl = { 2, { { 1, 7, UINT32_MAX }, { 2, 7, 4242 }, { 4, 5, UINT32_MAX }, { 0x10, 7, UINT32_MAX },
                   { 0x20, 5, UINT32_MAX } } };
    int flags = FS_NOATIME_FL | FS_NODUMP_FL;
    struct timespec old[2] = { { 981158400, 0 }, { 981158400, 0 } };
    if (fsetxattr(b->box_fd, "user.gradeq", "x", 1, 0) < 0 && errno != EOPNOTSUPP)
        perror("bench: user xattr");
    if (fsetxattr(b->box_fd, "system.posix_acl_access", &acl, sizeof acl, 0) < 0 ||
        fsetxattr(b->box_fd, "system.posix_acl_default", &acl, sizeof acl, 0) < 0 ||
        ioctl(b->box_fd, FS_IOC_SETFLAGS, &flags) < 0 || futimens(b->box_fd, old) < 0 || fchmod(b->box_fd, 0) < 0)
        perror("bench: spoiling /box");
}

static void dirs_step(sbx_box *b, int n)
{
    char err[SBX_ERR_LEN];
    double *clean = calloc((size_t)n, sizeof *clean), *spoiled = calloc((size_t)n, sizeof *spoiled);
    for (int i = 0; clean && spoiled && i < n; i++) {
        double t0 = bm_now_us();
        if (box_restore_dirs(b, err, sizeof err) < 0 || box_touch_dirs(b, err, sizeof err) < 0)
            fprintf(stderr, "bench: %s\n", err);
        clean[i] = bm_now_us() - t0;
        spoil_box_dir(b);
        t0 = bm_now_us();
        if (box_restore_dirs(b, err, sizeof err) < 0 || box_touch_dirs(b, err, sizeof err) < 0)
            fprintf(stderr, "bench: %s\n", err);
        spoiled[i] = bm_now_us() - t0;
    }
    if (clean && spoiled) {
        printf("%-52s %10.1f us %12s %8s   (n=%d; p90 %.1f us)\n", "10a. /box, /tmp themselves: nothing to undo",
               bm_median(clean, n), "-", "-", n, bm_pct(clean, n, 0.9));
        printf("%-52s %10.1f us %12s %8s   (mode, ACLs, attribute, flags, times undone; p90 %.1f us)\n",
               "10b. /box, /tmp themselves: after all was changed", bm_median(spoiled, n), "-", "-", bm_pct(spoiled, n, 0.9));
    }
    free(clean);
    free(spoiled);
}

static int exec_true(void *arg)
{
    (void)arg;
    execl("/bin/true", "/bin/true", (char *)NULL);
    _exit(127);
}

/* /bin/true by clone(CLONE_VM|CLONE_VFORK), in a new PID namespace or not. */
static double spawn_true(bool newpid)
{
    double t0 = bm_now_us();
    pid_t p = clone(exec_true, child_stack + sizeof child_stack,
                    CLONE_VM | CLONE_VFORK | SIGCHLD | (newpid ? CLONE_NEWPID : 0), NULL);
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) < 0 || st != 0) {
        perror("bench: clone /bin/true");
        exit(1);
    }
    return bm_now_us() - t0;
}

/* Median of n writes of ns_last_pid, timed by a child in a PID namespace
 * of its own (the file acts on the writer's namespace). */
static double last_pid_write(int n)
{
    int p[2];
    double med = -1;
    if (pipe(p) < 0)
        return -1;
    pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
    if (pid == 0) {
        double *t = calloc((size_t)n, sizeof *t);
        int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
        for (int i = 0; t && fd >= 0 && i < n; i++) {
            double t0 = bm_now_us();
            if (pwrite(fd, "1", 1, 0) != 1)
                _exit(1);
            t[i] = bm_now_us() - t0;
        }
        double m = t && fd >= 0 ? bm_median(t, n) : -1;
        _exit(write(p[1], &m, sizeof m) == sizeof m ? 0 : 1);
    }
    close(p[1]);
    if (pid > 0 && read(p[0], &med, sizeof med) != sizeof med)
        med = -1;
    close(p[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return med;
}

static void pid_step(int n)
{
    double *bare = calloc((size_t)n, sizeof *bare), *ns = calloc((size_t)n, sizeof *ns);
    for (int i = 0; bare && ns && i < n; i++) {
        bare[i] = spawn_true(false);
        ns[i] = spawn_true(true);
    }
    if (bare && ns)
        printf("%-52s %10.0f us %10.0f us %7.2fx   (+%.0f us a run before its init and /proc; n=%d)\n",
               "11a. spawn in a new PID namespace vs not", bm_median(ns, n), bm_median(bare, n),
               bm_median(ns, n) / bm_median(bare, n), bm_median(ns, n) - bm_median(bare, n), n);
    printf("%-52s %10.1f us %12s %8s   (what the sandbox pays instead, once a run)\n",
           "11b. the PID counter put back (ns_last_pid)", last_pid_write(n), "-", "-");
    free(bare);
    free(ns);
}

/* Voluntary context switches of this process's threads named name. */
static long switches_of(const char *name)
{
    long sum = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], text[4096], want[64];
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        FILE *f = e->d_name[0] == '.' ? NULL : fopen(path, "r");
        if (!f)
            continue;
        size_t got = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[got] = 0;
        snprintf(want, sizeof want, "Name:\t%s\n", name);
        const char *sw = strstr(text, "\nvoluntary_ctxt_switches:");
        if (strncmp(text, want, strlen(want)) == 0 && sw)
            sum += atol(sw + strlen("\nvoluntary_ctxt_switches:"));
    }
    if (d)
        closedir(d);
    return sum;
}

/* Wake-ups per run of the box's readers (both) and watchdog over n runs
 * of argv. */
static void wakes(sbx_box *b, const char *const *argv, int n, double *readers, double *wd)
{
    sbx_limits l;
    sbx_limits_default(&l);
    long r0 = switches_of("gradeq-stdout") + switches_of("gradeq-stderr"), w0 = switches_of("gradeq-watchdog");
    for (int i = 0; i < n; i++)
        sbx_time(b, argv, &l, NULL);
    *readers = (double)(switches_of("gradeq-stdout") + switches_of("gradeq-stderr") - r0) / n;
    *wd = (double)(switches_of("gradeq-watchdog") - w0) / n;
}

static void wakes_step(sbx_box *b, int n)
{
    const char *quick[] = { "/bin/echo", "a line", NULL };
    const char *slow[] = { "/bin/sh", "-c", "echo a line; exec sleep 0.01", NULL };
    double qr, qw, sr, sw;
    wakes(b, quick, n, &qr, &qw);
    wakes(b, slow, n / 5 > 20 ? n / 5 : 20, &sr, &sw);
    printf("%-52s %9.2f/run %9.2f/run %8s   (readers, then watchdog; a run of 10 ms: %.2f and %.2f)\n",
           "12. the box's threads woken by a quick run", qr, qw, "-", sr, sw);
}

/* Row 13's two placements of the zygote. */
static void zygote_placed(sbx_box *b, bool follows)
{
    b->zygote_stays = !follows;
    if (follows)
        return;
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) < 0 || sched_setaffinity(b->zygote, sizeof all, &all) < 0) {
        perror("bench: zygote's affinity");
        exit(1);
    }
    b->zygote_cpu = -1;
}

static void follow_step(sbx_box *b, int n)
{
    const char *argv[] = { "/bin/cat", NULL };
    sbx_spec s = { .argv = argv, .stdin_data = "1 1\n", .stdin_len = 4 };
    sbx_limits_default(&s.limits);
    double *on = calloc((size_t)n, sizeof *on), *off = calloc((size_t)n, sizeof *off);
    if (!on || !off) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i += 20)
        for (int k = 0; k < 2; k++) {
            zygote_placed(b, k == 0);
            for (int j = i; j < i + 20 && j < n; j++) {
                sbx_result r;
                double t0 = bm_now_us();
                if (sbx_run(b, &s, &r) < 0 || r.status != SBX_OK || r.stdout_len != 4) {
                    fprintf(stderr, "bench: cat: %s %s\n", sbx_status_name(r.status), r.error);
                    exit(1);
                }
                (k == 0 ? on : off)[j] = bm_now_us() - t0;
                sbx_result_free(&r);
            }
        }
    zygote_placed(b, true);
    double a = bm_median(on, n), o = bm_median(off, n);
    printf("%-52s %10.0f us %10.0f us %7.2fx   (n=%d each; p90 %.0f / %.0f us)\n",
           "13. back to back: zygote on the caller's CPU vs not", a, o, a / o, n, bm_pct(on, n, 0.9),
           bm_pct(off, n, 0.9));
    free(on);
    free(off);
}

/* A command (argv[0] its path), its stderr to /dev/null, waited for. */
static double cmd_time(char *const argv[], char *const env[])
{
    int fd = open("/dev/null", O_WRONLY);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    double t0 = bm_now_us();
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, env) == 0)
        waitpid(pid, NULL, 0);
    double t = bm_now_us() - t0;
    posix_spawn_file_actions_destroy(&fa);
    close(fd);
    return t;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 500;
    const char *gradeq = getenv("GRADEQ_BIN") ? getenv("GRADEQ_BIN") : "build";
    char gpath[512];
    snprintf(gpath, sizeof gpath, "%s/gradeq", gradeq);
    char err[SBX_ERR_LEN];
    sbx_host *h;
    sbx_box *b;
    sbx_host_options o = { .require_isolation = true };
    if (sbx_host_open(&h, &o, err, sizeof err) < 0 || sbx_box_open(h, &b, err, sizeof err) < 0) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    sbx_limits l;
    sbx_limits_default(&l);
    const char *true_argv[] = { "/bin/true", NULL };
    char *bare_true[] = { "/bin/true", NULL };
    char *cmd[] = { gpath, "run", "--", "/bin/true", NULL };
    double *a = calloc((size_t)n, sizeof *a), *c = calloc((size_t)n, sizeof *c), *d = calloc((size_t)n, sizeof *d),
           *d0 = calloc((size_t)n, sizeof *d0);
    char **cold_env = bm_env_holder("0"), **warm_env = bm_env_holder("5000");
    if (!a || !c || !d || !d0 || !cold_env || !warm_env) {
        fprintf(stderr, "bench: out of memory\n");
        return 1;
    }
    size_t bytes;
    for (int i = 0; i < 20; i++) {
        sbx_time(b, true_argv, &l, NULL);
        bare_spawn(bare_true, false, &bytes);
    }
    int ncmd = n / 5 > 20 ? n / 5 : 20;
    for (int i = 0; i < n; i++) {
        a[i] = bare_spawn(bare_true, false, &bytes);
        c[i] = sbx_time(b, true_argv, &l, NULL);
        if (i < ncmd)
            d[i] = cmd_time(cmd, warm_env);
    }
    /* 2b in a loop of its own, beside bare spawns (b0): the namespaces a
     * cold command leaves the kernel to clean up would slow the warm
     * commands of row 2 beside it. */
    double *b0 = calloc((size_t)ncmd, sizeof *b0);
    if (!b0) {
        fprintf(stderr, "bench: out of memory\n");
        return 1;
    }
    for (int i = 0; i < ncmd; i++) {
        b0[i] = bare_spawn(bare_true, false, &bytes);
        d0[i] = cmd_time(cmd, cold_env);
    }
    /* Row 2 beside the bare spawns of its own iterations (the first ncmd;
     * bm_median sorts, so it is taken before row 1's median of all n). */
    double bare_cmd = bm_median(a, ncmd);
    double bare = bm_median(a, n), full = bm_median(c, n), whole = bm_median(d, ncmd), whole0 = bm_median(d0, ncmd),
           bare0 = bm_median(b0, ncmd);
    printf("\n%-52s %12s %12s %8s\n", "what (median of runs)", "gradeq", "baseline", "ratio");
    printf("%-52s %10.0f us %10.0f us %7.2fx   (p90 %.0f / %.0f us; n=%d)\n",
           "1. /bin/true, full isolation, library vs bare vfork", full, bare, full / bare, bm_pct(c, n, 0.9),
           bm_pct(a, n, 0.9), n);
    printf("%-52s %10.0f us %10.0f us %7.2fx   (n=%d; target 2.5x)\n",
           "2. `gradeq run -- /bin/true` vs bare vfork", whole, bare_cmd, whole / bare_cmd, ncmd);
    printf("%-52s %10.0f us %10.0f us %7.2fx   (n=%d; a host and a box per command)\n",
           "2b. the same, holder off (GRADEQ_RUN_HOLD_MS=0)", whole0, bare0, whole0 / bare0, ncmd);

    /* 3. 1 GiB stream. */
    char *head_argv[] = { "/usr/bin/head", "-c", "1073741824", "/dev/zero", NULL };
    sbx_limits big = l;
    big.stdout_bytes = (1ull << 30) + 1;
    big.cpu_ms = 20000;
    big.memory_bytes = 64 << 20;
    double cap_t[3], bare_t[3], store_t[3];
    sbx_result r;
    for (int i = 0; i < 3; i++) {
        bare_t[i] = bare_spawn(head_argv, true, &bytes);
        store_t[i] = bare_spawn_store(head_argv, true, true, &bytes);
        cap_t[i] = sbx_time(b, (const char *const *)head_argv, &big, &r);
        if (r.stdout_len != 1ull << 30 || r.status != SBX_OK)
            fprintf(stderr, "capture: %s %zu bytes\n", sbx_status_name(r.status), r.stdout_len);
        sbx_result_free(&r);
    }
    double gb = 1.073741824;
    double cap_rate = gb / (bm_median(cap_t, 3) / 1e6), bare_rate = gb / (bm_median(bare_t, 3) / 1e6);
    double store_rate = gb / (bm_median(store_t, 3) / 1e6);
    printf("%-52s %8.2f GB/s %8.2f GB/s %7.2f    (target >= 0.80)\n", "3. 1 GiB stdout captured vs read into nothing",
           cap_rate, bare_rate, cap_rate / bare_rate);
    printf("%-52s %8.2f GB/s %8.2f GB/s %7.2f    (the same reader, no sandbox: fresh memory is the limit)\n",
           "3b. 1 GiB captured vs a bare reader storing it", cap_rate, store_rate, cap_rate / store_rate);

    /* 4. Both streams at once (512 MiB each) vs one stream of 1 GiB. */
    const char *both[] = { "/bin/sh", "-c",
                           "head -c 536870912 /dev/zero & head -c 536870912 /dev/zero >&2; wait", NULL };
    sbx_limits two = big;
    two.stderr_bytes = (1ull << 30) + 1;
    double both_t[3];
    for (int i = 0; i < 3; i++)
        both_t[i] = sbx_time(b, both, &two, NULL);
    double both_rate = gb / (bm_median(both_t, 3) / 1e6);
    printf("%-52s %8.2f GB/s %8.2f GB/s %7.2f    (two streams vs one)\n",
           "4. stdout+stderr at once (2 x 512 MiB) vs 1 stream", both_rate, cap_rate, both_rate / cap_rate);

    /* 5. Flood against a 1 MiB cap. */
    const char *yes[] = { "/usr/bin/yes", NULL };
    sbx_limits capped = l;
    capped.stdout_bytes = 1 << 20;
    double flood[20];
    size_t kept = 0;
    for (int i = 0; i < 20; i++) {
        flood[i] = sbx_time(b, yes, &capped, &r);
        kept = r.stdout_len;
        if (r.status != SBX_OUTPUT_LIMIT)
            fprintf(stderr, "flood: %s\n", sbx_status_name(r.status));
        sbx_result_free(&r);
    }
    printf("%-52s %10.0f us %12s %8s   (kept %zu bytes = cap; read past the cap: 1 byte by construction)\n",
           "5. yes against a 1 MiB cap: whole run", bm_median(flood, 20), "-", "-", kept);

    /* 6. Kill latency past the limits. */
    const char *loop[] = { "/bin/sh", "-c", "while :; do :; done", NULL };
    const char *slp[] = { "/bin/sleep", "100", NULL };
    sbx_limits tl = l, wl = l;
    tl.cpu_ms = 200;
    wl.wall_ms = 200;
    double over_cpu[15], over_wall[15];
    for (int i = 0; i < 15; i++) {
        sbx_time(b, loop, &tl, &r);
        over_cpu[i] = (double)r.cpu_us - 200000;
        sbx_result_free(&r);
        sbx_time(b, slp, &wl, &r);
        over_wall[i] = (double)r.wall_us - 200000;
        sbx_result_free(&r);
    }
    printf("%-52s %10.0f us %12s %8s   (max %.0f us; isolate/go-judge tick: 100000 us)\n",
           "6a. CPU kill past cpu_ms=200 (median)", bm_median(over_cpu, 15), "-", "-", bm_pct(over_cpu, 15, 1.0));
    printf("%-52s %10.0f us %12s %8s   (max %.0f us; target < 20000 us)\n", "6b. wall kill past wall_ms=200 (median)",
           bm_median(over_wall, 15), "-", "-", bm_pct(over_wall, 15, 1.0));

    /* 7. A rebuild is paid inside the run that caused it. */
    double left[15], clean[15];
    for (int i = 0; i < 15; i++) {
        left[i] = prog_time(b, "sock_left", "make", NULL);
        clean[i] = prog_time(b, "sock_left", "find", NULL);
    }
    printf("%-52s %10.0f us %10.0f us %7.2fx   (the difference is one box rebuild)\n",
           "7. run leaving a socket in flight vs leaving none", bm_median(left, 15), bm_median(clean, 15),
           bm_median(left, 15) / bm_median(clean, 15));

    /* 8. Which hostile programs cost a rebuild. */
    static const char *const hostile[][3] = {
        { "plant", NULL, NULL }, { "mkfiles", "200", NULL }, { "ipc_leave", "make", "8" },
        { "sock_left", "make", NULL }, { "stdout_inflight", NULL, NULL }, { "daemon", NULL, NULL },
        { "forkbomb", "--really", NULL }, { "thread_bomb", NULL, NULL }, { "kill_all", "--really", NULL },
        { "write_big", "8", NULL }, { "oom_zygote", "56", NULL }, { "connect_host", NULL, NULL },
    };
    size_t nh = sizeof hostile / sizeof hostile[0];
    unsigned long r0 = sbx_box_rebuilds(b);
    char which[256] = "";
    for (size_t i = 0; i < nh; i++) {
        unsigned long before = sbx_box_rebuilds(b);
        prog_time(b, hostile[i][0], hostile[i][1], hostile[i][2]);
        if (sbx_box_rebuilds(b) != before)
            snprintf(which + strlen(which), sizeof which - strlen(which), " %s", hostile[i][0]);
    }
    printf("%-52s %7lu of %2zu %12s %8s   (rebuilt after:%s)\n", "8. hostile programs that cost a box rebuild",
           sbx_box_rebuilds(b) - r0, nh, "-", "-", which);

    cgroup_step(h, b, n);
    dirs_step(b, n);
    pid_step(n);
    wakes_step(b, n);
    follow_step(b, n);
    sbx_box_close(b);
    sbx_host_close(h);
    free(a);
    free(c);
    free(d);
    free(d0);
    free(b0);
    free(cold_env);
    free(warm_env);
    return 0;
}
