/* counters: what one run can move and the next can read, outside the
 * files, processes and objects a box clears: numbering counters.
 * `counters move [N]` (default 2000) forks N children one after the other
 * (each exits at once), creates and removes N files in . and in /tmp,
 * sends N datagrams of 1000 bytes to itself over 127.0.0.1, and creates
 * and removes N System V shared memory segments; prints `moved N`.
 * `counters show` prints one `key=value` a line: `pid` (its own),
 * `child` (the pid of a child it forks), `tid` (a thread's), `box_ino` and
 * `tmp_ino` (the inode numbers of a file it creates in . and in /tmp),
 * `lo_bytes` (received on the loopback, /proc/net/dev), `shm_id` (a new
 * segment's id), `last_pid` (/proc/sys/kernel/ns_last_pid, when readable).
 * Sandbox must report: OK both; after a `move`, a `show` in the same box
 * prints the same pid, child, tid and last_pid as a `show` in a new box.
 * (The other counters are the box's for its life: see docs/operations.md.)
 * Exit 1 = a step failed (its errno on stderr). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, strerrorname_np(errno));
    exit(1);
}

static pid_t fork_one(void)
{
    pid_t p = fork();
    if (p < 0)
        fail("fork");
    if (p == 0)
        _exit(0);
    if (waitpid(p, NULL, 0) != p)
        fail("waitpid");
    return p;
}

static unsigned long long new_ino(const char *dir)
{
    char path[64];
    snprintf(path, sizeof path, "%s/counters.tmp", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || unlink(path) < 0)
        fail("a file");
    close(fd);
    return (unsigned long long)st.st_ino;
}

static void datagrams(int n)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || getsockname(s, (struct sockaddr *)&a, &len) < 0)
        fail("udp socket");
    static char buf[1000];
    for (int i = 0; i < n; i++) {
        if (sendto(s, buf, sizeof buf, 0, (struct sockaddr *)&a, sizeof a) < 0)
            fail("sendto");
        if (recv(s, buf, sizeof buf, 0) < 0)
            fail("recv");
    }
    close(s);
}

static int new_shm(void)
{
    int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    if (id < 0 || shmctl(id, IPC_RMID, NULL) < 0)
        fail("shm");
    return id;
}

static unsigned long long lo_bytes(void)
{
    char line[512];
    unsigned long long rx = 0;
    FILE *f = fopen("/proc/net/dev", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "lo:");
        if (p && sscanf(p + 3, "%llu", &rx) == 1)
            break;
    }
    if (f)
        fclose(f);
    return rx;
}

static void *thread_main(void *arg)
{
    *(pid_t *)arg = (pid_t)syscall(SYS_gettid);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "move") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : 2000;
        for (int i = 0; i < n; i++) {
            fork_one();
            new_ino(".");
            new_ino("/tmp");
            new_shm();
        }
        datagrams(n);
        printf("moved %d\n", n);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "show") != 0) {
        fprintf(stderr, "usage: counters move [N] | show\n");
        return 2;
    }
    pid_t tid = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, &tid) != 0 || pthread_join(t, NULL) != 0)
        fail("thread");
    pid_t child = fork_one();
    char last[32] = "unreadable";
    int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, last, sizeof last - 1) : -1;
    if (n > 0)
        last[strcspn(last, "\n") < (size_t)n ? strcspn(last, "\n") : (size_t)n] = 0;
    printf("pid=%d\nchild=%d\ntid=%d\nlast_pid=%s\nbox_ino=%llu\ntmp_ino=%llu\nlo_bytes=%llu\nshm_id=%d\n", (int)getpid(),
           (int)child, (int)tid, last, new_ino("."), new_ino("/tmp"), lo_bytes(), new_shm());
    return 0;
}
