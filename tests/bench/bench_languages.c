/* bench_languages.c -- every language preset of deploy/languages whose
 * toolchain is installed, beside its own runtime measured in the same run:
 *
 *   1. hello world (tests/languages/NAME/hello.*): one test's wall time in
 *      the sandbox (sbx_run of the preset's run command on what its compile
 *      step left, files placed and /box wiped included: what each test of
 *      `gradeq grade` costs; "inside": from its start to its exit, as the
 *      result's wall_us says) against the same command run bare on the
 *      host (fork, exec, wait) on the same files and environment; runs
 *      alternate, medians shown, with the ratio (target: within 1.2x of
 *      the runtime's own start-up)
 *   2. the compile step: its wall time, CPU time and peak memory
 *   3. the self-tests a worker runs at start, all presets, two at a time
 *      (as a 2-thread worker does; target: under 30 s on 2 cores), and the
 *      slowest
 *
 * Usage: bench_languages [RUNS] (default 10). GRADEQ_LANGS="java go" limits
 * it to those presets.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "tests/lib/files.h"
#include "worker/engine/engine.h"
#include "worker/lang/apply.h"
#include "worker/lang/selftest.h"

#define LANGS_FILE "deploy/languages"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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

static __attribute__((noreturn)) void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_languages: %s: %s\n", what, why);
    exit(1);
}

/* tests/languages/NAME/hello.* (cpp17 and cpp20 use cpp's); NULL if none. */
static char *hello_of(const char *name, size_t *len)
{
    char path[300];
    const char *dir = strncmp(name, "cpp", 3) == 0 ? "cpp" : name;
    static const char *const ext[] = { "c", "cpp", "py", "java", "kt", "go", "rs", "js", "ts", "cs", "hs", "pas",
                                       "rb", "php", "pl", "lua", "ml", "f90", "adb", "d", "r", "sh", "lisp",
                                       "rkt", "erl", "exs", "scm", "nim", "cob" };
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        snprintf(path, sizeof path, "tests/languages/%s/hello.%s", dir, ext[i]);
        char *s = tl_read_file(path, len);
        if (s)
            return s;
    }
    return NULL;
}

/* The files the compile step left, written under dir for the bare runs. */
static void write_files(const char *dir, const sbx_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, f[i].name);
        for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
            *s = 0;
            mkdir(path, 0755);
            *s = '/';
        }
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, f[i].executable ? 0755 : 0644);
        if (fd < 0 || write(fd, f[i].data, f[i].len) != (ssize_t)f[i].len || close(fd) < 0)
            die(path, strerror(errno));
    }
}

/* argv[0] as the box finds it: in the run's own PATH (not this
 * process's, which may hold a user's shims). */
static const char *resolve(const char *prog, char *const *env, char *buf, size_t size)
{
    const char *path = "/usr/local/bin:/usr/bin:/bin";
    for (size_t i = 0; env[i]; i++)
        if (strncmp(env[i], "PATH=", 5) == 0)
            path = env[i] + 5;
    if (strchr(prog, '/'))
        return prog;
    for (const char *d = path; *d;) {
        size_t n = strcspn(d, ":");
        snprintf(buf, size, "%.*s/%s", (int)n, d, prog);
        if (access(buf, X_OK) == 0)
            return buf;
        d += n + (d[n] == ':');
    }
    die(prog, "not found in the run's PATH");
}

/* One bare run of argv in dir (stdio on /dev/null): its wall time. */
static double bare(const char *dir, char *const *argv, char *const *env)
{
    char exe[4096];
    const char *prog = resolve(argv[0], env, exe, sizeof exe);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        die("fork", strerror(errno));
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul < 0 || chdir(dir) < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0)
            _exit(126);
        execve(prog, argv, env);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        die(argv[0], "the bare run failed");
    return now_s() - t0;
}

/* The run command for the host: /box in a word becomes dir; the
 * environment's HOME dir too. Strings leak: a bench's short life. */
static void host_command(const wk_lang_cmd *c, const char *dir, char **argv, char **env)
{
    size_t i = 0;
    for (; c->argv[i]; i++) {
        const char *at = strstr(c->argv[i], "/box");
        if (!at) {
            argv[i] = (char *)c->argv[i];
            continue;
        }
        size_t n = strlen(c->argv[i]) + strlen(dir) + 1;
        argv[i] = malloc(n);
        snprintf(argv[i], n, "%.*s%s%s", (int)(at - c->argv[i]), c->argv[i], dir, at + 4);
    }
    argv[i] = NULL;
    for (i = 0; c->env[i]; i++) {
        if (strncmp(c->env[i], "HOME=", 5) == 0) {
            size_t n = strlen(dir) + 6;
            env[i] = malloc(n);
            snprintf(env[i], n, "HOME=%s", dir);
        } else {
            env[i] = (char *)c->env[i];
        }
    }
    env[i] = NULL;
}

