/* test_sandbox_embed.c -- what a program embedding the library (the Python
 * package) relies on: a reply to a stdin the program closed is dropped,
 * not an error, and a forked child lets go of its copy of the parent's box
 * without touching the box (its slot lock and its zygote stay the
 * parent's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "tests/lib/sandbox_fixtures.h"

typedef struct closed_ctx {
    char seen[256];
    size_t nseen;
    int rc;        /* what the write after the close returned */
    int too_big;   /* a write past SBX_REPLY_MAX */
} closed_ctx;

/* Once the program says it closed its stdin, writes replies until one is
 * no longer queued (the stdin writer found the pipe closed), then ends the
 * run. The loop only waits for the writer thread; its bound catches a
 * hang. */
static int closed_cb(void *ctx, int stream, const void *buf, size_t len, sbx_reply *reply)
{
    closed_ctx *c = ctx;
    if (stream != 1 || c->nseen + len >= sizeof c->seen)
        return 1;
    memcpy(c->seen + c->nseen, buf, len);
    c->nseen += len;
    if (!memmem(c->seen, c->nseen, "closed\n", 7))
        return 0;
    c->too_big = sbx_reply_write(reply, c->seen, (size_t)SBX_REPLY_MAX + 1);
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 20000; i++) {
        c->rc = sbx_reply_write(reply, "7\n", 2);
        if (c->rc != 0)
            break;
        nanosleep(&ms, NULL);
    }
    return 1;
}

static void reply_to_closed_stdin_is_dropped(void **state)
{
    (void)state;
    static const char *const argv[] = { "/bin/sh", "-c", "exec 0<&-; echo closed; exec sleep 30", NULL };
    closed_ctx ctx = { .rc = 99 };
    sbx_spec s = { .argv = argv, .interact = closed_cb, .interact_ctx = &ctx };
    sbx_limits_default(&s.limits);
    s.limits.wall_ms = 60000;
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    assert_true(r.ended_by_callback);
    sbx_result_free(&r);
    assert_int_equal(ctx.rc, 1);
    assert_int_equal(ctx.too_big, -1);
}

typedef struct close_then_write {
    int rc;
} close_then_write;

static int close_then_write_cb(void *ctx, int stream, const void *buf, size_t len, sbx_reply *reply)
{
    (void)stream, (void)buf, (void)len;
    close_then_write *c = ctx;
    sbx_reply_close(reply);
    c->rc = sbx_reply_write(reply, "late\n", 5);
    return 0;
}

static void reply_after_reply_close_is_dropped(void **state)
{
    (void)state;
    static const char *const argv[] = { "/bin/sh", "-c", "echo ready; cat; echo done", NULL };
    close_then_write ctx = { .rc = 99 };
    sbx_spec s = { .argv = argv, .interact = close_then_write_cb, .interact_ctx = &ctx };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    assert_int_equal(ctx.rc, 1);
    assert_int_equal(r.stdout_len, 11);
    assert_memory_equal(r.stdout_buf, "ready\ndone\n", 11);
    sbx_result_free(&r);
}

/* Whether this process holds an fd on path. */
static int holds_fd_on(const char *path)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char link[64], target[512];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = 0;
            found |= strcmp(target, path) == 0;
        }
    }
    closedir(d);
    return found;
}

static void forked_child_forgets_the_box(void **state)
{
    (void)state;
    char lock[300];
    snprintf(lock, sizeof lock, "/run/gradeq/slot-%u.lock", sbx_box_slot(sx_box));
    assert_int_equal(holds_fd_on(lock), 1);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int before = holds_fd_on(lock);
        sbx_box_forget(sx_box);
        _exit(before == 1 && holds_fd_on(lock) == 0 ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* The parent's slot is still locked, its box still runs. */
    int fd = open(lock, O_RDWR | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
    assert_int_equal(errno, EWOULDBLOCK);
    close(fd);
    sbx_result r;
    assert_int_equal(sx_run_prog("greet", NULL, NULL, &r), 0);
    sx_assert_status(&r, SBX_OK);
    sbx_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(reply_to_closed_stdin_is_dropped, sx_test_setup),
        cmocka_unit_test_setup(reply_after_reply_close_is_dropped, sx_test_setup),
        cmocka_unit_test_setup(forked_child_forgets_the_box, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
