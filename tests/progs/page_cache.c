/* page_cache: memory the kernel can take back (page cache of a file on the
 * host's disk, FILE, which the test has dropped from the cache first), at
 * the run's memory limit:
 *   page_cache FILE exit3       reads FILE once (its pages are charged to
 *                               the run and reclaimed at the limit), exits 3
 *   page_cache FILE spin [MiB]  holds MiB of memory of its own (default 0),
 *                               then reads FILE through a mapping over and
 *                               over, forever: at a limit below MiB plus
 *                               FILE's size every pass evicts what the next
 *                               needs (a runtime thrashing on its own pages)
 * Exit 2 = usage or FILE cannot be opened or mapped.
 * Sandbox must report: exit3: RUNTIME_ERROR exit 3 (reclaim at the limit is
 * not an allocation that failed); spin: killed at its CPU limit with its
 * memory at the limit: MEMORY_LIMIT. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0)
        return 2;
    if (strcmp(argv[2], "exit3") == 0) {
        static char buf[1 << 16];
        while (read(fd, buf, sizeof buf) > 0)
            ;
        return 3;
    }
    if (strcmp(argv[2], "spin") != 0)
        return 2;
    size_t own = argc > 3 ? (size_t)atol(argv[3]) << 20 : 0;
    char *mine = own ? malloc(own) : NULL;
    if (own && !mine)
        return 2;
    for (size_t i = 0; i < own; i += 4096)
        mine[i] = 1;
    off_t len = lseek(fd, 0, SEEK_END);
    const volatile char *m = len > 0 ? mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (m == MAP_FAILED)
        return 2;
    for (unsigned long sum = 0;; sum++)
        for (off_t i = 0; i < len; i += 4096)
            sum += (unsigned char)m[i];
}
