/* memhog [MiB]: mallocs MiB mebibytes (default 1024) in one block and writes
 * one byte in every page, so the memory is really committed. Prints nothing.
 * Attacks: the memory limit (cgroup memory + swap, or RLIMIT_AS).
 * Sandbox must report: MEMORY_LIMIT when MiB exceeds the limit; OK (exit 0)
 * when it fits. Exit 2 means malloc returned NULL (an address-space limit
 * refused the block before any page was touched). */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 1024;
    size_t len = mib << 20, page = (size_t)sysconf(_SC_PAGESIZE);
    volatile char *p = malloc(len);
    if (!p)
        return 2;
    for (size_t i = 0; i < len; i += page)
        p[i] = 1;
    free((void *)p);
    return 0;
}
