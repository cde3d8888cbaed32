/* ignore_stdin: never reads stdin, writes "done\n" and exits 0.
 * Attacks: a feeder that blocks writing a large stdin into a pipe nobody
 * reads (it must stop at EPIPE / exit, not deadlock or die of SIGPIPE).
 * Sandbox must report: OK, stdout "done\n", promptly, even with stdin far
 * larger than a pipe buffer. */
#include <unistd.h>

int main(void)
{
    write(1, "done\n", 5);
    return 0;
}
