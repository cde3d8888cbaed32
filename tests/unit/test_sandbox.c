/* test_sandbox.c -- every status of a run, reached for real with the
 * hostile programs of tests/progs (each copied into /box as ./prog, as a
 * job would be). The fixture (tests/lib/sandbox_fixtures.c) opens the host
 * with require_isolation and gives each test an alarm() as its outer bound.
 * Also: the zygote's answers to a run, one per run in namespaces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox/internal.h"
#include "sandbox/sandbox.h"
#include "tests/lib/files.h"
#include "tests/lib/sandbox_fixtures.h"

static void hello_ok(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("greet", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
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
    assert_int_equal(sx_run_prog("busy_loop", NULL, &l, &r), 0);
    sx_assert_status(&r, SBX_TIME_LIMIT);
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
    assert_int_equal(sx_run_prog("sleep", NULL, &l, &r), 0);
    sx_assert_status(&r, SBX_WALL_TIME_LIMIT);
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
    assert_int_equal(sx_run_prog("memhog", (const char *[]){ "1024", NULL }, &l, &r), 0);
    sx_assert_status(&r, SBX_MEMORY_LIMIT);
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
    assert_int_equal(sx_run_prog("bss_hog", NULL, &l, &r), 0);
    sx_assert_status(&r, SBX_MEMORY_LIMIT);
    sbx_result_free(&r);
}

static void yes_stdout_output_limit(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.stdout_bytes = 100000;
    sbx_result r;
    assert_int_equal(sx_run_prog("yes_stdout", NULL, &l, &r), 0);
    sx_assert_status(&r, SBX_OUTPUT_LIMIT);
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
    assert_int_equal(sx_run_prog("yes_stderr", NULL, &l, &r), 0);
    sx_assert_status(&r, SBX_OUTPUT_LIMIT);
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
    assert_int_equal(sx_run_prog("exact_out", (const char *[]){ "300000", NULL }, &l, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_false(r.stdout_truncated);
    assert_int_equal(r.stdout_len, 300000);
    for (size_t i = 0; i < r.stdout_len; i++)
        assert_int_equal((unsigned char)r.stdout_buf[i], i % 251);
    sbx_result_free(&r);
    /* One byte more is over. */
    assert_int_equal(sx_run_prog("exact_out", (const char *[]){ "300001", NULL }, &l, &r), 0);
    sx_assert_status(&r, SBX_OUTPUT_LIMIT);
    assert_int_equal(r.stdout_len, 300000);
    sbx_result_free(&r);
}

static void segv_signaled(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("segv", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_SIGNALED);
    assert_int_equal(r.signal, SIGSEGV);
    assert_int_equal(r.exit_code, -1);
    sbx_result_free(&r);
}

static void self_sigxcpu_is_signaled(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("sigxcpu_self", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_SIGNALED);
    assert_int_equal(r.signal, SIGXCPU);
    sbx_result_free(&r);
}

static void exit3_runtime_error(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("exit3", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_RUNTIME_ERROR);
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
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_EXEC_ERROR);
    assert_non_null(strstr(r.error, "No such file"));
    sbx_result_free(&r);
    /* Not executable, then not a valid binary. */
    sbx_file f = { "prog", "just text\n", 10, false };
    const char *argv2[] = { "./prog", NULL };
    sbx_spec s2 = { .argv = argv2, .files = &f, .nfiles = 1, .limits = s.limits };
    assert_int_equal(sbx_run(sx_box, &s2, &r), 0);
    sx_assert_status(&r, SBX_EXEC_ERROR);
    assert_non_null(strstr(r.error, "Permission denied"));
    sbx_result_free(&r);
    f.executable = true;
    f.data = "\x7f" "ELF garbage";
    f.len = 12;
    assert_int_equal(sbx_run(sx_box, &s2, &r), 0);
    sx_assert_status(&r, SBX_EXEC_ERROR);
    sbx_result_free(&r);
}

/* Sends argv to the box's zygote as a run, stdout and stderr to a pipe;
 * returns the zygote's first answer (and checks none follows it when
 * it is not STARTED). */
