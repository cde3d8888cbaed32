/* test_sandbox.c -- every status and every protection of the sandbox,
 * reached for real with the hostile programs of tests/progs.
 *
 * Each program is copied into /box as ./prog and run there, as a job would
 * be. The programs' own limits are the sandbox's; an alarm() per test is the
 * outer bound, so a broken sandbox fails the test instead of hanging it.
 * The host is opened with require_isolation: a machine that cannot give
 * full isolation fails here loudly rather than passing on a weaker box.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/sandbox.h"

#define UID_BASE 60000

static sbx_host *host;
static sbx_box *box;

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p) {
        p[n] = 0;
        *len = (size_t)n;
    }
    return p;
}

typedef struct prog {
    char *bytes;
    size_t len;
} prog;

static prog load_prog(const char *name)
{
    const char *dir = getenv("GRADEQ_PROGS") ? getenv("GRADEQ_PROGS") : "build/progs";
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    prog p = { 0 };
    p.bytes = read_all(path, &p.len);
    if (!p.bytes)
        fail_msg("test program %s missing (build it with make)", path);
    return p;
}

/* Runs tests/progs/NAME with args under limits l (defaults when NULL). */
static int run_prog_in(sbx_box *b, const char *name, const char *const *args, const sbx_limits *l,
                       const void *in, size_t inlen, sbx_result *r)
{
    prog p = load_prog(name);
    const char *argv[16] = { "./prog" };
    for (int i = 0; args && args[i]; i++)
        argv[i + 1] = args[i];
    sbx_file f = { "prog", p.bytes, p.len, true };
    sbx_spec s = { .argv = argv, .files = &f, .nfiles = 1, .stdin_data = in, .stdin_len = inlen };
    if (l)
        s.limits = *l;
    else
        sbx_limits_default(&s.limits);
    int rc = sbx_run(b, &s, r);
    free(p.bytes);
    return rc;
}

static int run_prog(const char *name, const char *const *args, const sbx_limits *l, sbx_result *r)
{
    return run_prog_in(box, name, args, l, NULL, 0, r);
}

static void assert_status(const sbx_result *r, sbx_status want)
{
    if (r->status != want)
        fail_msg("status %s, wanted %s (exit %d signal %d error \"%s\")\nstdout: %.*s\nstderr: %.*s",
                 sbx_status_name(r->status), sbx_status_name(want), r->exit_code, r->signal, r->error,
                 (int)(r->stdout_len < 300 ? r->stdout_len : 300), r->stdout_buf,
                 (int)(r->stderr_len < 300 ? r->stderr_len : 300), r->stderr_buf);
}

