/* sigxcpu_self: raises SIGXCPU on itself right away (no CPU used).
 * Attacks: a sandbox that reads "killed by SIGXCPU" as "exceeded the CPU
 * limit" (RLIMIT_CPU sends SIGXCPU) instead of checking the CPU it used.
 * Sandbox must report: SIGNALED with signal 24 (SIGXCPU), not TIME_LIMIT;
 * cpu_us far below the limit. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
    raise(SIGXCPU);
    puts("still alive");
    return 0;
}
