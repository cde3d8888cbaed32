/* map_placed: memory beyond the limit taken from a file the caller placed
 * in /box (charged to whoever wrote it, not to the run): opens FILE for
 * writing, maps MiB of it shared and writes every page, as an array would.
 *   map_placed FILE MiB
 * Prints `used MiB MiB` when it could (the sandbox failed), else
 * `open errno=E chmod errno=E` (exit 1: it cannot open it, nor give
 * itself the right to), or `mmap errno=E` (exit 1).
 * Sandbox must report: never `used`; RUNTIME_ERROR with `open errno=EACCES
 * chmod errno=EPERM` (placed files are not the run's to write), or
 * MEMORY_LIMIT. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *ename(void)
{
    const char *n = strerrorname_np(errno);
    return n ? n : "?";
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    size_t len = (size_t)atol(argv[2]) << 20;
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) {
        printf("open errno=%s", ename());
        if (chmod(argv[1], 0666) < 0) {
            printf(" chmod errno=%s\n", ename());
            return 1;
        }
        printf(" chmod ok\n");
        fd = open(argv[1], O_RDWR);
        if (fd < 0) {
            printf("open errno=%s\n", ename());
            return 1;
        }
    }
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        printf("mmap errno=%s\n", ename());
        return 1;
    }
    for (size_t i = 0; i < len; i += 4096)
        m[i] = (char)(i >> 12);
    unsigned long sum = 0;
    for (size_t i = 0; i < len; i += 4096)
        sum += (unsigned char)m[i];
    printf("used %zu MiB (sum %lu)\n", len >> 20, sum);
    return 0;
}
