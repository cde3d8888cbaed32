/* fds: prints the numbers of its open file descriptors, sorted, one per line
 * (read from /proc/self/fd, leaving out the fd of that directory itself).
 * Attacks: fds leaked from the worker into the program (the Redis socket, a
 * lock file, the other end of a pipe, the cgroup dir...).
 * Sandbox must report: OK, stdout exactly "0\n1\n2\n".
 * Exit 1: /proc/self/fd cannot be listed (its errno on stderr). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(void)
{
    static int fd[65536];
    size_t n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        const char *en = strerrorname_np(errno);
        fprintf(stderr, "opendir /proc/self/fd: errno=%s\n", en ? en : "?");
        return 1;
    }
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) && n < sizeof fd / sizeof fd[0]) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        int v = atoi(e->d_name);
        if (v != self)
            fd[n++] = v;
    }
    closedir(d);
    qsort(fd, n, sizeof fd[0], cmp);
    for (size_t i = 0; i < n; i++)
        printf("%d\n", fd[i]);
    return 0;
}
