/* forge_pipe: a contestant that leaves its interactor talking to no one,
 * hoping the judge's SIGPIPE reads as the judge's fault.
 * "nosep": writes "? 1" with no separator and exits.
 * "shrink": shrinks its stdin pipe (the interactor's output) to one page
 * with F_SETPIPE_SZ, writes "? 1\n" and exits.
 * Must be: WRONG_ANSWER (the program's failure), never INTERACTOR_ERROR. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "shrink") == 0) {
        fcntl(0, F_SETPIPE_SZ, 4096);
        write(1, "? 1\n", 4);
    } else {
        write(1, "? 1", 3);
    }
    return 0;
}
