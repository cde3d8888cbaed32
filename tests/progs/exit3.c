/* exit3: exits with status 3.
 * Attacks: nothing; checks the plain report of a non-zero exit.
 * Sandbox must report: RUNTIME_ERROR, exit_code 3, signal 0. */
#include <stdlib.h>

int main(void)
{
    exit(3);
}
