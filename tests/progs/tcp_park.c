/* tcp_park [MiB]: parks data in loopback TCP queues that nobody reads:
 * connection pairs with the largest buffers the kernel allows, each side
 * written to until it would block, until MiB (default 512) are queued or no
 * fd, connection or buffer is left. Prints "parked N" (bytes queued).
 * Attacks: memory that no page of the program holds (socket buffers are
 * kernel memory, charged on v1 to a counter of their own).
 * Sandbox must report: the bytes parked stay near the memory limit (OK), or
 * MEMORY_LIMIT; never many times the limit. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static size_t fill(int fd)
{
    static char buf[65536];
    size_t n = 0;
    for (;;) {
        ssize_t w = write(fd, buf, sizeof buf);
        if (w <= 0)
            return n;
        n += (size_t)w;
    }
}

int main(int argc, char **argv)
{
    size_t want = (argc > 1 ? strtoull(argv[1], NULL, 10) : 512) << 20, parked = 0;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 64) < 0 ||
        getsockname(l, (struct sockaddr *)&a, &al) < 0) {
        perror("listen");
        return 1;
    }
    int big = 1 << 30;
    while (parked < want) {
        int c = socket(AF_INET, SOCK_STREAM, 0);
        if (c < 0)
            break;
        setsockopt(c, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        setsockopt(c, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
        if (connect(c, (struct sockaddr *)&a, sizeof a) < 0)
            break;
        int s = accept(l, NULL, NULL);
        if (s < 0)
            break;
        setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        fcntl(c, F_SETFL, O_NONBLOCK);
        fcntl(s, F_SETFL, O_NONBLOCK);
        size_t got = fill(c) + fill(s);
        parked += got;
        if (!got)
            break;
    }
    printf("parked %zu\n", parked);
    return 0;
}
