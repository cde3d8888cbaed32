/* self_id.c -- this process as the rest of the machine names it.
 *
 * A pid is a number in one PID namespace. In a container, or under
 * `unshare --pid`, getpid() is a small number that to the host, its
 * systemd and its operators means another process or none. What is
 * certain: in the machine's initial PID namespace (the kernel gives it the
 * fixed nsfs inode PROC_PID_INIT_INO; every other one gets a number from
 * 0xF0000000 up) getpid() is that pid; where /proc is the initial
 * namespace's procfs (its pid 1 lives there), the first NSpid of
 * /proc/self/status is. Otherwise the pid outside cannot be known, and the
 * process is told apart by its PID namespace's inode, unique on the
 * machine while the namespace lives, and its pid there.
 *
 * The same reading tells whether /proc is our own namespace's: a pid of
 * ours looked up in another one's /proc is another process's file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define PROC_PID_INIT_INO 0xEFFFFFFCul

static bool is_initial(const char *ns_link, unsigned long *ino)
{
    struct stat st;
    if (stat(ns_link, &st) < 0)
        return false;
    if (ino)
        *ino = (unsigned long)st.st_ino;
    return st.st_ino == PROC_PID_INIT_INO;
}

/* Our pids from the namespace of the procfs at /proc down to ours (the
 * NSpid line): how many, the first in *first. 0 when unreadable. */
static int procfs_pids(long *first)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return 0;
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "NSpid:", 6) != 0)
            continue;
        for (char *p = line + 6, *end;; p = end, n++) {
            long v = strtol(p, &end, 10);
            if (end == p || v <= 0)
                break;
            if (n == 0)
                *first = v;
        }
        break;
    }
    fclose(f);
    return n;
}

bool self_procfs_ours(void)
{
    long first;
    return procfs_pids(&first) == 1;
}

long sbx_self_id(char *tag, size_t len)
{
    unsigned long ns = 0;
    long pid = 0;
    if (is_initial("/proc/self/ns/pid", &ns))
        pid = getpid();
    else if (is_initial("/proc/1/ns/pid", NULL) && procfs_pids(&pid) < 1)
        pid = 0;
    if (pid > 0)
        snprintf(tag, len, "%ld", pid);
    else if (ns)
        snprintf(tag, len, "pidns%lu-%ld", ns, (long)getpid());
    else {
        /* No /proc to tell the namespace: a random name, still unique. */
        unsigned r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r)
            r = (unsigned)getpid() ^ (unsigned)time(NULL);
        snprintf(tag, len, "pidnsr%08x-%ld", r, (long)getpid());
    }
    return pid;
}