/* Processes of a uid anywhere on the host (the slot's uid is its alone). */
static int processes_of_uid(unsigned uid)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f)) {
            unsigned u;
            if (sscanf(line, "Uid: %u", &u) == 1) {
                n += u == uid;
                break;
            }
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

static unsigned slot_uid(void)
{
    return UID_BASE + sbx_box_slot(box);
}

static int group_setup(void **state)
{
    (void)state;
    char err[SBX_ERR_LEN];
    sbx_host_options o = { .require_isolation = true, .uid_base = UID_BASE };
    if (sbx_host_open(&host, &o, err, sizeof err) < 0 || sbx_box_open(host, &box, err, sizeof err) < 0) {
        fprintf(stderr, "sandbox unavailable: %s\n", err);
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    sbx_box_close(box);
    sbx_host_close(host);
    return 0;
}

static int test_setup(void **state)
{
    (void)state;
    alarm(120);
    return 0;
}

/* ---- statuses -------------------------------------------------------- */

static void hello_ok(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("hello", NULL, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.stdout_len, 6);
    assert_memory_equal(r.stdout_buf, "hello\n", 6);
    assert_int_equal(r.isolation, SBX_ISO_ALL);
    sbx_result_free(&r);
}

static void loop_time_limit(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.cpu_ms = 300;
    l.wall_ms = 30000; /* a loaded machine must not turn this into a wall kill */
    sbx_result r;
    assert_int_equal(run_prog("loop", NULL, &l, &r), 0);
    assert_status(&r, SBX_TIME_LIMIT);
    assert_true(r.cpu_us >= 300000);
    assert_true(r.cpu_us < 1500000); /* generous: RLIMIT_CPU alone would kill at 2 s */
    sbx_result_free(&r);
}

static void sleep_wall_limit(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.wall_ms = 200;
    sbx_result r;
    assert_int_equal(run_prog("sleep", NULL, &l, &r), 0);
    assert_status(&r, SBX_WALL_TIME_LIMIT);
    assert_true(r.wall_us >= 200000 && r.wall_us < 2000000);
    assert_true(r.cpu_us < 100000);
    sbx_result_free(&r);
}

static void memhog_memory_limit(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.memory_bytes = 64 << 20;
    sbx_result r;
    assert_int_equal(run_prog("memhog", (const char *[]){ "1024", NULL }, &l, &r), 0);
    assert_status(&r, SBX_MEMORY_LIMIT);
    assert_true(r.memory_bytes >= (60u << 20) && r.memory_bytes <= (64u << 20));
    sbx_result_free(&r);
}

static void bss_hog_memory_limit(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.memory_bytes = 32 << 20;
    sbx_result r;
    assert_int_equal(run_prog("bss_hog", NULL, &l, &r), 0);
    assert_status(&r, SBX_MEMORY_LIMIT);
    sbx_result_free(&r);
}

static void yes_stdout_output_limit(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.stdout_bytes = 100000;
    sbx_result r;
    assert_int_equal(run_prog("yes_stdout", NULL, &l, &r), 0);
    assert_status(&r, SBX_OUTPUT_LIMIT);
    assert_int_equal(r.stdout_len, 100000);
    assert_true(r.stdout_truncated);
    for (size_t i = 0; i < r.stdout_len; i++)
        assert_int_equal(r.stdout_buf[i], i % 2 ? '\n' : 'y');
    sbx_result_free(&r);
}

static void yes_stderr_output_limit(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.stderr_bytes = 5000;
    sbx_result r;
    assert_int_equal(run_prog("yes_stderr", NULL, &l, &r), 0);
    assert_status(&r, SBX_OUTPUT_LIMIT);
    assert_int_equal(r.stderr_len, 5000);
    assert_true(r.stderr_truncated);
    assert_false(r.stdout_truncated);
    sbx_result_free(&r);
}

static void exact_cap_is_ok(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.stdout_bytes = 300000;
    sbx_result r;
    assert_int_equal(run_prog("exact_out", (const char *[]){ "300000", NULL }, &l, &r), 0);
    assert_status(&r, SBX_OK);
    assert_false(r.stdout_truncated);
    assert_int_equal(r.stdout_len, 300000);
    for (size_t i = 0; i < r.stdout_len; i++)
        assert_int_equal((unsigned char)r.stdout_buf[i], i % 251);
    sbx_result_free(&r);
    /* One byte more is over. */
    assert_int_equal(run_prog("exact_out", (const char *[]){ "300001", NULL }, &l, &r), 0);
    assert_status(&r, SBX_OUTPUT_LIMIT);
    assert_int_equal(r.stdout_len, 300000);
    sbx_result_free(&r);
}

static void segv_signaled(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("segv", NULL, NULL, &r), 0);
    assert_status(&r, SBX_SIGNALED);
    assert_int_equal(r.signal, SIGSEGV);
    assert_int_equal(r.exit_code, -1);
    sbx_result_free(&r);
}

static void self_sigxcpu_is_signaled(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("sigxcpu_self", NULL, NULL, &r), 0);
    assert_status(&r, SBX_SIGNALED);
    assert_int_equal(r.signal, SIGXCPU);
    sbx_result_free(&r);
}

static void exit3_runtime_error(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("exit3", NULL, NULL, &r), 0);
    assert_status(&r, SBX_RUNTIME_ERROR);
    assert_int_equal(r.exit_code, 3);
    sbx_result_free(&r);
}

