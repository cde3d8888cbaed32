/* test_sandbox_reset.c -- "when sbx_run returns, the box is
 * indistinguishable from a fresh one", proved against programs that try to
 * leave something for the next job in the same box: files planted against
 * the wipe and in the way of the next job's files, each kind of IPC
 * object, sockets kept in flight, stdout kept in flight, an OOM aimed at
 * the zygote. Each first proves its attack ran; then a later run in the
 * same box proves nothing is left and that its own files are its own.
 * /box itself (mode, ACLs, attributes, flags, times) is put back after
 * every run, and wipe_inode, which does it, is proved on its own; pids
 * start over.
 * Also: limits that would overflow, the state directory of another user,
 * stdout reopened by name (cancels: test_sandbox_cancel.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "sandbox/internal.h"
#include "tests/lib/files.h"
#include "tests/lib/sandbox_fixtures.h"

static bool has(const sbx_result *r, const char *s)
{
    return r->stdout_len && memmem(r->stdout_buf, r->stdout_len, s, strlen(s)) != NULL;
}

static bool has_err(const sbx_result *r, const char *s)
{
    return r->stderr_len && memmem(r->stderr_buf, r->stderr_len, s, strlen(s)) != NULL;
}

static void run_ok(const char *prog, const char *const *args, const char *want)
{
    sbx_result r;
    assert_int_equal(sx_run_prog(prog, args, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    if (want && !has(&r, want))
        fail_msg("%s: wanted \"%s\" in stdout: %.*s", prog, want, (int)r.stdout_len, r.stdout_buf);
    sbx_result_free(&r);
}

/* A job with its own files: prog (ls_box), secret.txt, data/x, input.txt. */
static void victim_job(const char *secret)
{
    char cmd[700];
    size_t n;
    char *bin = tl_read_prog("cat", &n);
    assert_non_null(bin);
    sbx_file files[] = {
        { "prog", bin, n, true },
        { "secret.txt", secret, strlen(secret), false },
        { "data/x", "x\n", 2, false },
        { "input.txt", "in\n", 3, false },
    };
    const char *argv[] = { "/bin/sh", "-c", "cat secret.txt data/x input.txt; ls -A | tr '\\n' ' '", NULL };
    sbx_spec s = { .argv = argv, .files = files, .nfiles = 4 };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    snprintf(cmd, sizeof cmd, "%sx\nin\ndata input.txt prog secret.txt ", secret);
    if (r.stdout_len != strlen(cmd) || memcmp(r.stdout_buf, cmd, r.stdout_len) != 0)
        fail_msg("the job's own files are not its own: %.*s", (int)r.stdout_len, r.stdout_buf);
    sbx_result_free(&r);
    free(bin);
}

