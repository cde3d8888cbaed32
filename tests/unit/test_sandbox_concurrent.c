/* test_sandbox_concurrent.c -- what one run can do to another running at
 * the same time in another box: take its CPU by multiplying scheduler
 * shares (64 sessions, each an autogroup of its own), or signal it through
 * locks on the system files every box shares; or what opening a box does
 * to a run placing its files at that moment. Each pair runs for real,
 * side by side, the first one's readiness read from its stdout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sandbox/sandbox.h"
#include "tests/lib/files.h"
#include "tests/lib/sandbox_fixtures.h"

static sbx_box *other_box(void)
{
    sbx_box *b;
    char err[SBX_ERR_LEN];
    if (sbx_box_open(sx_host, &b, err, sizeof err) < 0)
        fail_msg("second box: %s", err);
    return b;
}

/* The CPU a run has used so far, as the hog reports it. */
static long hog_cpu_ms(sx_bg *hog)
{
    char line[64];
    long ms = -1;
    sx_bg_send(hog, "?");
    sx_bg_line(hog, line, sizeof line);
    if (sscanf(line, "cpu_ms=%ld", &ms) != 1 || ms < 0)
        fail_msg("the hog said \"%s\"", line);
    return ms;
}

/* 63 processes, each in a session of its own, spin in one box while a job
 * of 300 ms of CPU runs in another, both pinned to one CPU: there the job
 * gets about as much CPU as the 63 together (equal weights per run), not
 * 1/64 of it (a weight per autogroup). On one CPU the answer is the same
 * whatever the machine has: unpinned, on a machine of many CPUs the 63 had
 * CPUs of their own beside the job's one, so the job (one thread) got a
 * small part of what they got with fair weights (1/15 on 16 CPUs: the
 * check failed), and a share per autogroup went unseen. Compared as
 * rates, CPU per second of wall time: the job's over its own run, the
 * hog's over the window between two of its reports around that run (on a
 * slow machine the window is much longer than the run: box set-up, the
 * report's round trip), so that whatever else runs on that CPU weighs on
 * both; the bound, a quarter, only catches the share per session (1/63 of
 * the hog's rate). */
static void setsid_sessions_take_no_more_than_a_share(void **state)
{
    (void)state;
    sbx_box *hogbox = other_box();
    sbx_limits hl;
    sbx_limits_default(&hl);
    hl.cpu_ms = 600000;
    hl.wall_ms = 100000;
    sx_bg hog;
    sx_bg_prepare(&hog, hogbox, "setsid_hog", (const char *[]){ "63", NULL }, &hl);
    hog.spec.pin_cpu = true;
    hog.spec.cpu = 0;
    sx_bg_go(&hog);
    char line[64];
    sx_bg_line(&hog, line, sizeof line);
    assert_string_equal(line, "ready 63");
    size_t len;
    char *prog = tl_read_prog("spin_cpu", &len);
    assert_non_null(prog);
    sbx_file f = { "prog", prog, len, true };
    sbx_spec job = { .argv = (const char *[]){ "./prog", "300", NULL }, .files = &f, .nfiles = 1,
                     .pin_cpu = true, .cpu = 0 };
    sbx_limits_default(&job.limits);
    job.limits.cpu_ms = 10000;
    job.limits.wall_ms = 60000;
    sbx_result r;
    struct timespec t0, t1;
    long before = hog_cpu_ms(&hog);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = sbx_run(sx_box, &job, &r);
    long hog_ms = hog_cpu_ms(&hog) - before;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double window_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    free(prog);
    sx_bg_finish(&hog);
    sx_assert_status(&hog.r, SBX_OK);
    sbx_result_free(&hog.r);
    sbx_box_close(hogbox);
    assert_int_equal(rc, 0);
    sx_assert_status(&r, SBX_OK);
    double job_rate = (double)r.cpu_us / (double)(r.wall_us > 0 ? r.wall_us : 1);
    double hog_rate = (double)(hog_ms > 0 ? hog_ms : 1) / window_ms;
    if (r.cpu_us < 300000 || job_rate < 0.25 * hog_rate)
        fail_msg("beside 63 sessions on its CPU the job got %llu us of CPU in %llu us while they got %ld ms in "
                 "%.0f ms: %.3f of their rate",
                 (unsigned long long)r.cpu_us, (unsigned long long)r.wall_us, hog_ms, window_ms, job_rate / hog_rate);
    print_message("the job's rate of CPU, %.3f of the 63 sessions' on their shared CPU\n", job_rate / hog_rate);
    sbx_result_free(&r);
}

