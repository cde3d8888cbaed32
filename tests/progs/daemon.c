/* daemon: escapes its parent the classic way and stays behind.
 * The parent forks a child, the child calls setsid() and forks the
 * grandchild, then exits. The grandchild ignores SIGHUP, SIGTERM and SIGINT,
 * prints "grandchild pid=P" on stdout, closes fds 0, 1, 2 (so the output
 * pipes reach EOF) and sleeps forever. The parent waits until the grandchild
 * has closed its stdio, prints "parent: grandchild pid=P" and exits 0.
 * Attacks: "the main process exited and the pipes are at EOF, so the run is
 * over" — a process reparented away from the main one, in a new session,
 * deaf to polite signals.
 * Sandbox must report: OK, exit_code 0, stdout the two lines with the same P,
 * promptly (not at the wall limit), and no process left afterwards (the
 * grandchild is SIGKILLed). Exit 1: a fork or pipe failed. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    int fds[2];
    if (pipe(fds) < 0)
        return 1;
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        setsid();
        pid_t g = fork();
        if (g != 0)
            _exit(g < 0 ? 1 : 0);
        signal(SIGHUP, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        close(fds[0]);
        pid_t me = getpid();
        printf("grandchild pid=%d\n", (int)me);
        fflush(stdout);
        close(0);
        close(1);
        close(2);
        write(fds[1], &me, sizeof me); /* "my stdio is closed" */
        close(fds[1]);
        for (;;)
            pause();
    }
    close(fds[1]);
    int st;
    waitpid(child, &st, 0);
    pid_t g;
    if (read(fds[0], &g, sizeof g) != (ssize_t)sizeof g)
        return 1;
    printf("parent: grandchild pid=%d\n", (int)g);
    return 0;
}
