/* stdout_inflight: "the run is over when the output pipes reach end of
 * file". Writes `bye\n` to stdout, then sends copies of its stdout and
 * stderr, with one end of a socketpair, into that end's own receive queue,
 * and exits at once: no process holds the copies, so the pipes reach EOF
 * only when the kernel's unix garbage collector runs, if ever.
 * Sandbox must report: OK, stdout `bye\n`, promptly (not at the wall
 * limit, never a hang). Exit 1 and the step on stderr if the set-up fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void)
{
    if (write(1, "bye\n", 4) != 4)
        return 1;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
        return 1;
    int fds[3] = { 1, 2, sv[0] };
    char ctl[CMSG_SPACE(sizeof fds)] = { 0 }, byte = 'x';
    struct iovec iov = { &byte, 1 };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    if (sendmsg(sv[1], &mh, 0) < 0) {
        fprintf(stderr, "sendmsg: %s\n", strerrorname_np(errno));
        return 1;
    }
    return 0;
}
