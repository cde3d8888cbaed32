/* fd_exhaust: opens /dev/null again and again until open fails, then prints
 * "count=N errno=ENAME" (N = opens that succeeded) and exits 0. If /dev/null
 * cannot be opened even once it prints that line (count=0) and then counts
 * dup(0) instead: "dup count=N errno=ENAME".
 * Attacks: the open-files limit (RLIMIT_NOFILE) and /dev/null in the root.
 * Sandbox must report: OK, "count=N errno=EMFILE" with N = open_files - 3
 * (64 by default: count=61). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *ename(int e)
{
    const char *n = strerrorname_np(e);
    return n ? n : "?";
}

int main(void)
{
    long count = 0;
    while (open("/dev/null", O_RDONLY) >= 0)
        count++;
    int e = errno;
    printf("count=%ld errno=%s\n", count, ename(e));
    if (count > 0 || e == EMFILE)
        return 0;
    count = 0;
    while (dup(0) >= 0)
        count++;
    printf("dup count=%ld errno=%s\n", count, ename(errno));
    return 0;
}
