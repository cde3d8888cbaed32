/* waiting.c -- who is blocked reading stdin when a run hits its wall limit.
 *
 * An interactive pair that deadlocks (each side waiting for the other) ends
 * at the wall limit; the result should say which side was waiting. The
 * kernel shows it: /proc/PID/task/TID/syscall of a thread blocked in read
 * or readv starts with the call's number and its fd. Only the run's own
 * stdin counts: the fd must be that pipe (the same inode, whatever its
 * number: a program may put a pipe of its own over fd 0 and block on it,
 * which is waiting for nobody), and the pipe must hold nothing unread (a
 * read on a pipe with bytes in it does not block: the bytes came, and the
 * run is reading something else). Checked on every thread of every process
 * of the run, just before the wall kill (reading these files needs ptrace
 * rights over the process: root). A stdin that is not a pipe (a file, or
 * /dev/null) never leaves a reader waiting.
 * Where /proc is another PID namespace's, /proc/PID is another process:
 * nothing is read, and nobody is blamed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define TASKS_MAX 1024 /* threads looked at per process */

/* The fd a thread is blocked reading, or -1. */
static long blocked_read_fd(pid_t pid, const char *tid)
{
    char path[96], buf[64];
    snprintf(path, sizeof path, "/proc/%d/task/%s/syscall", (int)pid, tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *end;
    long nr = strtol(buf, &end, 10);
    if (end == buf || *end != ' ' || (nr != SYS_read && nr != SYS_readv))
        return -1;
    char *arg = end + 1;
    long rfd = strtol(arg, &end, 16);
    return end == arg || rfd < 0 ? -1 : rfd;
}

/* Whether the process's fd is the run's stdin pipe, with nothing in it. */
static bool is_empty_stdin(const run_state *r, pid_t pid, long fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%ld", (int)pid, fd);
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f < 0)
        return false;
    struct stat st;
    int pending = -1;
    bool yes = fstat(f, &st) == 0 && st.st_dev == r->stdin_dev && st.st_ino == r->stdin_ino &&
               ioctl(f, FIONREAD, &pending) == 0 && pending == 0;
    close(f);
    return yes;
}

static bool pid_reading_stdin(const run_state *r, pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return false;
    bool yes = false;
    struct dirent *e;
    for (int n = 0; !yes && n < TASKS_MAX && (e = readdir(d)); n++) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        long fd = blocked_read_fd(pid, e->d_name);
        yes = fd >= 0 && is_empty_stdin(r, pid, fd);
    }
    closedir(d);
    return yes;
}

bool run_reading_stdin(run_state *r)
{
    if (!r->stdin_pipe)
        return false;
    pid_t pids[256];
    size_t n = 0;
    if (!r->box->host->procfs_ours)
        return false;
    if (r->box->has_cg)
        n = cg_slot_pids(&r->box->cg, pids, 256);
    else if (r->pid > 0)
        pids[n++] = r->pid;
    for (size_t i = 0; i < n; i++)
        if (pid_reading_stdin(r, pids[i]))
            return true;
    return false;
}
