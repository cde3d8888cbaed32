/* test_sandbox_probe.c -- whether namespaces hold is found once per host,
 * by the first box's zygote, and said truly: a later zygote that cannot
 * start for want of fds (as for want of pids or memory) is its box's error,
 * never a reason to run every later box without namespaces; a first one
 * that fails so decides nothing; a first one refused (no CAP_SYS_ADMIN)
 * leaves the host without them, and the host's line and every result say
 * so. Each host here is the test's own, without require_isolation, unless
 * the test says. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "tests/lib/sandbox_fixtures.h"

#define NS_BITS (SBX_ISO_PID_NS | SBX_ISO_MOUNT_NS | SBX_ISO_NET_NS | SBX_ISO_IPC_NS | SBX_ISO_UTS_NS)

static sbx_host *host_open(bool require)
{
    sbx_host *h;
    char err[SBX_ERR_LEN];
    sbx_host_options o = { .require_isolation = require, .uid_base = SX_UID_BASE };
    if (sbx_host_open(&h, &o, err, sizeof err) < 0)
        fail_msg("sbx_host_open: %s", err);
    return h;
}

static sbx_box *box_open(sbx_host *h)
{
    sbx_box *b;
    char err[SBX_ERR_LEN];
    if (sbx_box_open(h, &b, err, sizeof err) < 0)
        fail_msg("sbx_box_open: %s", err);
    return b;
}

/* A run in b: what held, and whether it had a PID namespace of its own
 * (then its first process is PID 2). */
static unsigned run_isolation(sbx_box *b, bool *own_pids)
{
    const char *argv[] = { "/bin/sh", "-c", "echo $$", NULL };
    sbx_spec s = { .argv = argv };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(b, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    *own_pids = r.stdout_len == 2 && memcmp(r.stdout_buf, "2\n", 2) == 0;
    unsigned iso = r.isolation;
    sbx_result_free(&r);
    return iso;
}

/* Opens a box with the soft fd limit raised one by one from the lowest
 * free fd until the open fails where the zygote starts (its socketpair:
 * EMFILE), as a start short of pids or memory fails. */
static void open_short_of_fds(sbx_host *h)
{
    struct rlimit old;
    char err[SBX_ERR_LEN] = "";
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    int first = dup(0);
    assert_true(first >= 0);
    close(first);
    for (rlim_t l = (rlim_t)first; l < (rlim_t)first + 256; l++) {
        struct rlimit lim = { l, old.rlim_max };
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
        sbx_box *b = NULL;
        int rc = sbx_box_open(h, &b, err, sizeof err);
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
        if (rc == 0) {
            sbx_box_close(b);
            fail_msg("a box opened with %lu fds: no start failed", (unsigned long)l);
        }
        if (strstr(err, "socketpair"))
            return;
    }
    fail_msg("no fd limit made the zygote's start fail (last: %s)", err);
}

static void a_later_start_failing_is_its_boxs_error(void **state)
{
    (void)state;
    sbx_host *h = host_open(false);
    sbx_box *first = box_open(h);
    bool own;
    assert_int_equal(run_isolation(first, &own) & NS_BITS, NS_BITS);
    assert_true(own);
    assert_non_null(strstr(sbx_host_describe(h), "namespaces yes"));
    open_short_of_fds(h);
    /* The next box, fds back, has its namespaces; so has the host. */
    sbx_box *later = box_open(h);
    assert_int_equal(run_isolation(later, &own) & NS_BITS, NS_BITS);
    assert_true(own);
    assert_int_equal(sbx_host_isolation(h) & NS_BITS, NS_BITS);
    assert_non_null(strstr(sbx_host_describe(h), "namespaces yes"));
    sbx_box_close(later);
    sbx_box_close(first);
    sbx_host_close(h);
}

static void a_first_start_short_of_fds_decides_nothing(void **state)
{
    (void)state;
    sbx_host *h = host_open(false);
    /* Untried: not counted, and said so. */
    assert_int_equal(sbx_host_isolation(h) & NS_BITS, 0);
    assert_non_null(strstr(sbx_host_describe(h), "namespaces untried"));
    open_short_of_fds(h);
    assert_non_null(strstr(sbx_host_describe(h), "namespaces untried"));
    sbx_box *b = box_open(h);
    bool own;
    assert_int_equal(run_isolation(b, &own) & NS_BITS, NS_BITS);
    assert_true(own);
    assert_non_null(strstr(sbx_host_describe(h), "namespaces yes"));
    sbx_box_close(b);
    sbx_host_close(h);
}

/* CAP_SYS_ADMIN off this thread's effective set (the zygote is cloned
 * from it), or back on. */
static void sys_admin(bool on)
{
    struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    assert_int_equal(syscall(SYS_capget, &head, data), 0);
    if (on)
        data[CAP_SYS_ADMIN / 32].effective |= 1u << (CAP_SYS_ADMIN % 32);
    else
        data[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
    assert_int_equal(syscall(SYS_capset, &head, data), 0);
}

static void a_refused_first_start_leaves_the_host_without_them(void **state)
{
    (void)state;
    sbx_host *h = host_open(false), *strict = host_open(true);
    sbx_box *b = NULL, *s = NULL;
    char err[SBX_ERR_LEN];
    sys_admin(false);
    int rc = sbx_box_open(h, &b, err, sizeof err);
    int src = sbx_box_open(strict, &s, err, sizeof err);
    sys_admin(true);
    assert_int_equal(rc, 0);
    /* With isolation required, no box without namespaces. */
    assert_int_equal(src, -1);
    assert_non_null(strstr(err, "Operation not permitted"));
    /* Runs go on without namespaces, and every word says so. */
    bool own;
    assert_int_equal(run_isolation(b, &own) & NS_BITS, 0);
    assert_false(own);
    assert_int_equal(sbx_host_isolation(h) & NS_BITS, 0);
    const char *d = sbx_host_describe(h);
    if (!strstr(d, "namespaces no (") || !strstr(d, "Operation not permitted"))
        fail_msg("describe: %s", d);
    /* Decided once: a box opened with the capability back is alike. */
    sbx_box *again = box_open(h);
    assert_int_equal(run_isolation(again, &own) & NS_BITS, 0);
    sbx_box_close(again);
    sbx_box_close(b);
    sbx_host_close(strict);
    sbx_host_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_later_start_failing_is_its_boxs_error, sx_test_setup),
        cmocka_unit_test_setup(a_first_start_short_of_fds_decides_nothing, sx_test_setup),
        cmocka_unit_test_setup(a_refused_first_start_leaves_the_host_without_them, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
