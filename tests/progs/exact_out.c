/* exact_out N [err]: writes exactly N bytes to stdout (to stderr with "err"),
 * byte i being (i % 251), then exits 0. Short writes and EINTR are retried.
 * Attacks: the collector's byte accounting at and around the caps (N = cap-1,
 * cap, cap+1), binary data with NULs, a write split across pipe buffers.
 * Sandbox must report: OK with exactly N bytes when N <= cap (check the
 * pattern); OUTPUT_LIMIT with exactly cap bytes, truncated, when N > cap.
 * Exit 1: a write failed; exit 2: bad usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static unsigned char buf[65536];
    if (argc < 2) {
        fprintf(stderr, "usage: exact_out N [err]\n");
        return 2;
    }
    unsigned long long n = strtoull(argv[1], NULL, 10), off = 0;
    int fd = argc > 2 && strcmp(argv[2], "err") == 0 ? 2 : 1;
    while (off < n) {
        size_t len = n - off < sizeof buf ? (size_t)(n - off) : sizeof buf;
        for (size_t j = 0; j < len; j++)
            buf[j] = (unsigned char)((off + j) % 251);
        size_t done = 0;
        while (done < len) {
            ssize_t w = write(fd, buf + done, len - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return 1;
            done += (size_t)w;
        }
        off += len;
    }
    return 0;
}
