/* oom_adj: a run lowering its own oom_score_adj from the +1000 the sandbox
 * sets, so that under host-wide memory pressure it is no longer the first
 * to go. Prints `start=N`, then `999=R 0=R -1000=R` (R: ok or the errno
 * name of each write to /proc/self/oom_score_adj, each tried after the
 * last), then `end=N`, one per line; exits 0 (2: /proc unreadable).
 * Sandbox must report: OK, start=1000. Where the sandbox holds
 * CAP_SYS_RESOURCE every lowering fails (EACCES) and end=1000; without it
 * the floor is the worker's own, which no run can go below. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int get(void)
{
    char b[32] = "";
    int fd = open("/proc/self/oom_score_adj", O_RDONLY);
    if (fd < 0 || read(fd, b, sizeof b - 1) <= 0)
        exit(2);
    close(fd);
    return atoi(b);
}

static const char *set(const char *v)
{
    int fd = open("/proc/self/oom_score_adj", O_WRONLY);
    if (fd < 0 || write(fd, v, strlen(v)) < 0) {
        const char *n = strerrorname_np(errno);
        if (fd >= 0)
            close(fd);
        return n ? n : "?";
    }
    close(fd);
    return "ok";
}

int main(void)
{
    printf("start=%d\n", get());
    const char *a = set("999"), *b = set("0"), *c = set("-1000");
    printf("999=%s 0=%s -1000=%s\n", a, b, c);
    printf("end=%d\n", get());
    return 0;
}