static void missing_program_exec_error(void **state)
{
    (void)state;
    const char *argv[] = { "/no/such/program", NULL };
    sbx_spec s = { .argv = argv };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(box, &s, &r), 0);
    assert_status(&r, SBX_EXEC_ERROR);
    assert_non_null(strstr(r.error, "No such file"));
    sbx_result_free(&r);
    /* Not executable, then not a valid binary. */
    sbx_file f = { "prog", "just text\n", 10, false };
    const char *argv2[] = { "./prog", NULL };
    sbx_spec s2 = { .argv = argv2, .files = &f, .nfiles = 1, .limits = s.limits };
    assert_int_equal(sbx_run(box, &s2, &r), 0);
    assert_status(&r, SBX_EXEC_ERROR);
    assert_non_null(strstr(r.error, "Permission denied"));
    sbx_result_free(&r);
    f.executable = true;
    f.data = "\x7f" "ELF garbage";
    f.len = 12;
    assert_int_equal(sbx_run(box, &s2, &r), 0);
    assert_status(&r, SBX_EXEC_ERROR);
    sbx_result_free(&r);
}

static void write_big_file_limit(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.file_bytes = 4 << 20;
    sbx_result r;
    /* write_big catches SIGXFSZ and exits 3: the limit held. */
    assert_int_equal(run_prog("write_big", (const char *[]){ "16", NULL }, &l, &r), 0);
    assert_status(&r, SBX_RUNTIME_ERROR);
    assert_int_equal(r.exit_code, 3);
    sbx_result_free(&r);
    /* A program that does not catch it dies of it: a file over the limit
     * is OUTPUT_LIMIT, not a crash. */
    const char *argv[] = { "/bin/sh", "-c", "exec head -c 16M /dev/zero > big", NULL };
    sbx_spec s = { .argv = argv, .limits = l };
    assert_int_equal(sbx_run(box, &s, &r), 0);
    assert_status(&r, SBX_OUTPUT_LIMIT);
    sbx_result_free(&r);
}

/* ---- containment ----------------------------------------------------- */

static void forkbomb_contained(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.cpu_ms = 500;
    l.wall_ms = 1500;
    l.processes = 32;
    sbx_result r;
    assert_int_equal(run_prog("forkbomb", (const char *[]){ "--really", NULL }, &l, &r), 0);
    assert_true(r.status == SBX_TIME_LIMIT || r.status == SBX_WALL_TIME_LIMIT);
    sbx_result_free(&r);
    assert_int_equal(processes_of_uid(slot_uid()), 0);
    assert_int_equal(run_prog("hello", NULL, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    sbx_result_free(&r);
}

static void thread_bomb_contained(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.processes = 16;
    l.wall_ms = 2000;
    sbx_result r;
    assert_int_equal(run_prog("thread_bomb", NULL, &l, &r), 0);
    assert_int_not_equal(r.status, SBX_SANDBOX_ERROR);
    assert_int_not_equal(r.status, SBX_OK);
    sbx_result_free(&r);
    assert_int_equal(processes_of_uid(slot_uid()), 0);
}

static void daemon_killed_at_end(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("daemon", NULL, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    sbx_result_free(&r);
    assert_int_equal(processes_of_uid(slot_uid()), 0);
}

static void no_network_to_host(void **state)
{
    (void)state;
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s, 8), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &al), 0);
    char port[16];
    snprintf(port, sizeof port, "%u", ntohs(a.sin_port));
    sbx_result r;
    assert_int_equal(run_prog("connect_host", (const char *[]){ port, NULL }, NULL, &r), 0);
    assert_status(&r, SBX_RUNTIME_ERROR);
    assert_null(memmem(r.stdout_buf, r.stdout_len, "connected", 9));
    assert_int_equal(accept(s, NULL, NULL), -1);
    assert_int_equal(errno, EAGAIN);
    close(s);
    sbx_result_free(&r);
}

