/* waiting.c -- who is blocked reading stdin when a run hits its wall limit.
 *
 * An interactive pair that deadlocks (each side waiting for the other) ends
 * at the wall limit; the result should say which side was waiting. The
 * kernel shows it: /proc/PID/syscall of a process blocked in read(0, ...)
 * starts with "0 0x0". Checked on every process of the run, just before the
 * wall kill (reading it needs ptrace rights over the process: root).
 * Where /proc is another PID namespace's, /proc/PID is another process:
 * nothing is read, and nobody is blamed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/internal.h"

static bool pid_reading_stdin(pid_t pid)
{
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    return strncmp(buf, "0 0x0 ", 6) == 0;
}

bool run_reading_stdin(run_state *r)
{
    pid_t pids[256];
    size_t n = 0;
    if (!r->box->host->procfs_ours)
        return false;
    if (r->box->has_cg)
        n = cg_slot_pids(&r->box->cg, pids, 256);
    else if (r->pid > 0)
        pids[n++] = r->pid;
    for (size_t i = 0; i < n; i++)
        if (pid_reading_stdin(pids[i]))
            return true;
    return false;
}
