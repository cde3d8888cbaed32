/* test_sandbox_cgroup.c -- per-run accounting in one slot's cgroup: a
 * run's peak, its "limit hit" and its OOM kills are its own, never what an
 * earlier run of the slot left (v2 before 6.12 cannot reset memory.peak;
 * v1 subtracts the zygote's charge), a program that ran never reports 0
 * bytes, and memory the program parks in the kernel (loopback TCP queues)
 * is held to its limit; the clone3 that starts runs stays the zygote's
 * alone. Real runs of tests/progs in one box, back to back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/sandbox.h"
#include "tests/lib/sandbox_fixtures.h"

static sbx_limits limit_mib(unsigned mib)
{
    sbx_limits l;
    sbx_limits_default(&l);
    l.memory_bytes = (uint64_t)mib << 20;
    return l;
}

static void hog(unsigned limit)
{
    sbx_limits l = limit_mib(limit);
    sbx_result r;
    assert_int_equal(sx_run_prog("memhog", (const char *[]){ "1024", NULL }, &l, &r), 0);
    sx_assert_status(&r, SBX_MEMORY_LIMIT);
    assert_true(r.memory_bytes >= ((uint64_t)limit - 4) << 20 && r.memory_bytes <= (uint64_t)limit << 20);
    sbx_result_free(&r);
}

/* After a run that hit its 64 MiB limit, a small program with the same
 * limit is judged on its own: its exit status, its own peak. */
static void limit_hit_not_carried_over(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++) {
        hog(64);
        sbx_limits l = limit_mib(64);
        sbx_result r;
        assert_int_equal(sx_run_prog("exit3", NULL, &l, &r), 0);
        sx_assert_status(&r, SBX_RUNTIME_ERROR);
        assert_int_equal(r.exit_code, 3);
        assert_true(r.memory_bytes > 0 && r.memory_bytes < (16u << 20));
        sbx_result_free(&r);
    }
}

/* A crash right after a memory-heavy run is a crash, not MEMORY_LIMIT. */
static void crash_after_hog_is_signaled(void **state)
{
    (void)state;
    hog(32);
    sbx_limits l = limit_mib(32);
    sbx_result r;
    assert_int_equal(sx_run_prog("segv", NULL, &l, &r), 0);
    sx_assert_status(&r, SBX_SIGNALED);
    assert_int_equal(r.signal, 11);
    assert_true(r.memory_bytes < (16u << 20));
    sbx_result_free(&r);
}

/* Peaks follow each run up and down: 40, 10, 70, 20 MiB under 128. */
static void peaks_per_run(void **state)
{
    (void)state;
    static const unsigned mib[] = { 40, 10, 70, 20, 40, 10 };
    for (size_t i = 0; i < sizeof mib / sizeof mib[0]; i++) {
        sbx_limits l = limit_mib(128);
        char arg[16];
        snprintf(arg, sizeof arg, "%u", mib[i]);
        sbx_result r;
        assert_int_equal(sx_run_prog("memhog", (const char *[]){ arg, NULL }, &l, &r), 0);
        sx_assert_status(&r, SBX_OK);
        if (r.memory_bytes < ((uint64_t)mib[i] << 20) || r.memory_bytes > ((uint64_t)mib[i] + 8) << 20)
            fail_msg("run %zu: %u MiB touched, peak %llu bytes", i, mib[i], (unsigned long long)r.memory_bytes);
        sbx_result_free(&r);
    }
}

/* Every run that ran reports memory (its resident set at the least). */
static void hello_never_zero(void **state)
{
    (void)state;
    for (int i = 0; i < 20; i++) {
        sbx_result r;
        assert_int_equal(sx_run_prog("hello", NULL, NULL, &r), 0);
        sx_assert_status(&r, SBX_OK);
        if (r.memory_bytes == 0)
            fail_msg("run %d: memory_bytes 0", i);
        sbx_result_free(&r);
    }
}

/* 512 MiB asked for in loopback TCP queues under a 64 MiB limit: what
 * gets parked stays near the limit (or the run is killed for memory). */
static void tcp_buffers_held_to_limit(void **state)
{
    (void)state;
    sbx_limits l = limit_mib(64);
    l.open_files = 1024;
    l.cpu_ms = 20000; /* copying 64 MiB through loopback is slow in an emulated guest */
    l.wall_ms = 60000;
    sbx_result r;
    assert_int_equal(sx_run_prog("tcp_park", (const char *[]){ "512", NULL }, &l, &r), 0);
    if (r.status != SBX_MEMORY_LIMIT) {
        sx_assert_status(&r, SBX_OK);
        unsigned long long parked = 0;
        assert_int_equal(sscanf(r.stdout_buf ? r.stdout_buf : "", "parked %llu", &parked), 1);
        if (parked == 0 || parked > (96ull << 20))
            fail_msg("parked %llu bytes in TCP queues under a 64 MiB limit", parked);
    }
    sbx_result_free(&r);
}

/* The zygote starts runs with clone3; the program's clone3 still fails
 * (ENOSYS: its namespace flags cannot be checked). */
static void clone3_refused(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("clone3_ns", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_int_equal(r.stdout_len, strlen("clone3 errno=ENOSYS\n"));
    assert_memory_equal(r.stdout_buf, "clone3 errno=ENOSYS\n", r.stdout_len);
    sbx_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(limit_hit_not_carried_over, sx_test_setup),
        cmocka_unit_test_setup(crash_after_hog_is_signaled, sx_test_setup),
        cmocka_unit_test_setup(peaks_per_run, sx_test_setup),
        cmocka_unit_test_setup(hello_never_zero, sx_test_setup),
        cmocka_unit_test_setup(tcp_buffers_held_to_limit, sx_test_setup),
        cmocka_unit_test_setup(clone3_refused, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
