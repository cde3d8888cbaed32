/* test_sandbox_slots.c -- slots are the machine's, also between workers
 * that share no lock file: containers and pods each have a /run/gradeq of
 * their own. Here every host gets a state directory of its own, as each
 * container would, and the uids 61000 + N and a cgroup name that no worker
 * uses, so the test meets no one else's slots. Two such
 * hosts never take one slot (the uid is claimed machine-wide), not even
 * from another process in new mount, IPC, network, UTS and PID
 * namespaces; a released slot is free again at once; and runs in the two
 * at once keep their own uids, process counts and memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "tests/lib/files.h"
#include "tests/lib/sandbox_fixtures.h"

#define UID_BASE 61000
#define SLOTS 8

typedef struct side {
    char dir[256];
    sbx_host *host;
    sbx_box *box;
} side;

/* A host with a state directory of its own, and one box on it. */
static void open_side(side *s)
{
    char err[SBX_HOST_ERR_LEN];
    assert_non_null(tl_mkdtemp(s->dir, sizeof s->dir, "gradeq-slots."));
    sbx_host_options o = { .require_isolation = true, .uid_base = UID_BASE, .max_slots = SLOTS,
                           .state_dir = s->dir, .cgroup_name = "gradeq-slots-test" };
    if (sbx_host_open(&s->host, &o, err, sizeof err) < 0 || sbx_box_open(s->host, &s->box, err, sizeof err) < 0)
        fail_msg("%s", err);
}

static void close_side(side *s)
{
    sbx_box_close(s->box);
    sbx_host_close(s->host);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    assert_int_equal(system(cmd), 0);
}

/* The uid a run in the box has, read by the program itself. */
static unsigned run_uid(sbx_box *b)
{
    const char *argv[] = { "/usr/bin/id", "-u", NULL };
    sbx_spec s = { .argv = argv };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(b, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    unsigned uid = (unsigned)strtoul(r.stdout_buf, NULL, 10);
    sbx_result_free(&r);
    return uid;
}

static void distinct_without_shared_locks(void **state)
{
    (void)state;
    side a, b, c;
    open_side(&a);
    open_side(&b);
    assert_int_not_equal(sbx_box_slot(a.box), sbx_box_slot(b.box));
    assert_int_equal(run_uid(a.box), UID_BASE + sbx_box_slot(a.box));
    assert_int_equal(run_uid(b.box), UID_BASE + sbx_box_slot(b.box));
    /* Released: the next host to look takes it. */
    unsigned freed = sbx_box_slot(a.box);
    close_side(&a);
    open_side(&c);
    assert_int_equal(sbx_box_slot(c.box), freed);
    close_side(&c);
    close_side(&b);
}

/* A worker in a container of its own: new namespaces, its own state
 * directory, in another process. */
static void distinct_from_another_container(void **state)
{
    (void)state;
    side a;
    open_side(&a);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWPID) < 0)
            _exit(2);
        pid_t init = fork();
        if (init == 0) {
            side c;
            open_side(&c);
            unsigned slot = sbx_box_slot(c.box);
            close_side(&c);
            _exit(write(p[1], &slot, sizeof slot) == sizeof slot ? 0 : 3);
        }
        int st;
        _exit(init > 0 && waitpid(init, &st, 0) == init && WIFEXITED(st) ? WEXITSTATUS(st) : 4);
    }
    close(p[1]);
    unsigned slot = ~0u;
    int st;
    assert_int_equal(read(p[0], &slot, sizeof slot), sizeof slot);
    assert_int_equal(waitpid(child, &st, 0), child);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(p[0]);
    assert_int_not_equal(slot, sbx_box_slot(a.box));
    close_side(&a);
}

typedef struct job {
    sbx_box *box;
    const char *script;
    uint64_t memory, processes;
    sbx_result r;
    pthread_t t;
} job;

/* ./prog is memhog. */
static void *run_job(void *arg)
{
    job *j = arg;
    size_t len;
    char *bytes = tl_read_prog("memhog", &len);
    const char *argv[] = { "/bin/sh", "-c", j->script, NULL };
    sbx_file f = { "prog", bytes, len, true };
    sbx_spec s = { .argv = argv, .files = &f, .nfiles = 1 };
    sbx_limits_default(&s.limits);
    s.limits.wall_ms = 60000;
    s.limits.cpu_ms = 20000;
    s.limits.memory_bytes = j->memory;
    s.limits.processes = j->processes;
    sbx_run(j->box, &s, &j->r);
    free(bytes);
    return NULL;
}

/* A job holding 20 processes in one; hellos allowed 16 in the other. */
static void process_counts_apart(void **state)
{
    (void)state;
    side a, b;
    open_side(&a);
    open_side(&b);
    job holder = { a.box, "for i in $(seq 1 19); do sleep 30 & done; wait", 256 << 20, 32 };
    assert_int_equal(pthread_create(&holder.t, NULL, run_job, &holder), 0);
    unsigned uid = UID_BASE + sbx_box_slot(a.box);
    while (sx_processes_of_uid(uid) < 20)
        usleep(10000);
    sbx_limits l;
    sbx_limits_default(&l);
    l.processes = 16;
    for (int i = 0; i < 3; i++) {
        sbx_result r;
        assert_int_equal(sx_run_prog_in(b.box, "greet", NULL, &l, NULL, 0, &r), 0);
        sx_assert_status(&r, SBX_OK);
        sbx_result_free(&r);
    }
    sbx_box_cancel_all(a.box);
    pthread_join(holder.t, NULL);
    sbx_result_free(&holder.r);
    close_side(&b);
    close_side(&a);
}

/* A 200 MiB job under 256M in one while hogs under 64M run in the other:
 * one slot would share one cgroup and one limit on v1. */
static void memory_apart(void **state)
{
    (void)state;
    side a, b;
    open_side(&a);
    open_side(&b);
    job big = { a.box, "sleep 1; exec ./prog 200", 256 << 20, 64 };
    assert_int_equal(pthread_create(&big.t, NULL, run_job, &big), 0);
    for (int i = 0; i < 3; i++) {
        job hog = { b.box, "exec ./prog 200", 64 << 20, 64 };
        run_job(&hog);
        sx_assert_status(&hog.r, SBX_MEMORY_LIMIT);
        sbx_result_free(&hog.r);
    }
    pthread_join(big.t, NULL);
    sx_assert_status(&big.r, SBX_OK);
    assert_true(big.r.memory_bytes >= 200u << 20);
    sbx_result_free(&big.r);
    close_side(&b);
    close_side(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(distinct_without_shared_locks, sx_test_setup),
        cmocka_unit_test_setup(distinct_from_another_container, sx_test_setup),
        cmocka_unit_test_setup(process_counts_apart, sx_test_setup),
        cmocka_unit_test_setup(memory_apart, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
