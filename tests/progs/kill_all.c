/* kill_all --really: sends SIGKILL to every process it may signal:
 * kill(-1, SIGKILL), then its parent, kill(getppid(), SIGKILL), then
 * kill(1, SIGKILL). Each result goes to stderr ("kill(-1) ok" or
 * "kill(-1) errno=ESRCH"); then it prints "alive" on stdout and exits 0.
 * If getppid() is 0 (parent outside its PID namespace) that step is skipped:
 * kill(0, ...) would hit its own process group, a different attack.
 * Attacks: the zygote / supervisor / namespace init sharing the program's uid
 * or PID namespace; a worker that dies and takes the box with it.
 * Sandbox must report: OK, stdout "alive\n"; the next run in the same box
 * must work (run hello after it).
 * DANGER: as root outside a PID namespace kill(-1, SIGKILL) kills the whole
 * machine. So it refuses (exit 2) without "--really", and also refuses as
 * euid 0 even with it: the sandbox never runs programs as root. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void try_kill(const char *what, pid_t pid)
{
    if (kill(pid, SIGKILL) == 0) {
        fprintf(stderr, "%s ok\n", what);
    } else {
        const char *n = strerrorname_np(errno);
        fprintf(stderr, "%s errno=%s\n", what, n ? n : "?");
    }
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--really") != 0) {
        fprintf(stderr, "kill_all: refusing without --really\n");
        return 2;
    }
    if (geteuid() == 0) {
        fprintf(stderr, "kill_all: refusing to run as root\n");
        return 2;
    }
    try_kill("kill(-1)", -1);
    pid_t pp = getppid();
    if (pp > 0)
        try_kill("kill(ppid)", pp);
    else
        fprintf(stderr, "kill(ppid) skipped: ppid=0\n");
    try_kill("kill(1)", 1);
    puts("alive");
    return 0;
}
