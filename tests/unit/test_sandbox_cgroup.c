/* test_sandbox_cgroup.c -- per-run accounting in one slot's cgroup: a
 * run's peak, its "limit hit" and its OOM kills are its own, never what an
 * earlier run of the slot left (v2 before 6.12 cannot reset memory.peak;
 * v1 subtracts the zygote's charge), a program that ran never reports 0
 * bytes, and memory the program parks in the kernel (loopback TCP queues)
 * is held to its limit; the clone3 that starts runs stays the zygote's
 * alone, and where the zygote needs none its filter is loaded once; a placed file cannot serve as memory; the memory verdict counts
 * page cache reclaimed at the limit only when the run also ran out of CPU
 * there; the files a run read stay cached for the next run (a runtime's
 * libraries) without loosening its limit. Real runs of tests/progs in one
 * box, back to back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/internal.h"
#include "sandbox/sandbox.h"
#include "tests/lib/files.h"
#include "tests/lib/host_file.h"
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
        assert_int_equal(sx_run_prog("greet", NULL, NULL, &r), 0);
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

/* The count on the "Seccomp_filters:" line of a /proc/.../status text. */
static int filters_in(const char *status)
{
    const char *p = status ? strstr(status, "Seccomp_filters:") : NULL;
    return p ? atoi(p + strlen("Seccomp_filters:")) : -1;
}

/* A program runs under the main filter and the clone3 one. On v2 the
 * zygote starts runs with clone3, so each run loads the second; elsewhere
 * the zygote never calls clone3 and carries both itself, and no run pays
 * for loading (and the kernel for freeing) a filter of its own. */
static void clone3_filter_loaded_once(void **state)
{
    (void)state;
    const char *argv[] = { "/bin/cat", "/proc/self/status", NULL };
    sbx_spec s = { .argv = argv };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_int_equal(filters_in(r.stdout_buf), 2);
    sbx_result_free(&r);
    char path[64], status[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)sx_box->zygote);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(status, 1, sizeof status - 1, f);
    fclose(f);
    status[n] = 0;
    assert_int_equal(filters_in(status), sx_host->cg.version == CG_V2 ? 1 : 2);
}

/* A placed file is the caller's memory, not the run's: a 48 MiB input
 * placed for a run limited to 32 MiB cannot be opened for writing (nor
 * made writable) to be mapped shared and used as memory. */
static void placed_file_is_not_memory(void **state)
{
    (void)state;
    size_t len;
    char *prog = tl_read_prog("map_placed", &len);
    char *data = calloc(1, 48 << 20);
    assert_non_null(prog);
    assert_non_null(data);
    sbx_file f[2] = { { "prog", prog, len, true }, { "data.bin", data, 48 << 20, false } };
    const char *argv[] = { "./prog", "data.bin", "48", NULL };
    sbx_spec s = { .argv = argv, .files = f, .nfiles = 2, .limits = limit_mib(32) };
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    if (memmem(r.stdout_buf, r.stdout_len, "used", 4))
        fail_msg("a placed file served as memory past the limit: %s, %.*s", sbx_status_name(r.status),
                 (int)r.stdout_len, r.stdout_buf);
    sx_assert_status(&r, SBX_RUNTIME_ERROR);
    assert_non_null(memmem(r.stdout_buf, r.stdout_len, "open errno=EACCES chmod errno=EPERM", 35));
    sbx_result_free(&r);
    free(prog);
    free(data);
}

/* A file of the host's disk, 64 MiB, out of the page cache: what a run
 * reads of it is charged to the run. */
static void evicted_host_file(tl_host_file *f)
{
    if (tl_host_file_make(f, 64 << 20) < 0 || tl_host_file_evict(f) < 0)
        fail_msg("a file in /usr/local/share: %s", strerror(errno));
}

/* Page cache reclaimed at the limit is not an allocation that failed: a
 * run that read 64 MiB of a file under a 32 MiB limit (its memory at the
 * limit all along, the kernel reclaiming) and then exits 3 is a
 * RUNTIME_ERROR. */