/* One run holds flock, POSIX and OFD locks on a system file (the same
 * host file in every box); a run in another box sees none of them, and
 * each call still succeeds for the program that makes it. */
static void locks_on_shared_files_signal_nothing(void **state)
{
    (void)state;
    sbx_box *b2 = other_box();
    sx_bg holder;
    sx_bg_start(&holder, b2, "locks", (const char *[]){ "hold", "/usr/bin/env", NULL }, NULL);
    char line[128];
    sx_bg_line(&holder, line, sizeof line);
    sbx_result r;
    int rc = sx_run_prog("locks", (const char *[]){ "probe", "/usr/bin/env", NULL }, NULL, &r);
    sx_bg_finish(&holder);
    sx_assert_status(&holder.r, SBX_OK);
    sbx_result_free(&holder.r);
    sbx_box_close(b2);
    assert_string_equal(line, "held flock=ok posix=ok ofd=ok");
    assert_int_equal(rc, 0);
    sx_assert_status(&r, SBX_OK);
    const char want[] = "probe flock=ok posix=unlocked ofd=unlocked\n";
    if (r.stdout_len != sizeof want - 1 || memcmp(r.stdout_buf, want, sizeof want - 1) != 0)
        fail_msg("the probe saw the other run's locks: %.*s", (int)r.stdout_len, r.stdout_buf);
    sbx_result_free(&r);
}

/* Boxes opened and closed until `stop` is set, a zygote cloned for each;
 * the first failure in err. */
typedef struct opener {
    atomic_bool stop;
    char err[SBX_ERR_LEN];
} opener;

static void *open_boxes(void *arg)
{
    opener *o = arg;
    while (!atomic_load(&o->stop)) {
        sbx_box *b;
        if (sbx_box_open(sx_host, &b, o->err, sizeof o->err) < 0)
            return NULL;
        sbx_box_close(b);
    }
    return NULL;
}

/* A zygote cloned while another box's program file is open for writing
 * inherits that descriptor until it closes what it inherited, and the
 * program's exec meanwhile fails with ETXTBSY ("Text file busy"): the run
 * ended EXEC_ERROR for no fault of its own. Runs of a program padded to
 * 4 MiB (a long write) while another thread opens boxes: every one ends OK. */
static void placing_files_beside_a_box_opening(void **state)
{
    (void)state;
    size_t len;
    char *prog = tl_read_prog("cat", &len);
    size_t padded = len + (4u << 20);
    prog = realloc(prog, padded);
    assert_non_null(prog);
    memset(prog + len, 0, padded - len);
    opener o = { .stop = false };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, open_boxes, &o), 0);
    const char *argv[] = { "./prog", NULL };
    sbx_file f = { "prog", prog, padded, true };
    int bad = -1;
    sbx_result r;
    for (int i = 0; i < 200 && bad < 0; i++) {
        sbx_spec s = { .argv = argv, .files = &f, .nfiles = 1, .stdin_data = "x", .stdin_len = 1 };
        sbx_limits_default(&s.limits);
        s.limits.wall_ms = 60000;
        assert_int_equal(sbx_run(sx_box, &s, &r), 0);
        if (r.status != SBX_OK)
            bad = i;
        else
            sbx_result_free(&r);
    }
    atomic_store(&o.stop, true);
    pthread_join(t, NULL);
    free(prog);
    if (o.err[0])
        fail_msg("a box opened beside the runs: %s", o.err);
    if (bad >= 0)
        fail_msg("run %d: %s (%s)", bad, sbx_status_name(r.status), r.error);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(setsid_sessions_take_no_more_than_a_share, sx_test_setup),
        cmocka_unit_test_setup(locks_on_shared_files_signal_nothing, sx_test_setup),
        cmocka_unit_test_setup(placing_files_beside_a_box_opening, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