static void shadow_unreadable(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("read_shadow", NULL, NULL, &r), 0);
    assert_status(&r, SBX_RUNTIME_ERROR);
    assert_null(memmem(r.stdout_buf, r.stdout_len, "opened", 6));
    sbx_result_free(&r);
}

static void kill_all_caller_survives(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("kill_all", (const char *[]){ "--really", NULL }, NULL, &r), 0);
    assert_int_not_equal(r.status, SBX_SANDBOX_ERROR);
    sbx_result_free(&r);
    assert_int_equal(run_prog("hello", NULL, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    sbx_result_free(&r);
}

static void syscalls_denied(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("syscalls", NULL, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    char *out = strndup(r.stdout_buf, r.stdout_len);
    int lines = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), lines++)
        if (strlen(line) >= 3 && strcmp(line + strlen(line) - 3, " ok") == 0)
            fail_msg("allowed in the sandbox: %s", line);
    assert_int_equal(lines, 15);
    free(out);
    sbx_result_free(&r);
}

static void identity_and_privileges(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("whoami", NULL, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    char *out = strndup(r.stdout_buf, r.stdout_len), want[64];
    snprintf(want, sizeof want, "uid=%u\n", slot_uid());
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "groups=0\n"));
    assert_non_null(strstr(out, "CapEff=0000000000000000"));
    assert_non_null(strstr(out, "CapPrm=0000000000000000"));
    assert_non_null(strstr(out, "CapBnd=0000000000000000"));
    assert_non_null(strstr(out, "NoNewPrivs=1"));
    assert_non_null(strstr(out, "Seccomp=2"));
    assert_non_null(strstr(out, "hostname=gradeq"));
    assert_null(strstr(out, "proc1_cmdline=readable"));
    free(out);
    sbx_result_free(&r);
}