static void page_cache_at_limit_is_not_out_of_memory(void **state)
{
    (void)state;
    tl_host_file f;
    evicted_host_file(&f);
    sbx_limits l = limit_mib(32);
    sbx_result r;
    int rc = sx_run_prog("page_cache", (const char *[]){ f.path, "exit3", NULL }, &l, &r);
    tl_host_file_remove(&f);
    assert_int_equal(rc, 0);
    sx_assert_status(&r, SBX_RUNTIME_ERROR);
    assert_int_equal(r.exit_code, 3);
    if (r.memory_bytes < (24u << 20))
        fail_msg("peak %llu: the file's pages were not the run's, the check could not fail",
                 (unsigned long long)r.memory_bytes);
    sbx_result_free(&r);
}

/* A run thrashing at its memory limit (8 MiB of its own, then a 64 MiB
 * file read through a mapping over and over under a 32 MiB limit: every
 * pass evicts what the next needs) runs out of CPU before any OOM kill:
 * MEMORY_LIMIT, the limit it reached, as run.c decides. A loop that never
 * came near its memory limit stays TIME_LIMIT (test_sandbox.c). */
static void out_of_cpu_at_memory_limit(void **state)
{
    (void)state;
    tl_host_file f;
    evicted_host_file(&f);
    sbx_limits l = limit_mib(32);
    l.cpu_ms = 300;
    l.wall_ms = 60000;
    sbx_result r;
    int rc = sx_run_prog("page_cache", (const char *[]){ f.path, "spin", "8", NULL }, &l, &r);
    tl_host_file_remove(&f);
    assert_int_equal(rc, 0);
    sx_assert_status(&r, SBX_MEMORY_LIMIT);
    assert_true(r.cpu_us >= 300000);
    sbx_result_free(&r);
}

/* A run reads a 32 MiB host file (as a runtime reads its libraries):
 * charged to it, and left cached when it ends. The slot's next run must
 * find it still cached (v1 once emptied the slot's memory with
 * memory.force_empty, evicting it: every run of a large runtime read its
 * files from disk again), and a hog after it is still held to its own
 * limit and peak. */
static void read_files_stay_cached(void **state)
{
    (void)state;
    tl_host_file f;
    if (tl_host_file_make(&f, 32 << 20) < 0 || tl_host_file_evict(&f) < 0)
        fail_msg("a file in /usr/local/share: %s", strerror(errno));
    long before = tl_host_file_pages(&f, 0), all = (long)(f.bytes / 4096);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "cat %s >/dev/null", f.path);
    sbx_spec spec = { .argv = (const char *[]){ "/bin/sh", "-c", cmd, NULL }, .limits = limit_mib(256) };
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &spec, &r), 0);
    sx_assert_status(&r, SBX_OK);
    sbx_result_free(&r);
    sbx_limits l = limit_mib(64);
    assert_int_equal(sx_run_prog("memhog", (const char *[]){ "1024", NULL }, &l, &r), 0);
    sx_assert_status(&r, SBX_MEMORY_LIMIT);
    assert_true(r.memory_bytes >= (60u << 20) && r.memory_bytes <= (64u << 20));
    sbx_result_free(&r);
    long after = tl_host_file_pages(&f, 0);
    tl_host_file_remove(&f);
    if (before > all / 10 || after < all * 9 / 10)
        fail_msg("%ld of the file's %ld pages cached before the reading run, %ld after the next run", before, all,
                 after);
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
        cmocka_unit_test_setup(clone3_filter_loaded_once, sx_test_setup),
        cmocka_unit_test_setup(placed_file_is_not_memory, sx_test_setup),
        cmocka_unit_test_setup(page_cache_at_limit_is_not_out_of_memory, sx_test_setup),
        cmocka_unit_test_setup(out_of_cpu_at_memory_limit, sx_test_setup),
        cmocka_unit_test_setup(read_files_stay_cached, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