static void planted_files_reach_no_later_job(void **state)
{
    (void)state;
    unsigned long before = sbx_box_rebuilds(sx_box);
    run_ok("plant", NULL, "planted wipe=8 deep=40 fifo=1 dir=1 link=1");
    /* The 40-deep chain is beyond what the wipe walks: the box was
     * rebuilt rather than trusted, and no error was reported. */
    assert_int_equal(sbx_box_rebuilds(sx_box), before + 1);
    victim_job("victim-secret-1\n");
    sbx_result r;
    assert_int_equal(sx_run_prog("plant", (const char *[]){ "--find", "victim-secret", NULL }, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_true(has(&r, "done"));
    assert_false(has(&r, "found"));
    sbx_result_free(&r);
}

static void shallow_plants_are_wiped_in_place(void **state)
{
    (void)state;
    unsigned long before = sbx_box_rebuilds(sx_box);
    run_ok("plant", (const char *[]){ "--shallow", NULL }, "planted wipe=8 deep=0 fifo=1 dir=1 link=1");
    /* The wipe's own old names, FIFOs and a directory where the next job's
     * files go, a hardlink: all cleared in place, no rebuild. */
    assert_int_equal(sbx_box_rebuilds(sx_box), before);
    victim_job("victim-secret-2\n");
    sbx_result r;
    assert_int_equal(sx_run_prog("plant", (const char *[]){ "--find", "victim-secret", NULL }, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_false(has(&r, "found"));
    sbx_result_free(&r);
}

/* box_attrs CMD [ARG] in sx_box: its result, OK checked. */
static void box_attrs(const char *cmd, const char *arg, sbx_result *r)
{
    assert_int_equal(sx_run_prog("box_attrs", (const char *[]){ cmd, arg, NULL }, NULL, r), 0);
    sx_assert_status(r, SBX_OK);
}

/* /box is the program's own directory: what it does to the directory
 * itself (not its contents) must not reach the next run. */
static void box_directories_are_fresh_after_any_plant(void **state)
{
    (void)state;
    static const char *const modes[] = { "755", "0", "555", "7777" };
    unsigned long before = sbx_box_rebuilds(sx_box);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        sbx_result r;
        box_attrs("plant", modes[i], &r);
        /* The attack ran: every step on /box took (user.* attributes on
         * tmpfs need kernel 6.6), none on /tmp. */
        if (!has(&r, "planted") || (!has_err(&r, ".: xattr=ok acl=ok dacl=ok flags=ok times=ok mode=ok") &&
                                    !has_err(&r, ".: xattr=EOPNOTSUPP acl=ok dacl=ok flags=ok times=ok mode=ok")))
            fail_msg("plant %s: %.*s", modes[i], (int)r.stderr_len, r.stderr_buf);
        sbx_result_free(&r);
        /* The next run sees a fresh /box and /tmp... */
        assert_int_equal(sx_run_prog("box_attrs", (const char *[]){ "check", NULL }, NULL, &r), 0);
        if (r.status != SBX_OK || !has(&r, "fresh"))
            fail_msg("after plant %s: %s %.*s%.*s", modes[i], sbx_status_name(r.status), (int)r.stdout_len,
                     r.stdout_buf, (int)r.stderr_len, r.stderr_buf);
        sbx_result_free(&r);
        /* ...and a job that writes there (a compile) and one that execs
         * its file there work, whatever the mode was. */
        box_attrs("plant", modes[i], &r);
        sbx_result_free(&r);
        const char *argv[] = { "/bin/sh", "-c", "echo built > main && cat main", NULL };
        sbx_spec s = { .argv = argv };
        sbx_limits_default(&s.limits);
        assert_int_equal(sbx_run(sx_box, &s, &r), 0);
        sx_assert_status(&r, SBX_OK);
        assert_true(has(&r, "built"));
        sbx_result_free(&r);
        box_attrs("plant", modes[i], &r);
        sbx_result_free(&r);
        run_ok("greet", NULL, "hello");
    }
    /* All of it put back in place: no rebuild. */
    assert_int_equal(sbx_box_rebuilds(sx_box), before);
}

/* A fresh box and one after a plant look the same to a run: owner and
 * mode, flags, attributes, recent times (box_attrs show). */
static void box_directories_look_like_a_new_box(void **state)
{
    (void)state;
    sbx_box *b;
    char err[SBX_ERR_LEN];
    assert_int_equal(sbx_box_open(sx_host, &b, err, sizeof err), 0);
    sbx_result fresh, r;
    assert_int_equal(sx_run_prog_in(b, "box_attrs", (const char *[]){ "show", NULL }, NULL, NULL, 0, &fresh), 0);
    sx_assert_status(&fresh, SBX_OK);
    box_attrs("plant", "1777", &r);
    sbx_result_free(&r);
    box_attrs("show", NULL, &r);
    /* Each box has its slot's uid: compare from the mode on. */
    const char *a = memmem(fresh.stdout_buf, fresh.stdout_len, " mode=", 6);
    const char *c = memmem(r.stdout_buf, r.stdout_len, " mode=", 6);
    assert_non_null(a);
    assert_non_null(c);
    size_t na = fresh.stdout_len - (size_t)(a - fresh.stdout_buf), nc = r.stdout_len - (size_t)(c - r.stdout_buf);
    if (na != nc || memcmp(a, c, na) != 0)
        fail_msg("fresh box:\n%.*safter a plant:\n%.*s", (int)fresh.stdout_len, fresh.stdout_buf, (int)r.stdout_len,
                 r.stdout_buf);
    const char want[] = " mode=0755 flags=0 xattrs= times=recent\n/tmp uid=0 gid=0 mode=1777";
    assert_non_null(memmem(a, na, want, sizeof want - 1));
    sbx_result_free(&fresh);
    sbx_result_free(&r);
    sbx_box_close(b);
}

/* /tmp is root's and the program cannot change it, so the same restore
 * is proved on a directory of the test's own: everything a program could
 * set goes, an attribute only privilege sets (trusted.*) stays. */
static void a_directory_is_put_back_whole(void **state)
{
    (void)state;
    char dir[256], err[SBX_ERR_LEN];
    assert_non_null(tl_mkdtemp(dir, sizeof dir, "gradeq-inode-"));
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(fd >= 0);
    struct {
        uint32_t version;
        struct { uint16_t tag, perm; uint32_t id; } e[5];
    } acl = { 2, { { 1, 7, UINT32_MAX }, { 2, 7, 4242 }, { 4, 5, UINT32_MAX }, { 0x10, 7, UINT32_MAX },
                   { 0x20, 5, UINT32_MAX } } };
    assert_int_equal(fchown(fd, 4242, 4242), 0);
    assert_int_equal(fchmod(fd, 02700), 0);
    bool xattrs = fsetxattr(fd, "user.gradeq", "x", 1, 0) == 0;
    if (xattrs) {
        assert_int_equal(fsetxattr(fd, "system.posix_acl_access", &acl, sizeof acl, 0), 0);
        assert_int_equal(fsetxattr(fd, "system.posix_acl_default", &acl, sizeof acl, 0), 0);
        assert_int_equal(fsetxattr(fd, "trusted.gradeq", "kept", 4, 0), 0);
    }
    int flags = 0;
    bool has_flags = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    if (has_flags) {
        flags |= FS_NOATIME_FL | FS_NODUMP_FL;
        assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
    }
    if (wipe_inode(fd, 0, 0, 01777, err, sizeof err) < 0)
        fail_msg("wipe_inode: %s", err);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_uid, 0);
    assert_int_equal(st.st_gid, 0);
    assert_int_equal(st.st_mode & 07777, 01777);
    char names[1024];
    ssize_t n = flistxattr(fd, names, sizeof names);
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1)
        if (strncmp(names + i, "user.", 5) == 0 || strncmp(names + i, "system.posix_acl", 16) == 0)
            fail_msg("%s is left", names + i);
    if (xattrs)
        assert_int_equal(fgetxattr(fd, "trusted.gradeq", names, sizeof names), 4);
    if (has_flags) {
        assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &flags), 0);
        assert_int_equal(flags & (FS_NOATIME_FL | FS_NODUMP_FL), 0);
    }
    close(fd);
    rmdir(dir);
}

