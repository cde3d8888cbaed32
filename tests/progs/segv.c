/* segv: writes through a null pointer and dies of SIGSEGV.
 * Attacks: the report of a death by signal the sandbox did not send.
 * Sandbox must report: SIGNALED, signal 11, exit_code -1. */
#include <stdio.h>

int main(void)
{
    volatile int *volatile p = NULL; /* volatile twice: the store stays a store */
    *p = 1;
    puts("still alive");
    return 0;
}
