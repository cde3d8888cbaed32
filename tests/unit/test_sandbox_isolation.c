/* test_sandbox_isolation.c -- what a hostile program cannot do: outlive
 * its run, exhaust the machine, reach the network or the host's files,
 * kill its caller, make denied system calls, keep privileges or fds, or
 * leave files for the next run. Each attack is made for real. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "tests/lib/files.h"
#include "tests/lib/host_file.h"
#include "tests/lib/sandbox_fixtures.h"

/* Whether this process holds the capability (effective). */
static bool has_cap(int cap)
{
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    return syscall(SYS_capget, &hdr, data) == 0 && (data[cap / 32].effective & (1u << (cap % 32)));
}

static void forkbomb_contained(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.cpu_ms = 500;
    l.wall_ms = 1500;
    l.processes = 32;
    sbx_result r;
    assert_int_equal(sx_run_prog("forkbomb", (const char *[]){ "--really", NULL }, &l, &r), 0);
    /* Its processes' kernel memory is the run's: the tasks it makes and
     * ends by the thousand are freed only after RCU grace periods, later
     * on a loaded machine, so its peak can reach the default limit. */
    if (r.status != SBX_TIME_LIMIT && r.status != SBX_WALL_TIME_LIMIT && r.status != SBX_MEMORY_LIMIT)
        fail_msg("the fork bomb ended %s (%s), cpu %llu us, wall %llu us", sbx_status_name(r.status), r.error,
                 (unsigned long long)r.cpu_us, (unsigned long long)r.wall_us);
    sbx_result_free(&r);
    assert_int_equal(sx_processes_of_uid(sx_slot_uid()), 0);
    assert_int_equal(sx_run_prog("greet", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
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
    assert_int_equal(sx_run_prog("thread_bomb", NULL, &l, &r), 0);
    assert_int_not_equal(r.status, SBX_SANDBOX_ERROR);
    assert_int_not_equal(r.status, SBX_OK);
    sbx_result_free(&r);
    assert_int_equal(sx_processes_of_uid(sx_slot_uid()), 0);
}

static void daemon_killed_at_end(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("daemon", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    /* The grandchild really was started (and left the session)... */
    assert_non_null(memmem(r.stdout_buf, r.stdout_len, "parent: grandchild pid=", 23));
    sbx_result_free(&r);
    /* ...and is gone now. */
    assert_int_equal(sx_processes_of_uid(sx_slot_uid()), 0);
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
    assert_int_equal(sx_run_prog("connect_host", (const char *[]){ port, NULL }, NULL, &r), 0);
    sx_assert_status(&r, SBX_RUNTIME_ERROR);
    assert_null(memmem(r.stdout_buf, r.stdout_len, "connected", 9));
    /* It did try: refused by its own empty loopback, not failing earlier. */
    assert_non_null(memmem(r.stdout_buf, r.stdout_len, "connect errno=ECONNREFUSED", 26));
    assert_int_equal(accept(s, NULL, NULL), -1);
    assert_int_equal(errno, EAGAIN);
    close(s);
    sbx_result_free(&r);
}

static void shadow_unreadable(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("read_shadow", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_RUNTIME_ERROR);
    assert_null(memmem(r.stdout_buf, r.stdout_len, "opened", 6));
    assert_non_null(memmem(r.stdout_buf, r.stdout_len, "errno=EACCES", 12));
    sbx_result_free(&r);
}

static void kill_all_caller_survives(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("kill_all", (const char *[]){ "--really", NULL }, NULL, &r), 0);
    /* Its kills reached nothing but itself spared: it lived to say so. */
    sx_assert_status(&r, SBX_OK);
    assert_non_null(memmem(r.stdout_buf, r.stdout_len, "alive", 5));
    sbx_result_free(&r);
    assert_int_equal(sx_run_prog("greet", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    sbx_result_free(&r);
}

static void syscalls_denied(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("syscalls", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    char *out = strndup(r.stdout_buf, r.stdout_len);
    int lines = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), lines++)
        if (strlen(line) >= 3 && strcmp(line + strlen(line) - 3, " ok") == 0)
            fail_msg("allowed in the sandbox: %s", line);
    assert_int_equal(lines, 26);
    free(out);
    /* The answers chosen so that programs cope (policy.c says why). */
    assert_non_null(memmem(r.stdout_buf, r.stdout_len, "inotify errno=ENOSYS\n", 21));
    assert_non_null(memmem(r.stdout_buf, r.stdout_len, "af_alg errno=EAFNOSUPPORT\n", 26));
    assert_non_null(memmem(r.stdout_buf, r.stdout_len, "vsock errno=EAFNOSUPPORT\n", 25));
    sbx_result_free(&r);
}

/* A run cannot make the host flush its disks or drop its page cache: each
 * call, made on a file of the host's disk (dirty, rewritten before each
 * run), answers 0 to the program and leaves the file's dirty pages dirty,
 * its cached pages cached. Something else on the machine may flush the
 * disk meanwhile (a sync, writeback under others' dirty pages): a control
 * file dirtied just before, which the run never names, tells.
 * When it was flushed too the try proves nothing and is made again, five
 * times at most (a run whose sync or syncfs reached the disk flushes both
 * each time). */
static void host_disks_and_cache_untouched(void **state)
{
    (void)state;
    static const char *const calls[] = { "sync", "syncfs", "fsync", "fdatasync", "sync_file_range", "fadvise" };
    tl_host_file f, ctl;
    if (tl_host_file_make(&ctl, 1 << 20) < 0 || tl_host_file_make(&f, 1 << 20) < 0)
        fail_msg("a file in /usr/local/share: %s", strerror(errno));
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        for (int attempt = 1;; attempt++) {
            /* Both clean first, then both dirty: dirty since now. */
            assert_int_equal(tl_host_file_sync(&ctl), 0);
            assert_int_equal(tl_host_file_sync(&f), 0);
            assert_int_equal(tl_host_file_dirty(&ctl), 0);
            assert_int_equal(tl_host_file_dirty(&f), 0);
            long dirty = tl_host_file_pages(&f, 1), ctl_dirty = tl_host_file_pages(&ctl, 1);
            if (dirty < 1 || ctl_dirty < 1)
                fail_msg("the files were not left dirty (%ld, %ld pages): the check could not fail", dirty,
                         ctl_dirty);
            sbx_result r;
            assert_int_equal(sx_run_prog("host_cache", (const char *[]){ f.path, calls[i], NULL }, NULL, &r), 0);
            sx_assert_status(&r, SBX_OK);
            char want[64];
            snprintf(want, sizeof want, "%s=0\n", calls[i]);
            if (r.stdout_len != strlen(want) || memcmp(r.stdout_buf, want, r.stdout_len) != 0)
                fail_msg("%s: %.*s", calls[i], (int)r.stdout_len, r.stdout_buf);
            sbx_result_free(&r);
            long after = tl_host_file_pages(&f, 1), cached = tl_host_file_pages(&f, 0);
            long ctl_after = tl_host_file_pages(&ctl, 1);
            if (after >= dirty && cached >= (long)(f.bytes / 4096))
                break;
            if (ctl_after < ctl_dirty && attempt < 5)
                continue;
            fail_msg("%s in a box: %ld dirty pages of %ld left, %ld cached (the control file: %ld of %ld, try %d)",
                     calls[i], after, dirty, cached, ctl_after, ctl_dirty, attempt);
        }
    }
    tl_host_file_remove(&f);
    tl_host_file_remove(&ctl);
}

/* The sandbox sets the run's oom_score_adj to +1000, first to go under
 * host-wide memory pressure. Written with CAP_SYS_RESOURCE that is also its
 * floor; without the capability (many containers) a run can lower it, to
 * the floor the worker itself has and no further, and the host
 * description says so. */
static void oom_score_adj_floor(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("oom_adj", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    char *out = strndup(r.stdout_buf, r.stdout_len);
    assert_non_null(strstr(out, "start=1000\n"));
    bool pinned = !strstr(sbx_host_describe(sx_host), "oom_score_adj +1000 not pinned");
    if (has_cap(CAP_SYS_RESOURCE)) {
        assert_true(pinned);
        if (!strstr(out, "999=EACCES 0=EACCES -1000=EACCES\nend=1000\n"))
            fail_msg("with CAP_SYS_RESOURCE the run lowered its oom_score_adj: %s", out);
    } else {
        assert_false(pinned);
        /* What this process (the worker) may do, the run may: no more. */
        pid_t p = fork();
        if (p == 0) {
            FILE *w = fopen("/proc/self/oom_score_adj", "w");
            _exit(w && fputs("-1000", w) >= 0 && fclose(w) == 0 ? 0 : 1);
        }
        int st;
        assert_int_equal(waitpid(p, &st, 0), p);
        bool worker_can = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (!worker_can && !strstr(out, "-1000=EACCES"))
            fail_msg("the run went below the worker's own floor: %s", out);
    }
    free(out);
    sbx_result_free(&r);
}

static void identity_and_privileges(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("whoami", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    char *out = strndup(r.stdout_buf, r.stdout_len), want[64];
    snprintf(want, sizeof want, "uid=%u\n", sx_slot_uid());
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "groups=0\n"));
    assert_non_null(strstr(out, "CapEff=0000000000000000"));
    assert_non_null(strstr(out, "CapPrm=0000000000000000"));
    assert_non_null(strstr(out, "CapBnd=0000000000000000"));
    assert_non_null(strstr(out, "NoNewPrivs=1"));
    assert_non_null(strstr(out, "Seccomp=2"));
    assert_non_null(strstr(out, "hostname=gradeq"));
    assert_null(strstr(out, "proc1_cmdline=readable"));
    /* Named in the box's own files, which list no host account. */
    assert_non_null(strstr(out, "user=box\nhome=/box\ngroup=box\npasswd_lines=3\n"));
    free(out);
    sbx_result_free(&r);
}

static void only_std_fds_and_clean_env(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("fds", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_int_equal(r.stdout_len, 6);
    assert_memory_equal(r.stdout_buf, "0\n1\n2\n", 6);
    sbx_result_free(&r);
    setenv("GRADEQ_SECRET", "leak", 1);
    assert_int_equal(sx_run_prog("env", NULL, NULL, &r), 0);
    const char want[] = "PATH=/usr/local/bin:/usr/bin:/bin\nHOME=/box\nLANG=C.UTF-8\n";
    assert_int_equal(r.stdout_len, sizeof want - 1);
    assert_memory_equal(r.stdout_buf, want, sizeof want - 1);
    sbx_result_free(&r);
}

static void files_wiped_between_runs(void **state)
{
    (void)state;
    sbx_result r;
    assert_int_equal(sx_run_prog("mkfiles", (const char *[]){ "200", NULL }, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    sbx_result_free(&r);
    assert_int_equal(sx_run_prog("ls_box", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    /* Only the program itself, in /sx_box; /tmp empty. */
    char *out = strndup(r.stdout_buf, r.stdout_len);
    assert_null(strstr(out, "f0"));
    assert_non_null(strstr(out, "prog"));
    free(out);
    sbx_result_free(&r);
}

/* Runs sh -c script in a box of h; its stdout as a string in out. */
static void sh_in(sbx_host *h, const char *script, char *out, size_t size)
{
    sbx_box *b = NULL;
    char err[SBX_ERR_LEN];
    assert_int_equal(sbx_box_open(h, &b, err, sizeof err), 0);
    sbx_spec s = { .argv = (const char *const[]){ "/bin/sh", "-c", script, NULL } };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(b, &s, &r), 0);
    snprintf(out, size, "%.*s", (int)r.stdout_len, r.stdout_buf);
    sbx_result_free(&r);
    sbx_box_close(b);
}

/* sbx_host_ro_paths (a runtime's data outside the system trees,
 * /var/lib/ghc): each box shows them at the same place, a directory and a
 * file alike, read-only; one that does not exist is skipped; nothing else
 * of their parents shows. A path into the box's own trees is refused. */
static void read_only_paths(void **state)
{
    (void)state;
    /* Not under $TMPDIR: /tmp is one of the box's own trees. */
    char dir[64], file[80], single[80], script[600], out[256], err[SBX_ERR_LEN];
    assert_non_null(tl_mkdtemp_in(dir, sizeof dir, "/var/tmp", "gradeq-ro."));
    assert_int_equal(chmod(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/data", dir);
    snprintf(single, sizeof single, "%s.cfg", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("seen\n", f);
    fclose(f);
    f = fopen(single, "w");
    assert_non_null(f);
    fputs("cfg\n", f);
    fclose(f);
    assert_int_equal(chmod(file, 0644), 0);
    assert_int_equal(chmod(single, 0644), 0);
    const char *paths[] = { dir, single, "/var/tmp/gradeq-no-such-path", NULL };
    sbx_host_options o = { .require_isolation = true, .uid_base = SX_UID_BASE };
    sbx_host *h = NULL;
    assert_int_equal(sbx_host_open(&h, &o, err, sizeof err), 0);
    assert_int_equal(sbx_host_ro_paths(h, paths, err, sizeof err), 0);
    snprintf(script, sizeof script,
             "cat %s %s; echo x > %s/new 2>/dev/null && echo WROTE; echo x > %s 2>/dev/null && echo WROTE; "
             "ls /var/tmp | wc -l; ls /var",
             file, single, dir, single);
    sh_in(h, script, out, sizeof out);
    assert_string_equal(out, "seen\ncfg\n2\ntmp\n");
    /* Fixed once a box is built. */
    assert_int_equal(sbx_host_ro_paths(h, paths, err, sizeof err), -1);
    assert_non_null(strstr(err, "before the first box"));
    sbx_host_close(h);
    unlink(file);
    unlink(single);
    rmdir(dir);
    static const char *const bad[] = { "relative/path", "/var/../etc", "/proc/1", "/tmp/x", "/box", "/var/lib/", "/a//b" };
    assert_int_equal(sbx_host_open(&h, &o, err, sizeof err), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *one[] = { bad[i], NULL };
        assert_int_equal(sbx_host_ro_paths(h, one, err, sizeof err), -1);
        assert_non_null(strstr(err, "not a plain absolute path"));
    }
    sbx_host_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(forkbomb_contained, sx_test_setup),
        cmocka_unit_test_setup(thread_bomb_contained, sx_test_setup),
        cmocka_unit_test_setup(daemon_killed_at_end, sx_test_setup),
        cmocka_unit_test_setup(no_network_to_host, sx_test_setup),
        cmocka_unit_test_setup(shadow_unreadable, sx_test_setup),
        cmocka_unit_test_setup(kill_all_caller_survives, sx_test_setup),
        cmocka_unit_test_setup(syscalls_denied, sx_test_setup),
        cmocka_unit_test_setup(host_disks_and_cache_untouched, sx_test_setup),
        cmocka_unit_test_setup(oom_score_adj_floor, sx_test_setup),
        cmocka_unit_test_setup(identity_and_privileges, sx_test_setup),
        cmocka_unit_test_setup(only_std_fds_and_clean_env, sx_test_setup),
        cmocka_unit_test_setup(files_wiped_between_runs, sx_test_setup),
        cmocka_unit_test_setup(read_only_paths, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
