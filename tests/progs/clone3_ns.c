/* clone3_ns: asks clone3 (whose flags live in memory, out of seccomp's
 * sight) for a child in new user, mount and network namespaces, the way
 * around a filter that checks only clone's flags. Prints "clone3 ok" (the
 * child existed; it exits at once), or "clone3 errno=ENAME".
 * Sandbox must report: OK, stdout "clone3 errno=ENOSYS" (glibc then falls
 * back to clone, whose namespace flags are refused). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    struct clone_args a = { .flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET, .exit_signal = SIGCHLD };
    long pid = syscall(SYS_clone3, &a, sizeof a);
    if (pid == 0)
        _exit(0);
    if (pid < 0) {
        printf("clone3 errno=%s\n", strerrorname_np(errno));
        return 0;
    }
    waitpid((pid_t)pid, NULL, 0);
    printf("clone3 ok\n");
    return 0;
}
