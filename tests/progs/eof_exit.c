/* eof_exit: reads stdin to its end, then exits 1, as most students'
 * programs do when their interactor stops talking (`return 1` on EOF).
 * Attacks: an interactive verdict that blames the program for the
 * interactor's decision: after a judge that rejected and closed, the
 * verdict is the judge's (WRONG_ANSWER), not RUNTIME_ERROR. */
#include <unistd.h>

int main(void)
{
    char buf[4096];
    while (read(0, buf, sizeof buf) > 0)
        ;
    return 1;
}