static uint32_t zygote_answer(const char *path)
{
    char err[SBX_ERR_LEN];
    const char *argv[] = { path, NULL };
    sbx_spec s = { .argv = argv };
    sbx_limits_default(&s.limits);
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    assert_true(in >= 0);
    int give[3] = { in, p[1], p[1] };
    assert_int_equal(box_send_run(sx_box, &s, give, err, sizeof err), 0);
    close(in);
    close(p[1]);
    zy_msg m;
    assert_int_equal(box_recv(sx_box, &m, err, sizeof err), 0);
    if (m.op != ZY_STARTED) {
        char left;
        assert_int_equal(recv(sx_box->sock, &left, 1, MSG_DONTWAIT), -1);
        assert_int_equal(errno, EAGAIN);
    }
    close(p[0]);
    return m.op;
}

/* In namespaces the zygote answers each run once, when it is over: EXITED
 * for a program that ran, EXEC_FAILED for one that never started (no
 * STARTED before either, which woke the caller once more per run). */
static void zygote_answers_a_run_once(void **state)
{
    (void)state;
    assert_true(sx_box->ns);
    assert_int_equal(zygote_answer("/bin/true"), ZY_EXITED);
    assert_int_equal(zygote_answer("/nonexistent"), ZY_EXEC_FAILED);
    assert_int_equal(zygote_answer("/bin/true"), ZY_EXITED);
    sbx_result r;
    assert_int_equal(sx_run_prog("greet", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
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
    assert_int_equal(sx_run_prog("write_big", (const char *[]){ "16", NULL }, &l, &r), 0);
    sx_assert_status(&r, SBX_RUNTIME_ERROR);
    assert_int_equal(r.exit_code, 3);
    sbx_result_free(&r);
    /* A program that does not catch it dies of it: a file over the limit
     * is OUTPUT_LIMIT, not a crash. */
    const char *argv[] = { "/bin/sh", "-c", "exec head -c 16M /dev/zero > big", NULL };
    sbx_spec s = { .argv = argv, .limits = l };
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OUTPUT_LIMIT);
    sbx_result_free(&r);
}

/* SIGXFSZ the program sent itself, with no file of its own at the limit
 * (a placed input over the limit does not count: the run did not write
 * it): a crash, like a self-raised SIGXCPU. The kernel's own SIGXFSZ at
 * the limit is OUTPUT_LIMIT, in /tmp as in /box. */
static void self_sigxfsz_is_signaled(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.file_bytes = 1 << 20;
    size_t len;
    char *prog = tl_read_prog("xfsz", &len);
    assert_non_null(prog);
    char *input = calloc(1, 2 << 20);
    assert_non_null(input);
    sbx_file f[2] = { { "prog", prog, len, true }, { "input", input, 2 << 20, false } };
    const char *argv[] = { "./prog", "raise", NULL };
    sbx_spec s = { .argv = argv, .files = f, .nfiles = 2, .limits = l };
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_SIGNALED);
    assert_int_equal(r.signal, SIGXFSZ);
    sbx_result_free(&r);
    const char *write_argv[] = { "/bin/sh", "-c", "cd /tmp && exec /box/prog write", NULL };
    s.argv = write_argv;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OUTPUT_LIMIT);
    sbx_result_free(&r);
    free(prog);
    free(input);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(hello_ok, sx_test_setup),
        cmocka_unit_test_setup(loop_time_limit, sx_test_setup),
        cmocka_unit_test_setup(sleep_wall_limit, sx_test_setup),
        cmocka_unit_test_setup(memhog_memory_limit, sx_test_setup),
        cmocka_unit_test_setup(bss_hog_memory_limit, sx_test_setup),
        cmocka_unit_test_setup(yes_stdout_output_limit, sx_test_setup),
        cmocka_unit_test_setup(yes_stderr_output_limit, sx_test_setup),
        cmocka_unit_test_setup(exact_cap_is_ok, sx_test_setup),
        cmocka_unit_test_setup(segv_signaled, sx_test_setup),
        cmocka_unit_test_setup(self_sigxcpu_is_signaled, sx_test_setup),
        cmocka_unit_test_setup(exit3_runtime_error, sx_test_setup),
        cmocka_unit_test_setup(missing_program_exec_error, sx_test_setup),
        cmocka_unit_test_setup(zygote_answers_a_run_once, sx_test_setup),
        cmocka_unit_test_setup(write_big_file_limit, sx_test_setup),
        cmocka_unit_test_setup(self_sigxfsz_is_signaled, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