/* The lines of out from "pid=" up to "box_ino=" (counters show). */
static size_t pid_lines(const sbx_result *r, const char **at)
{
    const char *a = memmem(r->stdout_buf, r->stdout_len, "pid=", 4);
    const char *z = memmem(r->stdout_buf, r->stdout_len, "box_ino=", 8);
    assert_non_null(a);
    assert_non_null(z);
    *at = a;
    return (size_t)(z - a);
}

/* 2000 forks in one run do not move the next run's pids: it sees what a
 * run in a new box sees (its own pid 2, a thread's, a child's, the
 * namespace's last pid). */
static void pids_start_over(void **state)
{
    (void)state;
    sbx_box *b;
    char err[SBX_ERR_LEN];
    assert_int_equal(sbx_box_open(sx_host, &b, err, sizeof err), 0);
    sbx_limits l;
    sbx_limits_default(&l);
    l.cpu_ms = 20000;
    l.wall_ms = 60000;
    sbx_result fresh, moved, r;
    assert_int_equal(sx_run_prog_in(b, "counters", (const char *[]){ "show", NULL }, &l, NULL, 0, &fresh), 0);
    sx_assert_status(&fresh, SBX_OK);
    unsigned long rebuilds = sbx_box_rebuilds(sx_box);
    assert_int_equal(sx_run_prog("counters", (const char *[]){ "move", "2000", NULL }, &l, &moved), 0);
    sx_assert_status(&moved, SBX_OK);
    assert_true(has(&moved, "moved 2000"));
    assert_int_equal(sx_run_prog("counters", (const char *[]){ "show", NULL }, &l, &r), 0);
    sx_assert_status(&r, SBX_OK);
    const char *a, *c;
    size_t na = pid_lines(&fresh, &a), nc = pid_lines(&r, &c);
    if (na != nc || memcmp(a, c, na) != 0)
        fail_msg("new box:\n%.*safter 2000 forks:\n%.*s", (int)na, a, (int)nc, c);
    assert_non_null(memmem(a, na, "pid=2\n", 6));
    /* Set back in place, not by a new box. */
    assert_int_equal(sbx_box_rebuilds(sx_box), rebuilds);
    sbx_result_free(&fresh);
    sbx_result_free(&moved);
    sbx_result_free(&r);
    sbx_box_close(b);
}

