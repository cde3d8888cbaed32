/* close_std: closes fds 0, 1 and 2, then exits 0.
 * Attacks: a collector that takes EOF on the pipes for "the program ended",
 * or that breaks on a stdin pipe closed before it was fed.
 * Sandbox must report: OK, exit_code 0, stdout and stderr empty, with or
 * without stdin data, and without waiting for the wall limit. */
#include <unistd.h>

int main(void)
{
    close(0);
    close(1);
    close(2);
    return 0;
}
