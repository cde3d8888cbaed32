/* connect_host [PORT]: tries a TCP connection to 127.0.0.1:PORT (default
 * 6379, Redis, which the worker itself talks to). Prints "connected" and
 * exits 0 on success; otherwise prints "socket errno=ENAME" or
 * "connect errno=ENAME" and exits 1. A 2 s send timeout bounds the attempt.
 * Attacks: the network namespace (reaching the host's loopback services).
 * Sandbox must report: RUNTIME_ERROR, exit_code 1, stdout not "connected"
 * (typically ENETUNREACH: the new namespace's loopback is down), even while
 * the test listens on that port on the host. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static const char *ename(int e)
{
    static char b[16];
    const char *n = strerrorname_np(e);
    if (n)
        return n;
    snprintf(b, sizeof b, "E%d", e);
    return b;
}

int main(int argc, char **argv)
{
    int port = argc > 1 ? atoi(argv[1]) : 6379;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
        printf("socket errno=%s\n", ename(errno));
        return 1;
    }
    struct timeval tv = {2, 0};
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        printf("connect errno=%s\n", ename(errno));
        return 1;
    }
    puts("connected");
    return 0;
}
