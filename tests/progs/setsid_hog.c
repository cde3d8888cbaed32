/* setsid_hog: CPU taken from concurrent runs by multiplying scheduler
 * shares: N children each call setsid (each new session is an autogroup of
 * its own, with the weight of a whole process group) and spin. Once all are
 * spinning it prints `ready N`; then for each line read on stdin it prints
 * `cpu_ms=T`, the CPU its children have used so far (from /proc); at the
 * end of stdin it kills them (by pid) and exits 0.
 *   setsid_hog [N] (63)
 * Exit 2 = a fork, setsid or /proc read failed (errno on stderr).
 * Sandbox must report: OK; meanwhile a CPU-bound run in another box gets
 * about as much CPU as all of these together, not 1/(N+1) of the machine. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pid_t kids[4096];

/* utime + stime of every child, in ms. */
static long children_cpu_ms(int n)
{
    long ticks = 0;
    for (int i = 0; i < n; i++) {
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)kids[i]);
        int fd = open(path, O_RDONLY);
        ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        if (fd >= 0)
            close(fd);
        if (len <= 0)
            return -1;
        buf[len] = 0;
        char *p = strrchr(buf, ')');
        unsigned long ut, st;
        if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
            return -1;
        ticks += (long)(ut + st);
    }
    return ticks * 1000 / sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 63;
    if (n < 1 || n > 4096)
        return 2;
    int p[2];
    if (pipe(p) < 0)
        return 2;
    for (int i = 0; i < n; i++) {
        pid_t c = fork();
        if (c < 0) {
            fprintf(stderr, "fork %d: %s\n", i, strerror(errno));
            return 2;
        }
        if (c == 0) {
            char ok = setsid() < 0 ? 'E' : 'S';
            if (write(p[1], &ok, 1) != 1)
                _exit(1);
            for (volatile unsigned long x = 0;; x++)
                ;
        }
        kids[i] = c;
    }
    for (int i = 0; i < n; i++) {
        char ok;
        if (read(p[0], &ok, 1) != 1 || ok != 'S') {
            fprintf(stderr, "setsid failed in child %d\n", i);
            return 2;
        }
    }
    printf("ready %d\n", n);
    fflush(stdout);
    char line[64];
    int rc = 0;
    while (fgets(line, sizeof line, stdin)) {
        long ms = children_cpu_ms(n);
        if (ms < 0)
            rc = 2;
        printf("cpu_ms=%ld\n", ms);
        fflush(stdout);
    }
    for (int i = 0; i < n; i++)
        kill(kids[i], SIGKILL);
    return rc;
}
