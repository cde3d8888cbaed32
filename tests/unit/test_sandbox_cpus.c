/* test_sandbox_cpus.c -- where a box's processes run. The zygote moves to
 * the CPU of the thread that asks it for a run (a hand-off on one CPU
 * costs less than one between two); the run itself gets back the CPUs the
 * box started with, or the one it is pinned to, and when a cpuset has
 * since taken all of those away, the CPUs the cpuset allows. Each run
 * counts its CPUs with nproc (its affinity), for real.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"
#include "sandbox/sandbox.h"

#define CPUSET "/sys/fs/cgroup/cpuset"

/* nproc's answer in box b (pinned to host CPU index `pin` when >= 0). */
static int run_nproc(sbx_box *b, int pin)
{
    sbx_spec s = { .argv = (const char *[]){ "/usr/bin/nproc", NULL }, .pin_cpu = pin >= 0,
                   .cpu = pin >= 0 ? (unsigned)pin : 0 };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(b, &s, &r), 0);
    if (r.status != SBX_OK)
        fail_msg("nproc: %s %s", sbx_status_name(r.status), r.error);
    char text[32] = "";
    memcpy(text, r.stdout_buf, r.stdout_len < sizeof text - 1 ? r.stdout_len : sizeof text - 1);
    sbx_result_free(&r);
    return atoi(text);
}

/* path's text (at most len-1 bytes, terminated) into out: its length, or
 * -1. Read whole, as /proc and cgroup files show no size. */
static ssize_t read_text(const char *path, char *out, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t k;
    while (n < len - 1 && (k = read(fd, out + n, len - 1 - n)) > 0)
        n += (size_t)k;
    close(fd);
    out[n] = '\0';
    return (ssize_t)n;
}

/* The CPUs the zygote may run on, as /proc shows them ("3", "0-1"). */
static void zygote_cpus(sbx_box *b, char *out, size_t len)
{
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)b->zygote);
    assert_true(read_text(path, text, sizeof text) > 0);
    const char *at = strstr(text, "Cpus_allowed_list:");
    assert_non_null(at);
    at += strlen("Cpus_allowed_list:");
    at += strspn(at, " \t");
    size_t n = strcspn(at, "\n");
    assert_true(n < len);
    memcpy(out, at, n);
    out[n] = '\0';
}

static void pin_thread(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
}

/* Each test's host and box, and the test thread's CPUs before it pinned
 * itself: whatever the test's end, its teardown puts them back. */
static sbx_host *host;
static sbx_box *box;
static cpu_set_t thread_cpus;

static int save_cpus(void **state)
{
    (void)state;
    return sched_getaffinity(0, sizeof thread_cpus, &thread_cpus);
}

static void open_box(void)
{
    char err[SBX_ERR_LEN];
    sbx_host_options o = { .require_isolation = true };
    if (sbx_host_open(&host, &o, err, sizeof err) < 0 || sbx_box_open(host, &box, err, sizeof err) < 0)
        fail_msg("%s", err);
}

static int close_box(void **state)
{
    (void)state;
    if (box)
        sbx_box_close(box);
    if (host)
        sbx_host_close(host);
    box = NULL;
    host = NULL;
    return sched_setaffinity(0, sizeof thread_cpus, &thread_cpus);
}

static void zygote_follows_its_caller_runs_keep_their_cpus(void **state)
{
    (void)state;
    alarm(120);
    int n = CPU_COUNT(&thread_cpus), last = -1;
    if (n < 2)
        skip(); /* one CPU: nowhere to follow, nothing to give back */
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &thread_cpus))
            last = c;
    open_box();
    pin_thread(last);
    /* The zygote now runs on `last` alone; a run that kept its CPUs would
     * count 1. */
    assert_int_equal(run_nproc(box, -1), n);
    char cpus[64], want[16];
    zygote_cpus(box, cpus, sizeof cpus);
    snprintf(want, sizeof want, "%d", last);
    assert_string_equal(cpus, want);
    assert_int_equal(run_nproc(box, 0), 1); /* pinned: the host's first CPU alone */
    assert_int_equal(run_nproc(box, -1), n);
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t k = write(fd, text, strlen(text));
    close(fd);
    return k == (ssize_t)strlen(text) ? 0 : -1;
}

static char cpuset_dir[128]; /* the test's own cpuset, while it exists */

/* Whatever the test's end: its box closed (its zygote out of the test's
 * cpuset), the process back in the top cpuset, and the test's cpuset
 * gone. */
static int leave_cpuset(void **state)
{
    if (close_box(state) < 0)
        return -1;
    if (!cpuset_dir[0])
        return 0;
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    int rc = write_text(CPUSET "/cgroup.procs", pid) == 0 && rmdir(cpuset_dir) == 0 ? 0 : -1;
    cpuset_dir[0] = '\0';
    return rc < 0 ? rc : sched_setaffinity(0, sizeof thread_cpus, &thread_cpus);
}

/* A box opened on CPU 0 alone, then its cpuset moved to CPU 1 alone: the
 * CPUs the box started with are all gone, and a run gets the cpuset's. */
static void runs_get_the_cpuset_that_replaced_the_box_cpus(void **state)
{
    (void)state;
    alarm(120);
    char path[192], mems[64] = "";
    const char *dir = cpuset_dir;
    snprintf(path, sizeof path, CPUSET "/gradeq-test-cpus-%d", (int)getpid());
    if (!CPU_ISSET(0, &thread_cpus) || !CPU_ISSET(1, &thread_cpus) || read_text(CPUSET "/cpuset.mems", mems, sizeof mems) <= 0 ||
        mkdir(path, 0755) < 0) {
        print_message("skip: needs CPUs 0 and 1 and a writable v1 cpuset hierarchy\n");
        skip();
    }
    snprintf(cpuset_dir, sizeof cpuset_dir, "%s", path);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    snprintf(path, sizeof path, "%s/cpuset.cpus", dir);
    assert_int_equal(write_text(path, "0-1"), 0);
    snprintf(path, sizeof path, "%s/cpuset.mems", dir);
    assert_int_equal(write_text(path, mems), 0);
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    assert_int_equal(write_text(path, pid), 0);
    pin_thread(0);
    open_box();
    assert_int_equal(run_nproc(box, -1), 1);
    snprintf(path, sizeof path, "%s/cpuset.cpus", dir);
    assert_int_equal(write_text(path, "1"), 0);
    /* The box's CPU 0 is gone: giving the run only that fails, and it gets
     * the cpuset's CPU 1 instead (SANDBOX_ERROR without the fallback). */
    assert_int_equal(run_nproc(box, -1), 1);
    char cpus[64];
    zygote_cpus(box, cpus, sizeof cpus);
    assert_string_equal(cpus, "1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(zygote_follows_its_caller_runs_keep_their_cpus, close_box),
        cmocka_unit_test_teardown(runs_get_the_cpuset_that_replaced_the_box_cpus, leave_cpuset),
    };
    return cmocka_run_group_tests(tests, save_cpus, NULL);
}
