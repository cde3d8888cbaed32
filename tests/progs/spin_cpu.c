/* spin_cpu: a CPU-bound job of a known size, for fairness between runs:
 * spins on one thread until it has used MS milliseconds of CPU (its own
 * clock, whatever the machine does), prints `cpu_ms=MS`, exits 0.
 *   spin_cpu [MS] (300)
 * Sandbox must report: OK, cpu_us >= MS*1000; beside any other run its
 * wall time stays within a fair share of a CPU (see setsid_hog). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    long ms = argc > 1 ? atol(argv[1]) : 300;
    struct timespec t;
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += (unsigned long)i;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while (t.tv_sec * 1000 + t.tv_nsec / 1000000 < ms);
    printf("cpu_ms=%ld\n", ms);
    return 0;
}
