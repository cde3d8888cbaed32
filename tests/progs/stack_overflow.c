/* stack_overflow: recurses forever, 1 KiB of stack per call, until the stack
 * runs out.
 * Attacks: the stack limit (RLIMIT_STACK) and the memory limit behind it.
 * Sandbox must report: SIGNALED with signal 11 (SIGSEGV at the stack limit),
 * or MEMORY_LIMIT if the stack may grow as large as the memory limit; never
 * OK, TIME_LIMIT or SANDBOX_ERROR. */
#include <stdio.h>

static volatile int stop; /* never set: keeps the compiler from proving the recursion infinite */

static int down(int depth)
{
    volatile char frame[1024];
    frame[0] = (char)depth;
    if (stop)
        return frame[0];
    return down(depth + 1) + frame[0];
}

int main(void)
{
    printf("%d\n", down(0));
    return 0;
}