static void only_std_fds_and_clean_env(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("fds", NULL, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    assert_int_equal(r.stdout_len, 6);
    assert_memory_equal(r.stdout_buf, "0\n1\n2\n", 6);
    sbx_result_free(&r);
    setenv("GRADEQ_SECRET", "leak", 1);
    assert_int_equal(run_prog("env", NULL, NULL, &r), 0);
    const char want[] = "PATH=/usr/local/bin:/usr/bin:/bin\nHOME=/box\nLANG=C.UTF-8\n";
    assert_int_equal(r.stdout_len, sizeof want - 1);
    assert_memory_equal(r.stdout_buf, want, sizeof want - 1);
    sbx_result_free(&r);
}

static void files_wiped_between_runs(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(run_prog("mkfiles", (const char *[]){ "200", NULL }, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    sbx_result_free(&r);
    assert_int_equal(run_prog("ls_box", NULL, NULL, &r), 0);
    assert_status(&r, SBX_OK);
    /* Only the program itself, in /box; /tmp empty. */
    char *out = strndup(r.stdout_buf, r.stdout_len);
    assert_null(strstr(out, "f0"));
    assert_non_null(strstr(out, "prog"));
    free(out);
    sbx_result_free(&r);
}

/* ---- bytes and time -------------------------------------------------- */

static void stdin_bytes_exact(void **state)
{
    (void)state;
    size_t n = 3 << 20;
    unsigned char *in = malloc(n);
    for (size_t i = 0; i < n; i++)
        in[i] = (unsigned char)(i * 7 + (i >> 11)); /* NULs and invalid UTF-8 */
    sbx_limits l;
    sbx_limits_default(&l);
    l.stdout_bytes = n;
    sbx_result r;
    assert_int_equal(run_prog_in(box, "cat", NULL, &l, in, n, &r), 0);
    assert_status(&r, SBX_OK);
    assert_false(r.stdout_truncated);
    assert_int_equal(r.stdout_len, n);
    assert_memory_equal(r.stdout_buf, in, n);
    free(in);
    sbx_result_free(&r);
}

static void stdin_never_read_no_hang(void **state)
{
    (void)state;
    size_t n = 8 << 20;
    char *in = calloc(1, n);
    sbx_result r;
    assert_int_equal(run_prog_in(box, "ignore_stdin", NULL, NULL, in, n, &r), 0);
    assert_status(&r, SBX_OK);
    assert_memory_equal(r.stdout_buf, "done\n", 5);
    sbx_result_free(&r);
    assert_int_equal(run_prog_in(box, "close_std", NULL, NULL, in, n, &r), 0);
    assert_status(&r, SBX_OK);
    sbx_result_free(&r);
    free(in);
}

static void two_threads_cpu_summed(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.cpu_ms = 5000;
    sbx_result r;
    assert_int_equal(run_prog("threads_cpu", NULL, &l, &r), 0);
    assert_status(&r, SBX_OK);
    assert_true(r.cpu_us >= 950000 && r.cpu_us < 1500000);
    sbx_result_free(&r);
}

typedef struct par {
    int idx;
    int ok;
} par;

static void *parallel_one(void *arg)
{
    par *p = arg;
    char err[SBX_ERR_LEN], in[64];
    sbx_box *b;
    if (sbx_box_open(host, &b, err, sizeof err) < 0)
        return NULL;
    int len = snprintf(in, sizeof in, "run %d says hello\n", p->idx);
    p->ok = 1;
    for (int k = 0; k < 5; k++) {
        sbx_result r;
        if (run_prog_in(b, "cat", NULL, NULL, in, (size_t)len, &r) != 0 || r.status != SBX_OK ||
            r.stdout_len != (size_t)len || memcmp(r.stdout_buf, in, (size_t)len) != 0)
            p->ok = 0;
        sbx_result_free(&r);
    }
    sbx_box_close(b);
    return NULL;
}

static void eight_threads_at_once(void **state)
{
    (void)state;
    pthread_t t[8];
    par p[8];
    for (int i = 0; i < 8; i++) {
        p[i] = (par){ i, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, parallel_one, &p[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(p[i].ok, 1);
    }
}

/* ---- interaction callback ------------------------------------------- */

typedef struct repl {
    int answered;
    char seen[4096];
    size_t nseen;
    int calls_at_once, in_call;
    int sleep_ms;
    bool end_on_first;
} repl;

/* Answers "qN?" with 2N; after the third answer is echoed, closes stdin. */
static int repl_cb(void *ctx, int stream, const void *buf, size_t len, sbx_reply *reply)
{
    repl *r = ctx;
    if (__atomic_add_fetch(&r->in_call, 1, __ATOMIC_SEQ_CST) > 1)
        r->calls_at_once++;
    if (r->sleep_ms)
        usleep((useconds_t)r->sleep_ms * 1000);
    int end = r->end_on_first;
    if (stream == 1 && r->nseen + len < sizeof r->seen) {
        memcpy(r->seen + r->nseen, buf, len);
        r->nseen += len;
        r->seen[r->nseen] = 0;
        char want[16];
        snprintf(want, sizeof want, "q%d?", r->answered);
        while (r->answered < 3 && strstr(r->seen, want)) {
            char ans[16];
            int n = snprintf(ans, sizeof ans, "%d\n", 2 * r->answered);
            sbx_reply_write(reply, ans, (size_t)n);
            r->answered++;
            snprintf(want, sizeof want, "q%d?", r->answered);
        }
        if (strstr(r->seen, "ans 4\n"))
            sbx_reply_close(reply);
    }
    __atomic_sub_fetch(&r->in_call, 1, __ATOMIC_SEQ_CST);
    return end;
}

static const char *const repl_argv[] = {
    "/bin/sh", "-c",
    "i=0; while [ $i -lt 3 ]; do echo \"q$i?\"; echo \"to stderr $i\" >&2; read a || exit 5; "
    "echo \"ans $a\"; i=$((i+1)); done; read b && exit 6; echo bye",
    NULL,
};

static void callback_drives_repl(void **state)
{
    (void)state;
    repl ctx = { 0 };
    sbx_spec s = { .argv = repl_argv, .interact = repl_cb, .interact_ctx = &ctx };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(box, &s, &r), 0);
    assert_status(&r, SBX_OK);
    assert_int_equal(ctx.answered, 3);
    assert_int_equal(ctx.calls_at_once, 0);
    const char want[] = "q0?\nans 0\nq1?\nans 2\nq2?\nans 4\nbye\n";
    assert_int_equal(r.stdout_len, sizeof want - 1);
    assert_memory_equal(r.stdout_buf, want, sizeof want - 1);
    assert_non_null(memmem(r.stderr_buf, r.stderr_len, "to stderr 2", 11));
    sbx_result_free(&r);
}

static void callback_ends_run(void **state)
{
    (void)state;
    repl ctx = { .end_on_first = true };
    sbx_spec s = { .argv = repl_argv, .interact = repl_cb, .interact_ctx = &ctx };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(box, &s, &r), 0);
    assert_status(&r, SBX_OK);
    assert_true(r.ended_by_callback);
    assert_int_equal(r.signal, SIGKILL);
    sbx_result_free(&r);
}

/* The callback's time is not the program's: a callback slower than the
 * whole wall limit does not make the program late. */
static void slow_callback_not_charged(void **state)
{
    (void)state;
    repl ctx = { .sleep_ms = 150 };
    sbx_spec s = { .argv = repl_argv, .interact = repl_cb, .interact_ctx = &ctx };
    sbx_limits_default(&s.limits);
    s.limits.wall_ms = 300;
    sbx_result r;
    assert_int_equal(sbx_run(box, &s, &r), 0);
    assert_status(&r, SBX_OK);
    assert_true(r.wall_us > 300000);
    sbx_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(hello_ok, test_setup),
        cmocka_unit_test_setup(loop_time_limit, test_setup),
        cmocka_unit_test_setup(sleep_wall_limit, test_setup),
        cmocka_unit_test_setup(memhog_memory_limit, test_setup),
        cmocka_unit_test_setup(bss_hog_memory_limit, test_setup),
        cmocka_unit_test_setup(yes_stdout_output_limit, test_setup),
        cmocka_unit_test_setup(yes_stderr_output_limit, test_setup),
        cmocka_unit_test_setup(exact_cap_is_ok, test_setup),
        cmocka_unit_test_setup(segv_signaled, test_setup),
        cmocka_unit_test_setup(self_sigxcpu_is_signaled, test_setup),
        cmocka_unit_test_setup(exit3_runtime_error, test_setup),
        cmocka_unit_test_setup(missing_program_exec_error, test_setup),
        cmocka_unit_test_setup(write_big_file_limit, test_setup),
        cmocka_unit_test_setup(forkbomb_contained, test_setup),
        cmocka_unit_test_setup(thread_bomb_contained, test_setup),
        cmocka_unit_test_setup(daemon_killed_at_end, test_setup),
        cmocka_unit_test_setup(no_network_to_host, test_setup),
        cmocka_unit_test_setup(shadow_unreadable, test_setup),
        cmocka_unit_test_setup(kill_all_caller_survives, test_setup),
        cmocka_unit_test_setup(syscalls_denied, test_setup),
        cmocka_unit_test_setup(identity_and_privileges, test_setup),
        cmocka_unit_test_setup(only_std_fds_and_clean_env, test_setup),
        cmocka_unit_test_setup(files_wiped_between_runs, test_setup),
        cmocka_unit_test_setup(stdin_bytes_exact, test_setup),
        cmocka_unit_test_setup(stdin_never_read_no_hang, test_setup),
        cmocka_unit_test_setup(two_threads_cpu_summed, test_setup),
        cmocka_unit_test_setup(eight_threads_at_once, test_setup),
        cmocka_unit_test_setup(callback_drives_repl, test_setup),
        cmocka_unit_test_setup(callback_ends_run, test_setup),
        cmocka_unit_test_setup(slow_callback_not_charged, test_setup),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
