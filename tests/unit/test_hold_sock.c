/* test_hold_sock.c -- the holder's socket (worker/cli/hold_sock.c), whose
 * checks are all the trust between a command and the holder that runs it
 * as root: a command connects only to a holder of its euid, a holder
 * serves only a peer of its euid, and a message is taken only whole with
 * exactly its fds (any that came with a refused one are closed). Needs
 * root: another euid is taken on for the peers that must be refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/files.h"
#include "worker/cli/hold_sock.h"

#define NOBODY 65534

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    assert_non_null(tl_mkdtemp(dir, sizeof dir, "gradeq-hold-sock."));
    snprintf(path, sizeof path, "%s/hold.sock", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

/* The four fds a command sends: /dev/null each. */
static void request_fds(int fds[WK_HOLD_FDS])
{
    for (int i = 0; i < WK_HOLD_FDS; i++) {
        fds[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
        assert_true(fds[i] >= 0);
    }
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

/* A connection accepted on sock within 10 s. */
static int accept_one(int sock)
{
    struct pollfd p = { sock, POLLIN, 0 };
    assert_int_equal(poll(&p, 1, 10000), 1);
    int conn = accept4(sock, NULL, NULL, SOCK_CLOEXEC);
    assert_true(conn >= 0);
    return conn;
}

/* Whether fd reads end of file within 10 s: its other end is closed. */
static bool ends(int fd)
{
    struct pollfd p = { fd, POLLIN, 0 };
    char c;
    return poll(&p, 1, 10000) == 1 && read(fd, &c, 1) == 0;
}

/* A request arrives whole with its four fds, and the answer comes back. */
static void a_request_arrives_with_its_fds(void **state)
{
    (void)state;
    int sock = wk_hold_listen(path), fds[WK_HOLD_FDS], got[WK_HOLD_FDS];
    assert_true(sock >= 0);
    int c = wk_hold_connect(path);
    assert_true(c >= 0);
    int conn = accept_one(sock);
    assert_true(wk_hold_peer_ours(conn));
    request_fds(fds);
    assert_int_equal(wk_hold_send(c, "run -- x", 9, fds, WK_HOLD_FDS), 0);
    char buf[64];
    assert_int_equal(wk_hold_recv(conn, buf, sizeof buf, got, WK_HOLD_FDS), 9);
    assert_string_equal(buf, "run -- x");
    for (int i = 0; i < WK_HOLD_FDS; i++)
        assert_true(fcntl(got[i], F_GETFD) == FD_CLOEXEC);
    assert_int_equal(wk_hold_send(conn, "done", 4, NULL, 0), 0);
    assert_int_equal(wk_hold_recv(c, buf, sizeof buf, NULL, 0), 4);
    close_all(fds, WK_HOLD_FDS);
    close_all(got, WK_HOLD_FDS);
    close(conn);
    close(c);
    close(sock);
}

/* A socket at the path whose listener has another euid is no holder: a
 * command does not connect to it (it would hand its stdio to it). */
static void a_listener_of_another_euid_is_not_reached(void **state)
{
    (void)state;
    assert_int_equal(chmod(dir, 0777), 0);
    assert_int_equal(seteuid(NOBODY), 0);
    int sock = wk_hold_listen(path);
    assert_int_equal(seteuid(0), 0);
    assert_true(sock >= 0);
    assert_int_equal(wk_hold_connect(path), -1);
    close(sock);
}

/* A peer of another euid is not served: the holder sees who connected. */
static void a_peer_of_another_euid_is_not_ours(void **state)
{
    (void)state;
    int sock = wk_hold_listen(path);
    assert_true(sock >= 0);
    assert_int_equal(chmod(dir, 0777), 0);
    assert_int_equal(chmod(path, 0666), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* A raw connect: wk_hold_connect would refuse root's listener. */
        int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        struct sockaddr_un a = { .sun_family = AF_UNIX };
        strcpy(a.sun_path, path);
        _exit(setresuid(NOBODY, NOBODY, NOBODY) == 0 && c >= 0 &&
                      connect(c, (struct sockaddr *)&a, sizeof a) == 0 && ends(c)
                  ? 0
                  : 1);
    }
    int conn = accept_one(sock);
    assert_false(wk_hold_peer_ours(conn));
    close(conn);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(sock);
}

/* Sends msg with nfds fds, one of them the write end of pipe p (closed
 * here once sent), and asserts the holder's side refuses it and closes
 * the fds that came: the pipe's read end ends. */
static void refused(const void *msg, size_t len, int *fds, size_t nfds, int p[2])
{
    int sock = wk_hold_listen(path), got[WK_HOLD_FDS];
    assert_true(sock >= 0);
    int c = wk_hold_connect(path);
    assert_true(c >= 0);
    int conn = accept_one(sock);
    assert_int_equal(wk_hold_send(c, msg, len, fds, nfds), 0);
    close_all(fds, (int)nfds);
    char buf[64];
    assert_int_equal(wk_hold_recv(conn, buf, sizeof buf, got, WK_HOLD_FDS), -1);
    assert_true(ends(p[0]));
    close(p[0]);
    close(conn);
    close(c);
    close(sock);
}

/* A message with fewer fds than asked for is refused. */
static void a_message_without_all_its_fds_is_refused(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    refused("run", 4, &p[1], 1, p);
}

/* A message longer than the holder takes is refused whole, not cut. */
static void a_message_longer_than_taken_is_refused(void **state)
{
    (void)state;
    int fds[WK_HOLD_FDS], p[2];
    request_fds(fds);
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    close(fds[3]);
    fds[3] = p[1];
    char big[65];
    memset(big, 'a', sizeof big);
    refused(big, sizeof big, fds, WK_HOLD_FDS, p);
}

/* No holder listening at the path (none, or one killed, its socket left):
 * nothing is reached. */
static void no_listener_nothing_reached(void **state)
{
    (void)state;
    assert_int_equal(wk_hold_connect(path), -1);
    int sock = wk_hold_listen(path);
    assert_true(sock >= 0);
    close(sock); /* its file stays: a holder killed */
    assert_int_equal(wk_hold_connect(path), -1);
}

int main(void)
{
    if (geteuid() != 0) {
        fprintf(stderr, "test_hold_sock: needs root (another euid is taken on)\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_request_arrives_with_its_fds, setup, teardown),
        cmocka_unit_test_setup_teardown(a_listener_of_another_euid_is_not_reached, setup, teardown),
        cmocka_unit_test_setup_teardown(a_peer_of_another_euid_is_not_ours, setup, teardown),
        cmocka_unit_test_setup_teardown(a_message_without_all_its_fds_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_message_longer_than_taken_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(no_listener_nothing_reached, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
