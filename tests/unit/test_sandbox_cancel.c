/* test_sandbox_cancel.c -- a cancel reaches the run it names and no other:
 * the box's next run when asked between runs, the run in progress from
 * another thread, never a run after the named one has returned (the
 * transcript relay that noticed the stdout cap only after its program had
 * ended once cancelled the slot's next job); every run after a forced
 * shutdown's cancel_all; and, under a thread that cancels while the box
 * runs and is rebuilt, only the runs it named. */
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
#include "tests/lib/sandbox_fixtures.h"
#include "worker/engine/interact.h"

static bool cancelled(const sbx_result *r)
{
    return r->status == SBX_SANDBOX_ERROR && strstr(r->error, "cancelled");
}

static void hello_ok(sbx_box *b)
{
    sbx_result r;
    assert_int_equal(sx_run_prog_in(b, "greet", NULL, NULL, NULL, 0, &r), 0);
    sx_assert_status(&r, SBX_OK);
    sbx_result_free(&r);
}

static void cancel_names_its_run(void **state)
{
    (void)state;
    /* Between runs, a cancel of the next run ends it as it starts... */
    uint64_t next = sbx_box_run_id(sx_box);
    sbx_box_cancel(sx_box, next);
    sbx_result r;
    assert_int_equal(sx_run_prog("greet", NULL, NULL, &r), -1);
    assert_true(cancelled(&r));
    sbx_result_free(&r);
    assert_int_equal(sbx_box_run_id(sx_box), next + 1);
    /* ...and that run only. */
    hello_ok(sx_box);
    /* A cancel naming a run that has returned reaches nothing. */
    sbx_box_cancel(sx_box, sbx_box_run_id(sx_box) - 1);
    hello_ok(sx_box);
    hello_ok(sx_box);
}

/* From the reader thread, while the program waits: the run ends at once
 * (not at its 20 s wall), as cancelled. */
static int cancel_own_run(void *ctx, int stream, const void *buf, size_t len, sbx_reply *reply)
{
    (void)stream, (void)buf, (void)len, (void)reply;
    sbx_box_cancel(sx_box, *(uint64_t *)ctx);
    return 0;
}

static void cancel_from_another_thread_ends_the_run(void **state)
{
    (void)state;
    uint64_t id = sbx_box_run_id(sx_box);
    const char *argv[] = { "/bin/sh", "-c", "echo go; exec sleep 100", NULL };
    sbx_spec s = { .argv = argv, .interact = cancel_own_run, .interact_ctx = &id };
    sbx_limits_default(&s.limits);
    s.limits.wall_ms = 20000;
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), -1);
    assert_true(cancelled(&r));
    assert_true(r.wall_us < 10000000);
    sbx_result_free(&r);
    hello_ok(sx_box);
}

static void cancel_all_ends_every_later_run(void **state)
{
    (void)state;
    sbx_box *b;
    char err[SBX_ERR_LEN];
    assert_int_equal(sbx_box_open(sx_host, &b, err, sizeof err), 0);
    hello_ok(b);
    sbx_box_cancel_all(b);
    for (int i = 0; i < 3; i++) {
        sbx_result r;
        assert_int_equal(sx_run_prog_in(b, "greet", NULL, NULL, NULL, 0, &r), -1);
        assert_true(cancelled(&r));
        sbx_result_free(&r);
    }
    sbx_box_close(b);
}

/* The relay counts the program's output only as it passes it on: here it
 * is held up behind an interactor that reads nothing until the program's
 * run has returned (its stdout then breaks: the program is gone), so it
 * sees the byte past the cap only then, and cancels a run that is over.
 * The byte counts: the relay reads at most 64 KiB it cannot pass on plus
 * the 64 KiB the interactor's pipe takes before it stops, so a cap of
 * 128 KiB is not crossed before; the last byte waits in the program's
 * pipe, which lets the program finish and exit. */
static void stale_transcript_cancel_reaches_no_later_run(void **state)
{
    (void)state;
    sbx_box *ibox;
    char err[SBX_ERR_LEN];
    assert_int_equal(sbx_box_open(sx_host, &ibox, err, sizeof err), 0);
    const char *pargv[] = { "/usr/bin/head", "-c", "131073", "/dev/zero", NULL };
    const char *iargv[] = { "/bin/sh", "-c",
                            "trap '' PIPE; while echo x; do :; done 2>/dev/null; exec cat >/dev/null", NULL };
    sbx_spec prog = { .argv = pargv }, inter = { .argv = iargv };
    sbx_limits_default(&prog.limits);
    sbx_limits_default(&inter.limits);
    prog.limits.stdout_bytes = 131072;
    prog.limits.wall_ms = 20000;
    wk_pair pair;
    assert_int_equal(wk_run_pair(sx_box, &prog, ibox, &inter, &(wk_pair_opts){ .transcript_bytes = 4096 }, &pair), 0);
    /* The program was over its cap, and it had ended by itself. */
    if (strcmp(pair.status, "OUTPUT_LIMIT") != 0 || pair.prog.exit_code != 0)
        fail_msg("verdict %s (program exit %d %s; interactor %s)", pair.status, pair.prog.exit_code,
                 pair.prog.error, sbx_status_name(pair.inter.status));
    wk_pair_free(&pair);
    /* An innocent run in the program's box. */
    hello_ok(sx_box);
    sbx_box_close(ibox);
}

