/* oom_zygote: aims the memory cgroup's OOM killer at the sandbox's zygote,
 * which lives in the run's cgroup. Lowers its own oom_score_adj to 0
 * (prints `adj=ok` or `adj=ERRNO`: the sandbox set it to 1000; without
 * CAP_SYS_RESOURCE it cannot make that stick), parks `MiB` MiB (default
 * 40) in a file in /tmp (shared memory: no process's RSS, so the killer
 * sees next to nothing in the run's processes and picks the biggest, the
 * zygote), then forks children that lower their oom_score_adj too and
 * each touch memory 64 KiB at a time until the cgroup runs out. Exits 3
 * when the first child dies (the OOM killer took it).
 * Sandbox must report: MEMORY_LIMIT (never SANDBOX_ERROR), and the next
 * run in the box works in the same zygote. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *lower_adj(void)
{
    int fd = open("/proc/self/oom_score_adj", O_WRONLY);
    if (fd < 0 || write(fd, "0", 1) != 1)
        return strerrorname_np(errno);
    close(fd);
    return "ok";
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 40;
    printf("adj=%s\n", lower_adj());
    fflush(stdout);
    int fd = open("/tmp/park", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    static char chunk[1 << 20];
    memset(chunk, 'p', sizeof chunk);
    for (long i = 0; fd >= 0 && i < mib; i++)
        if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
            break;
    for (int i = 0; i < 8; i++)
        if (fork() == 0) {
            lower_adj();
            for (;;) {
                char *p = malloc(64 << 10);
                if (p)
                    memset(p, 1, 64 << 10);
            }
        }
    wait(NULL);
    return 3;
}