static void one(sbx_box *box, const wk_lang *l, int runs)
{
    size_t len;
    char *src = hello_of(l->name, &len);
    if (!src)
        return;
    char err[SBX_ERR_LEN], dir[256];
    sbx_limits run_lim, cc_lim;
    sbx_limits_default(&run_lim);
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if (l->limits_given & (1u << i))
            ((uint64_t *)(void *)&run_lim)[i] = l->limits[i];
    sbx_limits max;
    memset(&max, 0xff, sizeof max);
    wk_lang_limits(l, &run_lim, &max);
    wk_compile_limits_default(&cc_lim);
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if (l->compile_given & (1u << i))
            ((uint64_t *)(void *)&cc_lim)[i] = l->compile_limits[i];
    sbx_file source = { l->source, src, len, false };
    sbx_collect built = { .max_files = WK_COLLECT_FILES, .max_bytes = WK_COLLECT_BYTES, .max_depth = 16 };
    const sbx_file *files = &source;
    size_t nfiles = 1;
    double cc_wall = 0, cc_cpu = 0, cc_mib = 0;
    if (l->has_compile) {
        wk_lang_cmd cc;
        if (wk_lang_command(l, true, &cc_lim, NULL, &cc, err, sizeof err) < 0)
            die(l->name, err);
        sbx_spec s = { .argv = cc.argv, .env = cc.env, .files = &source, .nfiles = 1, .limits = cc_lim,
                       .collect = &built };
        sbx_result r;
        double t0 = now_s();
        sbx_run(box, &s, &r);
        cc_wall = now_s() - t0;
        if (r.status != SBX_OK || built.refused[0])
            die(l->name, "the compile step failed");
        cc_cpu = r.cpu_us / 1e6;
        cc_mib = r.memory_bytes / 1048576.0;
        sbx_result_free(&r);
        wk_lang_cmd_free(&cc);
        files = built.files;
        nfiles = built.nfiles;
    }
    if (!tl_mkdtemp(dir, sizeof dir, "bench-lang."))
        die("mkdtemp", strerror(errno));
    write_files(dir, files, nfiles);
    wk_lang_cmd run;
    if (wk_lang_command(l, false, &run_lim, NULL, &run, err, sizeof err) < 0)
        die(l->name, err);
    char *hargv[WK_LANG_ARGS], *henv[128];
    host_command(&run, dir, hargv, henv);
    double *tb = calloc((size_t)runs, sizeof *tb), *th = calloc((size_t)runs, sizeof *th),
           *ti = calloc((size_t)runs, sizeof *ti);
    sbx_spec s = { .argv = run.argv, .env = run.env, .files = files, .nfiles = nfiles, .limits = run_lim };
    for (int i = 0; i < runs; i++) {
        sbx_result r;
        double t0 = now_s();
        sbx_run(box, &s, &r);
        tb[i] = now_s() - t0;
        ti[i] = r.wall_us / 1e6;
        if (r.status != SBX_OK)
            die(l->name, "hello did not run OK in the sandbox");
        sbx_result_free(&r);
        th[i] = bare(dir, hargv, henv);
    }
    double mb = median(tb, runs), mh = median(th, runs), mi = median(ti, runs);
    printf("  %-11s %9.1f %9.1f %9.1f %6.2fx", l->name, mh * 1e3, mb * 1e3, mi * 1e3, mb / mh);
    if (l->has_compile)
        printf(" %9.2f %7.2f %8.0f\n", cc_wall, cc_cpu, cc_mib);
    else
        printf(" %9s %7s %8s\n", "-", "-", "-");
    fflush(stdout);
    wk_lang_cmd_free(&run);
    sbx_collect_free(&built);
    free(tb);
    free(th);
    free(ti);
    free(src);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        die(dir, "not removed");
}

static bool chosen(const char *name)
{
    const char *only = getenv("GRADEQ_LANGS");
    if (!only || !*only)
        return true;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)); p += n)
        if ((p == only || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 10;
    if (runs < 1)
        die("usage", "bench_languages [RUNS]");
    wk_langs langs;
    char err[512];
    if (wk_langs_load(LANGS_FILE, &langs, err, sizeof err) < 0)
        die(LANGS_FILE, err);
    sbx_host_options ho = { .require_isolation = true };
    sbx_host *host;
    sbx_box *box;
    if (wk_langs_host_open(&langs, &ho, &host, err, sizeof err) < 0 || sbx_box_open(host, &box, err, sizeof err) < 0)
        die("sandbox", err);
    printf("1-2. hello world, one test: bare on the host vs in the sandbox (median of %d, ms); the compile step\n",
           runs);
    printf("  %-11s %9s %9s %9s %7s %9s %7s %8s\n", "preset", "bare", "sandbox", "(inside)", "ratio", "compile s",
           "cpu s", "peak MiB");
    bool only[WK_LANG_MAX];
    for (size_t i = 0; i < langs.n; i++) {
        only[i] = chosen(langs.v[i].name) && langs.v[i].available;
        if (only[i])
            one(box, &langs.v[i], runs);
        else if (chosen(langs.v[i].name))
            printf("  %-11s skipped: %s\n", langs.v[i].name, langs.v[i].why);
    }
    sbx_box_close(box);
    wk_check_opts o = { .parallel = 2, .selftest = true, .only = only };
    double t0 = now_s();
    if (wk_langs_check(&langs, host, &o, err, sizeof err) < 0)
        die("self-tests", err);
    double total = now_s() - t0;
    const wk_lang *slow = NULL;
    size_t n = 0, failed = 0;
    for (size_t i = 0; i < langs.n; i++) {
        if (!only[i])
            continue;
        n++;
        failed += !langs.v[i].available;
        if (!slow || langs.v[i].check_ms > slow->check_ms)
            slow = &langs.v[i];
    }
    printf("3. self-tests at a worker's start, %zu presets two at a time: %.1f s (target < 30 s on 2 cores)", n,
           total);
    if (slow)
        printf("; slowest %s %.1f s", slow->name, slow->check_ms / 1e3);
    printf("%s\n", failed ? "; SOME FAILED" : "");
    for (size_t i = 0; i < langs.n; i++)
        if (only[i] && !langs.v[i].available)
            printf("  %s: %s\n", langs.v[i].name, langs.v[i].why);
    sbx_host_close(host);
    wk_langs_free(&langs);
    return failed ? 1 : 0;
}
