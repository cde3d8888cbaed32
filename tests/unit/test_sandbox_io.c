/* test_sandbox_io.c -- bytes in and out exactly (NULs, invalid UTF-8,
 * stdin never read), CPU summed over threads, eight runs at once, and the
 * interaction callback (a REPL exercise, ending the run, a slow callback
 * not charged to the program). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "tests/lib/files.h"
#include "tests/lib/sandbox_fixtures.h"

typedef struct par {
    int idx;
    int ok;
    char why[SBX_ERR_LEN + 160];
} par;

/* Five runs in a box of its own. The limits only catch a hang: eight boxes
 * at once on a slow machine (a sanitized build, an emulated guest) may
 * take many times a quiet run's wall time, and that is no failure here. */
static void *parallel_one(void *arg)
{
    par *p = arg;
    char err[SBX_ERR_LEN], in[64];
    sbx_box *b;
    if (sbx_box_open(sx_host, &b, err, sizeof err) < 0) {
        snprintf(p->why, sizeof p->why, "sbx_box_open: %s", err);
        return NULL;
    }
    sbx_limits l;
    sbx_limits_default(&l);
    l.cpu_ms = 10000;
    l.wall_ms = 60000;
    int len = snprintf(in, sizeof in, "run %d says hello\n", p->idx);
    p->ok = 1;
    for (int k = 0; k < 5 && p->ok; k++) {
        sbx_result r;
        if (sx_run_prog_in(b, "cat", NULL, &l, in, (size_t)len, &r) != 0 || r.status != SBX_OK ||
            r.stdout_len != (size_t)len || memcmp(r.stdout_buf, in, (size_t)len) != 0) {
            p->ok = 0;
            snprintf(p->why, sizeof p->why, "run %d: %s exit %d signal %d wall %lld us, %zu bytes out, error \"%s\"", k,
                     sbx_status_name(r.status), r.exit_code, r.signal, (long long)r.wall_us, r.stdout_len, r.error);
        }
        sbx_result_free(&r);
    }
    sbx_box_close(b);
    return NULL;
}

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
    assert_int_equal(sx_run_prog_in(sx_box, "cat", NULL, &l, in, n, &r), 0);
    sx_assert_status(&r, SBX_OK);
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
    assert_int_equal(sx_run_prog_in(sx_box, "ignore_stdin", NULL, NULL, in, n, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_memory_equal(r.stdout_buf, "done\n", 5);
    sbx_result_free(&r);
    assert_int_equal(sx_run_prog_in(sx_box, "close_std", NULL, NULL, in, n, &r), 0);
    sx_assert_status(&r, SBX_OK);
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
    assert_int_equal(sx_run_prog("threads_cpu", NULL, &l, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_true(r.cpu_us >= 950000 && r.cpu_us < 1500000);
    sbx_result_free(&r);
}

static void eight_threads_at_once(void **state)
{
    (void)state;
    pthread_t t[8];
    par p[8];
    for (int i = 0; i < 8; i++) {
        p[i] = (par){ .idx = i };
        assert_int_equal(pthread_create(&t[i], NULL, parallel_one, &p[i]), 0);
    }
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 8; i++)
        if (!p[i].ok)
            fail_msg("box %d: %s", i, p[i].why);
}

static void callback_drives_repl(void **state)
{
    (void)state;
    repl ctx = { 0 };
    sbx_spec s = { .argv = repl_argv, .interact = repl_cb, .interact_ctx = &ctx };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
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
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_true(r.ended_by_callback);
    assert_int_equal(r.signal, SIGKILL);
    sbx_result_free(&r);
}

/* The callback's time is not the program's: a callback slower than the
 * whole wall limit does not make the program late. */
static void slow_callback_not_charged(void **state)
{
    (void)state;
    repl ctx = { .sleep_ms = 400 };
    sbx_spec s = { .argv = repl_argv, .interact = repl_cb, .interact_ctx = &ctx };
    sbx_limits_default(&s.limits);
    s.limits.wall_ms = 1000; /* under the callback's 3 x 400 ms, the program's own time well within */
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_true(r.wall_us > 1000000);
    sbx_result_free(&r);
}

/* NAME run with a stdin pipe the test keeps open and never writes, until
 * its 500 ms wall limit. */
static void run_on_silent_pipe(const char *name, sbx_result *r)
{
    size_t len;
    char *prog = tl_read_prog(name, &len);
    assert_non_null(prog);
    int p[2];
    assert_int_equal(pipe(p), 0);
    sbx_file f = { "prog", prog, len, true };
    const char *argv[] = { "./prog", NULL };
    sbx_spec s = { .argv = argv, .files = &f, .nfiles = 1, .use_stdin_fd = true, .stdin_fd = p[0] };
    sbx_limits_default(&s.limits);
    s.limits.wall_ms = 3000; /* the program blocked long before, even on a slow or loaded machine */
    assert_int_equal(sbx_run(sx_box, &s, r), 0);
    close(p[1]);
    free(prog);
    sx_assert_status(r, SBX_WALL_TIME_LIMIT);
}

/* "Waiting for input" means blocked on the run's own stdin, with nothing
 * in it: cat is; a program blocked on a pipe of its own put over fd 0 is
 * waiting for nobody, and must not be able to say the judge never sent. */
static void waiting_means_on_its_stdin(void **state)
{
    (void)state;
    sbx_result r;
    run_on_silent_pipe("cat", &r);
    assert_true(r.waiting_for_input);
    sbx_result_free(&r);
    run_on_silent_pipe("stdin_swap", &r);
    assert_false(r.waiting_for_input);
    sbx_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(stdin_bytes_exact, sx_test_setup),
        cmocka_unit_test_setup(stdin_never_read_no_hang, sx_test_setup),
        cmocka_unit_test_setup(two_threads_cpu_summed, sx_test_setup),
        cmocka_unit_test_setup(eight_threads_at_once, sx_test_setup),
        cmocka_unit_test_setup(callback_drives_repl, sx_test_setup),
        cmocka_unit_test_setup(callback_ends_run, sx_test_setup),
        cmocka_unit_test_setup(slow_callback_not_charged, sx_test_setup),
        cmocka_unit_test_setup(waiting_means_on_its_stdin, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
