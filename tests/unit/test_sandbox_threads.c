/* test_sandbox_threads.c -- a box's reader, watchdog and writer threads are
 * made once and kept from run to run: they live exactly as long as the box,
 * and each run still gets what fresh threads gave it (its own output, cut
 * at its own cap; its own time limits; its own interaction); a quick run
 * wakes no watchdog and no reader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "tests/lib/sandbox_fixtures.h"

/* Threads of this process now. */
static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void run_hello(sbx_box *b)
{
    sbx_result r;
    assert_int_equal(sx_run_prog_in(b, "greet", NULL, NULL, NULL, 0, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_true(r.stdout_len > 0);
    sbx_result_free(&r);
}

static int echo_cb(void *ctx, int stream, const void *buf, size_t len, sbx_reply *reply)
{
    (void)ctx;
    (void)stream;
    (void)buf;
    (void)len;
    sbx_reply_close(reply);
    return 0;
}

static void run_interactive(sbx_box *b)
{
    const char *argv[] = { "/bin/sh", "-c", "echo ready; read x; echo done", NULL };
    sbx_spec s = { .argv = argv, .interact = echo_cb };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(b, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_int_equal(r.stdout_len, 11);
    assert_memory_equal(r.stdout_buf, "ready\ndone\n", 11);
    sbx_result_free(&r);
}

/* The first run makes the readers and the watchdog, an interactive run the
 * writer; later runs make none; closing the box joins them all. */
static void threads_live_as_long_as_the_box(void **state)
{
    (void)state;
    char err[SBX_ERR_LEN];
    sbx_box *b;
    int base = threads_now();
    assert_int_equal(sbx_box_open(sx_host, &b, err, sizeof err), 0);
    run_hello(b);
    int after_one = threads_now();
    assert_int_equal(after_one, base + 3);
    for (int i = 0; i < 10; i++)
        run_hello(b);
    assert_int_equal(threads_now(), after_one);
    run_interactive(b);
    assert_int_equal(threads_now(), base + 4);
    run_hello(b);
    run_interactive(b);
    assert_int_equal(threads_now(), base + 4);
    sbx_box_close(b);
    assert_int_equal(threads_now(), base);
}

/* Voluntary context switches (times it went to sleep) of every thread of
 * this process named name. */
static long sleeps_of(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    long sum = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], text[4096];
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* a thread that ended meanwhile */
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = 0;
        const char *sw = strstr(text, "\nvoluntary_ctxt_switches:");
        char line[64];
        snprintf(line, sizeof line, "Name:\t%s\n", name);
        if (strncmp(text, line, strlen(line)) == 0 && sw)
            sum += atol(sw + strlen("\nvoluntary_ctxt_switches:"));
    }
    closedir(d);
    return sum;
}

static const char *const true_argv[] = { "/bin/true", NULL };

/* When a run's readers first look (capture.c): twice the quickest run the
 * box has had before it, within 2 and 8 ms. quickest_us: the box's quickest
 * run as the test saw them (every run of the box is the test's), 0 before
 * the first. Wall times are whole microseconds, so this is never later
 * than the box's own look. */
static long look_us(long quickest_us)
{
    long q = 2 * quickest_us;
    return q < 2000 ? 2000 : q > 8000 ? 8000 : q;
}

/* Quick runs of argv in b under limits of an hour: the watchdog's first
 * look at a run is due only after the run's CPU left over the CPUs it may
 * use (3.5 s on 1024 of them), so a run ends before it, however slow the
 * machine or many its CPUs. Under the default second, on a machine of 64
 * CPUs a look was due every 16 ms, and a run that took longer (a slow or
 * emulated machine) made the watchdog sleep more than once. Returns how
 * many lasted past their readers' first look (look_us), *quickest_us kept
 * up to date. */
static long quick_runs(sbx_box *b, const char *const *argv, int n, long *quickest_us)
{
    sbx_spec s = { .argv = argv };
    sbx_limits_default(&s.limits);
    s.limits.cpu_ms = s.limits.wall_ms = 3600 * 1000;
    long slow = 0;
    for (int i = 0; i < n; i++) {
        sbx_result r;
        long look = look_us(*quickest_us);
        assert_int_equal(sbx_run(b, &s, &r), 0);
        sx_assert_status(&r, SBX_OK);
        slow += (long)r.wall_us >= look;
        if (!*quickest_us || (long)r.wall_us < *quickest_us)
            *quickest_us = (long)r.wall_us;
        sbx_result_free(&r);
    }
    return slow;
}

/* The fewest times the threads named name went to sleep over a batch of
 * 30 quick runs of argv, of 5 batches, less two for each of the batch's
 * runs that lasted past their readers' first look when excuse_slow (a
 * reader then sleeps on the pipe, and again after the run's end). A thread
 * also sleeps when another holds a lock it takes, as often as the
 * scheduler makes it happen (the readers slept 51 times over 30 runs once,
 * 30 in most batches): that only adds, so the fewest over batches is what
 * each run costs by design. */
static long fewest_sleeps(sbx_box *b, const char *const *argv, long *quickest_us, const char *name,
                          bool excuse_slow)
{
    long fewest = -1;
    for (int batch = 0; batch < 5; batch++) {
        long before = sleeps_of(name);
        long slow = quick_runs(b, argv, 30, quickest_us);
        long slept = sleeps_of(name) - before - (excuse_slow ? 2 * slow : 0);
        if (fewest < 0 || slept < fewest)
            fewest = slept;
    }
    return fewest;
}

/* Neither a run's start nor its end wakes the box's watchdog: a run's
 * start only sets the watchdog's timer for the run's first look, which a
 * run shorter than that never reaches. Over 30 quick runs the watchdog
 * does not go to sleep again (it slept once a run when each start woke
 * it, 3 to 4 times a run when each end woke it and waited for it). */
static void quick_runs_wake_no_watchdog(void **state)
{
    (void)state;
    char err[SBX_ERR_LEN];
    sbx_box *b;
    long quickest = 0;
    assert_int_equal(sbx_box_open(sx_host, &b, err, sizeof err), 0);
    quick_runs(b, true_argv, 1, &quickest);
    assert_true(sleeps_of("gradeq-watchdog") > 0); /* the thread is there, by that name */
    long slept = fewest_sleeps(b, true_argv, &quickest, "gradeq-watchdog", false);
    sbx_box_close(b);
    if (slept > 1)
        fail_msg("the watchdog went to sleep %ld times over 30 quick runs (the fewest of 5 batches)", slept);
}

/* The readers' sleeps over quick runs of argv in a fresh box, the fewest
 * of 5 batches of 30 for each stream (see fewest_sleeps). */
static void reader_sleeps(const char *const *argv, long *out, long *errs)
{
    char err[SBX_ERR_LEN];
    sbx_box *b;
    long quickest = 0;
    assert_int_equal(sbx_box_open(sx_host, &b, err, sizeof err), 0);
    quick_runs(b, argv, 1, &quickest);
    assert_true(sleeps_of("gradeq-stdout") > 0 && sleeps_of("gradeq-stderr") > 0);
    *out = fewest_sleeps(b, argv, &quickest, "gradeq-stdout", true);
    *errs = fewest_sleeps(b, argv, &quickest, "gradeq-stderr", true);
    sbx_box_close(b);
}

/* A run over before its readers' first look wakes neither: a reader
 * sleeps on its own timer, not on the pipe, and the run's thread takes
 * what the quick run left in the pipes (a reader slept twice a run when
 * the run's start woke it too, once a run when it waited on the pipe).
 * A run that lasts past the look is not counted. */
static void quick_runs_wake_no_reader(void **state)
{
    (void)state;
    long out, errs;
    reader_sleeps(true_argv, &out, &errs);
    if (out > 1 || errs > 1)
        fail_msg("over 30 quick runs the readers went to sleep %ld and %ld times (the fewest of 5 batches)", out,
                 errs);
}

/* Nor on a machine where starting and ending a program takes longer than
 * a fixed look would allow (an emulated or a loaded one): the look follows
 * the box's quickest run. Runs of `sleep 0.003` stand for such a machine's
 * quick runs: each lasts past 2 ms, when the look came in every run before
 * (both readers then slept twice a run). A run past its look (8 ms at
 * most, on a very slow machine) is not counted. */
static void quick_runs_on_a_slow_machine_wake_no_reader(void **state)
{
    (void)state;
    static const char *const argv[] = { "/bin/sleep", "0.003", NULL };
    long out, errs;
    reader_sleeps(argv, &out, &errs);
    if (out > 1 || errs > 1)
        fail_msg("over 30 runs of 3 ms the readers went to sleep %ld and %ld times (the fewest of 5 batches)", out,
                 errs);
}

/* A quick run followed by a pause longer than its readers' first look,
 * which comes 8 ms after the run's start at the latest (a checker's run, the next command of a holder, a worker waiting on Redis):
 * the run's thread took the pipes, and the readers' timers, no longer of
 * use, wake nobody in the pause (each reader slept once a pause, at the
 * look that came in it). Only the pauses are counted: a run that lasts
 * past the look has it during the run. The pause is the case under test,
 * not a wait for anything. */
static void a_pause_after_a_quick_run_wakes_no_reader(void **state)
{
    (void)state;
    char err[SBX_ERR_LEN];
    sbx_box *b;
    long quickest = 0;
    assert_int_equal(sbx_box_open(sx_host, &b, err, sizeof err), 0);
    quick_runs(b, true_argv, 1, &quickest);
    long fewest = -1;
    for (int batch = 0; batch < 5; batch++) {
        long slept = 0;
        for (int i = 0; i < 10; i++) {
            quick_runs(b, true_argv, 1, &quickest);
            long before = sleeps_of("gradeq-stdout") + sleeps_of("gradeq-stderr");
            nanosleep(&(struct timespec){ 0, 9000000 }, NULL);
            slept += sleeps_of("gradeq-stdout") + sleeps_of("gradeq-stderr") - before;
        }
        if (fewest < 0 || slept < fewest)
            fewest = slept;
    }
    sbx_box_close(b);
    if (fewest > 1)
        fail_msg("in 10 pauses after quick runs the readers slept %ld times (the fewest of 5 batches)", fewest);
}

/* Floods against small caps on either stream, between runs whose output
 * is whole: each flood ends OUTPUT_LIMIT with exactly its cap kept, and
 * nothing of one run's stream reaches the next. */
static void kept_readers_cut_each_run_at_its_cap(void **state)
{
    (void)state;
    static const char *const floods[] = { "yes_stdout", "yes_stderr", "yes_both" };
    for (int i = 0; i < 9; i++) {
        sbx_limits l;
        sbx_limits_default(&l);
        l.stdout_bytes = 1000 + 4096 * (uint64_t)i;
        l.stderr_bytes = 3000 + 512 * (uint64_t)i;
        sbx_result r;
        assert_int_equal(sx_run_prog(floods[i % 3], NULL, &l, &r), 0);
        sx_assert_status(&r, SBX_OUTPUT_LIMIT);
        assert_true(r.stdout_len <= l.stdout_bytes && r.stderr_len <= l.stderr_bytes);
        assert_true(r.stdout_len == l.stdout_bytes || r.stderr_len == l.stderr_bytes);
        assert_true(r.stdout_truncated || r.stderr_truncated);
        sbx_result_free(&r);
        const char msg[] = "only this\n";
        assert_int_equal(sx_run_prog_in(sx_box, "cat", NULL, NULL, msg, sizeof msg - 1, &r), 0);
        sx_assert_status(&r, SBX_OK);
        assert_int_equal(r.stdout_len, sizeof msg - 1);
        assert_memory_equal(r.stdout_buf, msg, sizeof msg - 1);
        assert_int_equal(r.stderr_len, 0);
        assert_false(r.stdout_truncated || r.stderr_truncated);
        sbx_result_free(&r);
    }
}

/* The kept watchdog times each run from its own start: a CPU hog and a
 * sleeper end at their limits, and a quick run after either is OK. */
static void kept_watchdog_times_each_run(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        sbx_limits l;
        sbx_limits_default(&l);
        l.cpu_ms = 200;
        l.wall_ms = 5000;
        sbx_result r;
        assert_int_equal(sx_run_prog("busy_loop", NULL, &l, &r), 0);
        sx_assert_status(&r, SBX_TIME_LIMIT);
        assert_true(r.cpu_us >= 200000);
        sbx_result_free(&r);
        run_hello(sx_box);
        l.cpu_ms = 1000;
        l.wall_ms = 300;
        
        assert_int_equal(sx_run_prog("sleep", NULL, &l, &r), 0);
        sx_assert_status(&r, SBX_WALL_TIME_LIMIT);
        assert_true(r.wall_us >= 300000 && r.wall_us < 5000000);
        sbx_result_free(&r);
        run_interactive(sx_box);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(threads_live_as_long_as_the_box, sx_test_setup),
        cmocka_unit_test_setup(kept_readers_cut_each_run_at_its_cap, sx_test_setup),
        cmocka_unit_test_setup(kept_watchdog_times_each_run, sx_test_setup),
        cmocka_unit_test_setup(quick_runs_wake_no_watchdog, sx_test_setup),
        cmocka_unit_test_setup(quick_runs_wake_no_reader, sx_test_setup),
        cmocka_unit_test_setup(quick_runs_on_a_slow_machine_wake_no_reader, sx_test_setup),
        cmocka_unit_test_setup(a_pause_after_a_quick_run_wakes_no_reader, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
