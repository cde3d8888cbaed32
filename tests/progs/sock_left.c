/* sock_left: sockets surviving the run in an SCM_RIGHTS cycle.
 * `sock_left make` listens on the abstract unix name @gradeq-left and on
 * TCP 127.0.0.1:7777, checks that it can connect to both, then sends both
 * listeners and one end of a socketpair into that same end's own receive
 * queue: once it closes its fds no process holds any of them, and only
 * the kernel's unix garbage collector can free them. Prints `left abstract
 * tcp` and exits 0 (exit 1 and the step on stderr otherwise).
 * `sock_left find` (a later job) prints `abstract=ERRNO` for a connect to
 * @gradeq-left (`abstract=connected` if it is still there) and `bind=ok` or
 * `bind=ERRNO` for binding 127.0.0.1:7777.
 * Sandbox must report: OK; the later job sees abstract=ECONNREFUSED and
 * bind=ok. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fail(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, strerrorname_np(errno));
    exit(1);
}

static socklen_t abstract(struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path + 1, "gradeq-left", 11);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 12);
}

static struct sockaddr_in tcp_addr(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(7777) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

static void make(void)
{
    struct sockaddr_un ua;
    socklen_t ul = abstract(&ua);
    struct sockaddr_in ta = tcp_addr();
    int u = socket(AF_UNIX, SOCK_STREAM, 0), t = socket(AF_INET, SOCK_STREAM, 0);
    if (u < 0 || bind(u, (struct sockaddr *)&ua, ul) < 0 || listen(u, 8) < 0)
        fail("abstract listener");
    if (t < 0 || bind(t, (struct sockaddr *)&ta, sizeof ta) < 0 || listen(t, 8) < 0)
        fail("tcp listener");
    int cu = socket(AF_UNIX, SOCK_STREAM, 0), ct = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(cu, (struct sockaddr *)&ua, ul) < 0 || connect(ct, (struct sockaddr *)&ta, sizeof ta) < 0)
        fail("connect to own listeners");
    close(cu);
    close(ct);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
        fail("socketpair");
    int fds[3] = { u, t, sv[0] };
    char ctl[CMSG_SPACE(sizeof fds)] = { 0 }, byte = 'x';
    struct iovec iov = { &byte, 1 };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    if (sendmsg(sv[1], &mh, 0) < 0)
        fail("sendmsg");
    puts("left abstract tcp");
}

static void find(void)
{
    struct sockaddr_un ua;
    socklen_t ul = abstract(&ua);
    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(u, (struct sockaddr *)&ua, ul) == 0)
        puts("abstract=connected");
    else
        printf("abstract=%s\n", strerrorname_np(errno));
    struct sockaddr_in ta = tcp_addr();
    int t = socket(AF_INET, SOCK_STREAM, 0);
    if (bind(t, (struct sockaddr *)&ta, sizeof ta) == 0)
        puts("bind=ok");
    else
        printf("bind=%s\n", strerrorname_np(errno));
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "make") == 0)
        make();
    else
        find();
    return 0;
}
