/* stdin_swap: a forged "waiting for input": puts a pipe of its own over fd
 * 0 (keeping its write end, so no end of file ever comes) and blocks
 * reading it, as a program waiting for the judge would look.
 * Sandbox must report: WALL_TIME_LIMIT with waiting_for_input false (the
 * run's stdin was never what it waited on); interactively, the program
 * named as not answering, not as waiting for the interactor. */
#include <unistd.h>

int main(void)
{
    int p[2];
    char c;
    if (pipe(p) < 0 || dup2(p[0], 0) < 0)
        return 2;
    return read(0, &c, 1) == 1 ? 0 : 1;
}