/* A thread cancels while the box runs programs that cost it a rebuild
 * (each closes and reopens the zygote's socket and directories): odd runs
 * by their number, even runs never (it names the one before). No even run
 * may end cancelled, nor any run fail otherwise. */
typedef struct canceller {
    atomic_bool stop;
    unsigned long sent;
} canceller;

static void *cancel_loop(void *arg)
{
    canceller *c = arg;
    unsigned seed = 17;
    while (!atomic_load(&c->stop)) {
        uint64_t id = sbx_box_run_id(sx_box);
        /* A delay of 0-4 ms spreads the cancels of odd runs over before,
         * during and after them (then they name a run that is over). */
        struct timespec d = { 0, (long)(rand_r(&seed) % 4000) * 1000 };
        nanosleep(&d, NULL);
        sbx_box_cancel(sx_box, id % 2 ? id : id - 1);
        c->sent++;
    }
    return NULL;
}

static void cancels_against_rebuilds_reach_only_their_runs(void **state)
{
    (void)state;
    /* Five: each program gets odd and even numbers. */
    static const char *const progs[][3] = { { "plant", NULL }, { "greet", NULL }, { "sock_left", "make" },
                                            { "stdout_inflight", NULL }, { "greet", NULL } };
    unsigned long rebuilds = sbx_box_rebuilds(sx_box);
    int odd_cancelled = 0, planted = 0, runs = 60;
    canceller c = { .stop = false };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, cancel_loop, &c), 0);
    for (int i = 0; i < runs; i++) {
        const char *const *p = progs[i % 5];
        uint64_t id = sbx_box_run_id(sx_box); /* idle: this is the next run's */
        sbx_result r;
        sx_run_prog(p[0], (const char *[]){ p[1], NULL }, NULL, &r);
        if (cancelled(&r) && id % 2)
            odd_cancelled++;
        else if (r.status == SBX_OK && strcmp(p[0], "plant") == 0)
            planted++; /* its 40-deep tree costs the box */
        else if (r.status != SBX_OK)
            fail_msg("run %llu (%s, %s): %s %s", (unsigned long long)id, p[0], id % 2 ? "odd" : "even",
                     sbx_status_name(r.status), r.error);
        sbx_result_free(&r);
    }
    /* Timing alone may let every odd run end before its cancel: an odd run
     * that waits until it is cancelled proves the canceller lands (its
     * 60 s wall only ends a canceller that never reaches it). */
    while (sbx_box_run_id(sx_box) % 2 == 0)
        hello_ok(sx_box);
    sbx_limits waits;
    sbx_limits_default(&waits);
    waits.wall_ms = 60000;
    sbx_result w;
    sx_run_prog("sleep", NULL, &waits, &w);
    if (!cancelled(&w))
        fail_msg("an odd run the canceller should end: %s %s", sbx_status_name(w.status), w.error);
    sbx_result_free(&w);
    odd_cancelled++;
    atomic_store(&c.stop, true);
    pthread_join(t, NULL);
    /* Both attacks happened: boxes were rebuilt, cancels landed. */
    assert_true(planted > 0);
    assert_true(sbx_box_rebuilds(sx_box) >= rebuilds + (unsigned long)planted);
    assert_true(odd_cancelled > 0);
    /* A request may still name the next run: the one after is free. */
    sbx_result r;
    sx_run_prog("greet", NULL, NULL, &r);
    sbx_result_free(&r);
    hello_ok(sx_box);
    print_message("%lu cancels sent, %d of the odd runs cancelled, %lu rebuilds\n", c.sent, odd_cancelled,
                  sbx_box_rebuilds(sx_box) - rebuilds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(cancel_names_its_run, sx_test_setup),
        cmocka_unit_test_setup(cancel_from_another_thread_ends_the_run, sx_test_setup),
        cmocka_unit_test_setup(cancel_all_ends_every_later_run, sx_test_setup),
        cmocka_unit_test_setup(stale_transcript_cancel_reaches_no_later_run, sx_test_setup),
        cmocka_unit_test_setup(cancels_against_rebuilds_reach_only_their_runs, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
