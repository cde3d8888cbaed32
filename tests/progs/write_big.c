/* write_big [MiB]: writes the file ./big.bin of MiB mebibytes (default 128)
 * in 1 MiB chunks. SIGXFSZ is caught (so the write returns EFBIG) and what
 * happened is printed on stdout, with a distinct exit code:
 *   0 "wrote N bytes"                    the whole file was written
 *   3 "SIGXFSZ after N bytes"            RLIMIT_FSIZE hit (signal, EFBIG)
 *   4 "EFBIG after N bytes"              EFBIG without the signal
 *   5 "ENOSPC after N bytes"             the /box filesystem is full
 *   6 "write errno=ENAME after N bytes"  anything else
 *   2 "open errno=ENAME"                 could not create the file
 * The file is left behind on purpose: the sandbox must wipe /box.
 * Attacks: the file size limit and the size of /box.
 * Sandbox must report: RUNTIME_ERROR exit 3 (or 5) with N <= file_bytes when
 * MiB exceeds the limit; OK (exit 0) when it fits. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got_xfsz;

static void on_xfsz(int sig)
{
    (void)sig;
    got_xfsz = 1;
}

int main(int argc, char **argv)
{
    static char chunk[1 << 20];
    unsigned long long mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 128;
    unsigned long long total = mib << 20, off = 0;
    signal(SIGXFSZ, on_xfsz);
    memset(chunk, 'x', sizeof chunk);
    int fd = open("big.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        const char *e = strerrorname_np(errno);
        printf("open errno=%s\n", e ? e : "?");
        return 2;
    }
    while (off < total) {
        size_t len = total - off < sizeof chunk ? (size_t)(total - off) : sizeof chunk;
        ssize_t w = write(fd, chunk, len);
        if (w < 0 && errno == EINTR && !got_xfsz)
            continue;
        if (w > 0) {
            off += (unsigned long long)w;
            continue;
        }
        int e = w < 0 ? errno : ENOSPC; /* write 0 of n: treat as full */
        if (got_xfsz) {
            printf("SIGXFSZ after %llu bytes\n", off);
            return 3;
        }
        if (e == EFBIG) {
            printf("EFBIG after %llu bytes\n", off);
            return 4;
        }
        if (e == ENOSPC || e == EDQUOT) {
            printf("%s after %llu bytes\n", e == ENOSPC ? "ENOSPC" : "EDQUOT", off);
            return 5;
        }
        const char *n = strerrorname_np(e);
        printf("write errno=%s after %llu bytes\n", n ? n : "?", off);
        return 6;
    }
    if (close(fd) < 0) {
        const char *n = strerrorname_np(errno);
        printf("close errno=%s after %llu bytes\n", n ? n : "?", off);
        return 6;
    }
    printf("wrote %llu bytes\n", off);
    return 0;
}
