/* busy_loop: spins on the CPU forever, never makes a system call.
 * Attacks: the CPU time limit.
 * Sandbox must report: TIME_LIMIT (cpu_us near cpu_ms; never WALL_TIME_LIMIT
 * while the CPU is available, never OK). */
int main(void)
{
    volatile unsigned long n = 0;
    for (;;)
        n++;
}