static void ipc_objects_do_not_survive(void **state)
{
    (void)state;
    unsigned long before = sbx_box_rebuilds(sx_box);
    run_ok("ipc_leave", (const char *[]){ "make", "32", NULL }, "made shm sem msg mq");
    sbx_result r;
    assert_int_equal(sx_run_prog("ipc_leave", (const char *[]){ "find", NULL }, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    const char want[] = "shm=ENOENT\nsem=ENOENT\nmsg=ENOENT\nmq=ENOENT\n";
    if (r.stdout_len != sizeof want - 1 || memcmp(r.stdout_buf, want, sizeof want - 1) != 0)
        fail_msg("IPC survived the run: %.*s", (int)r.stdout_len, r.stdout_buf);
    /* The 32 MiB segment is gone, not charged to this run. */
    assert_true(r.memory_bytes < (24u << 20));
    sbx_result_free(&r);
    /* Removed in place: no rebuild needed. */
    assert_int_equal(sbx_box_rebuilds(sx_box), before);
}

static void ipc_hoard_is_not_cumulative(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.memory_bytes = 64u << 20;
    for (int i = 0; i < 4; i++) {
        sbx_result r;
        assert_int_equal(sx_run_prog("ipc_leave", (const char *[]){ "make", "40", NULL }, &l, &r), 0);
        sx_assert_status(&r, SBX_OK);
        assert_true(has(&r, "made shm"));
        sbx_result_free(&r);
    }
}

static void sockets_in_flight_cost_the_box(void **state)
{
    (void)state;
    unsigned long before = sbx_box_rebuilds(sx_box);
    run_ok("sock_left", (const char *[]){ "make", NULL }, "left abstract tcp");
    /* The kernel's unix garbage collector, which any close on the machine
     * may start, can free the cycle before the box is checked: then the box
     * is clean in place. Either way the next run must find nothing. */
    unsigned long after = sbx_box_rebuilds(sx_box);
    assert_true(after == before || after == before + 1);
    sbx_result r;
    assert_int_equal(sx_run_prog("sock_left", (const char *[]){ "find", NULL }, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    const char want[] = "abstract=ECONNREFUSED\nbind=ok\n";
    if (r.stdout_len != sizeof want - 1 || memcmp(r.stdout_buf, want, sizeof want - 1) != 0)
        fail_msg("sockets survived the run: %.*s", (int)r.stdout_len, r.stdout_buf);
    sbx_result_free(&r);
    /* That run itself made a socket and closed it: nothing left, no rebuild. */
    assert_int_equal(sbx_box_rebuilds(sx_box), after);
}

static void stdout_in_flight_ends_promptly(void **state)
{
    (void)state;
    sbx_limits l;
    sbx_limits_default(&l);
    l.wall_ms = 20000; /* a hang would be caught by the test's alarm first */
    sbx_result r;
    assert_int_equal(sx_run_prog("stdout_inflight", NULL, &l, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_int_equal(r.stdout_len, 4);
    assert_memory_equal(r.stdout_buf, "bye\n", 4);
    assert_true(r.wall_us < 5000000);
    sbx_result_free(&r);
    run_ok("greet", NULL, "hello");
}

static void oom_aimed_at_the_zygote_is_the_runs(void **state)
{
    (void)state;
    /* A zygote is a copy of its caller: a caller holding 32 MiB makes a
     * zygote far bigger than any of the program's processes, the OOM
     * killer's first choice unless it is immune. */
    size_t big = 32u << 20;
    char *mem = malloc(big);
    assert_non_null(mem);
    memset(mem, 1, big);
    sbx_box *b;
    char err[SBX_ERR_LEN];
    assert_int_equal(sbx_box_open(sx_host, &b, err, sizeof err), 0);
    free(mem);
    sbx_limits l;
    sbx_limits_default(&l);
    l.memory_bytes = 64u << 20;
    l.wall_ms = 10000;
    sbx_result r;
    assert_int_equal(sx_run_prog_in(b, "oom_zygote", (const char *[]){ "56", NULL }, &l, NULL, 0, &r), 0);
    sx_assert_status(&r, SBX_MEMORY_LIMIT);
    /* The zygote lives outside the run's memory cgroup (v1: only the run
     * joins it; v2: the zygote has a leaf of its own), so the run's OOM
     * killer never sees it, whatever the program did to its own score. */
    assert_int_equal(sbx_box_rebuilds(b), 0);
    sbx_result_free(&r);
    assert_int_equal(sx_run_prog_in(b, "greet", NULL, NULL, NULL, 0, &r), 0);
    sx_assert_status(&r, SBX_OK);
    sbx_result_free(&r);
    sbx_box_close(b);
}

static void benign_runs_keep_the_box(void **state)
{
    (void)state;
    unsigned long before = sbx_box_rebuilds(sx_box);
    for (int i = 0; i < 20; i++)
        run_ok("greet", NULL, "hello");
    run_ok("daemon", NULL, "grandchild");
    assert_int_equal(sbx_box_rebuilds(sx_box), before);
}

static void stdout_reopened_by_name(void **state)
{
    (void)state;
    const char *argv[] = { "/bin/sh", "-c", "read x < /dev/stdin && echo $x > /dev/stdout && echo err > /dev/stderr",
                           NULL };
    sbx_spec s = { .argv = argv, .stdin_data = "out\n", .stdin_len = 4 };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_int_equal(r.stdout_len, 4);
    assert_memory_equal(r.stdout_buf, "out\n", 4);
    assert_int_equal(r.stderr_len, 4);
    assert_memory_equal(r.stderr_buf, "err\n", 4);
    sbx_result_free(&r);
}

/* The same for a stdout wired to another process (an interactor's pipe). */
static void wired_stdout_reopened_by_name(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    const char *argv[] = { "/bin/sh", "-c", "echo wired > /dev/stdout", NULL };
    sbx_spec s = { .argv = argv, .use_stdout_fd = true, .stdout_fd = p[1] };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0); /* takes p[1] over */
    sx_assert_status(&r, SBX_OK);
    char buf[16] = "";
    assert_int_equal(read(p[0], buf, sizeof buf), 6);
    assert_memory_equal(buf, "wired\n", 6);
    close(p[0]);
    sbx_result_free(&r);
}

static void overflowing_limits_refused(void **state)
{
    (void)state;
    const uint64_t huge = UINT64_MAX;
    for (int which = 0; which < 5; which++) {
        sbx_limits l;
        sbx_limits_default(&l);
        uint64_t *f[] = { &l.memory_bytes, &l.processes, &l.stdout_bytes, &l.stderr_bytes, &l.open_files };
        *f[which] = huge;
        sbx_result r;
        assert_int_equal(sx_run_prog("greet", NULL, &l, &r), -1);
        sx_assert_status(&r, SBX_SANDBOX_ERROR);
        assert_non_null(strstr(r.error, "refused"));
        sbx_result_free(&r);
    }
    run_ok("greet", NULL, "hello");
}

/* The worker out of fds (EMFILE) while a run is past its wall limit: the
 * kill needs no fd, and is repeated until the run is gone. */
static int taken[65536], ntaken, taken_errno;

static int exhaust_fds(void *ctx, int stream, const void *buf, size_t len, sbx_reply *reply)
{
    (void)ctx, (void)stream, (void)buf, (void)len, (void)reply;
    while (!taken_errno && ntaken < (int)(sizeof taken / sizeof taken[0])) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            taken_errno = errno;
        else
            taken[ntaken++] = fd;
    }
    return 0;
}

static void wall_kill_without_fds(void **state)
{
    (void)state;
    struct rlimit old, low = { 512, 0 };
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low.rlim_max = old.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    const char *argv[] = { "/bin/sh", "-c", "echo go; exec sleep 100", NULL };
    sbx_spec s = { .argv = argv, .interact = exhaust_fds };
    sbx_limits_default(&s.limits);
    s.limits.wall_ms = 300;
    sbx_result r;
    ntaken = taken_errno = 0;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    for (int i = 0; i < ntaken; i++)
        close(taken[i]);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    /* The attack ran: the process had no fd left while the run went on. */
    assert_int_equal(taken_errno, EMFILE);
    sx_assert_status(&r, SBX_WALL_TIME_LIMIT);
    sbx_result_free(&r);
    run_ok("greet", NULL, "hello");
}

/* A job's file name with a newline cannot forge a line in a log. */
static void names_in_errors_are_one_line(void **state)
{
    (void)state;
    const char *argv[] = { "/bin/true", NULL };
    sbx_file f = { "bad\nFORGED line/../../x\377", "x", 1, false };
    sbx_spec s = { .argv = argv, .files = &f, .nfiles = 1 };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), -1);
    sx_assert_status(&r, SBX_SANDBOX_ERROR);
    assert_non_null(strstr(r.error, "bad?FORGED line"));
    for (const char *p = r.error; *p; p++)
        assert_true(*p >= 0x20 && *p < 0x7f);
    sbx_result_free(&r);
}

/* The zygote holds a copy of this process: it has a name of its own in
 * ps (its non-dumpable flag shows nowhere outside it: as root, its /proc
 * files are root's either way). */
static void zygote_has_its_name(void **state)
{
    (void)state;
    int found = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        int ppid = 0;
        char *close_paren = strrchr(buf, ')');
        if (strstr(buf, "(gradeq-zygote)") && close_paren && sscanf(close_paren + 2, "%*c %d", &ppid) == 1 &&
            ppid == getpid())
            found++;
    }
    if (d)
        closedir(d);
    assert_true(found >= 1);
}

static void foreign_state_dir_refused(void **state)
{
    (void)state;
    char dir[256], link[sizeof dir + 8];
    assert_non_null(tl_mkdtemp(dir, sizeof dir, "gradeq-foreign-"));
    assert_int_equal(chown(dir, 4242, 4242), 0);
    char err[SBX_ERR_LEN];
    sbx_host *h = NULL;
    sbx_host_options o = { .state_dir = dir };
    assert_int_equal(sbx_host_open(&h, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "writable by it alone"));
    /* A symlink to a directory of ours is refused too. */
    assert_int_equal(chown(dir, getuid(), getgid()), 0);
    snprintf(link, sizeof link, "%s-link", dir);
    assert_int_equal(symlink(dir, link), 0);
    o.state_dir = link;
    assert_int_equal(sbx_host_open(&h, &o, err, sizeof err), -1);
    unlink(link);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(planted_files_reach_no_later_job, sx_test_setup),
        cmocka_unit_test_setup(shallow_plants_are_wiped_in_place, sx_test_setup),
        cmocka_unit_test_setup(box_directories_are_fresh_after_any_plant, sx_test_setup),
        cmocka_unit_test_setup(box_directories_look_like_a_new_box, sx_test_setup),
        cmocka_unit_test_setup(a_directory_is_put_back_whole, sx_test_setup),
        cmocka_unit_test_setup(pids_start_over, sx_test_setup),
        cmocka_unit_test_setup(ipc_objects_do_not_survive, sx_test_setup),
        cmocka_unit_test_setup(ipc_hoard_is_not_cumulative, sx_test_setup),
        cmocka_unit_test_setup(sockets_in_flight_cost_the_box, sx_test_setup),
        cmocka_unit_test_setup(stdout_in_flight_ends_promptly, sx_test_setup),
        cmocka_unit_test_setup(oom_aimed_at_the_zygote_is_the_runs, sx_test_setup),
        cmocka_unit_test_setup(benign_runs_keep_the_box, sx_test_setup),
        cmocka_unit_test_setup(stdout_reopened_by_name, sx_test_setup),
        cmocka_unit_test_setup(wired_stdout_reopened_by_name, sx_test_setup),
        cmocka_unit_test_setup(overflowing_limits_refused, sx_test_setup),
        cmocka_unit_test_setup(wall_kill_without_fds, sx_test_setup),
        cmocka_unit_test_setup(names_in_errors_are_one_line, sx_test_setup),
        cmocka_unit_test_setup(zygote_has_its_name, sx_test_setup),
        cmocka_unit_test_setup(foreign_state_dir_refused, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
