/* threads_cpu: two threads each burn ~500 ms of CPU, measured on their own
 * CLOCK_THREAD_CPUTIME_ID, then it prints "done" and exits 0. Each thread's
 * measured time goes to stderr after both ended ("thread 0 cpu_ms=500").
 * Attacks: CPU accounting that counts only the main thread, or wall time
 * (on two CPUs ~1000 ms of CPU is spent in ~500 ms of wall time).
 * Sandbox must report: OK with cpu_us >= ~1,000,000 when cpu_ms allows it;
 * TIME_LIMIT when cpu_ms is, say, 700 (even though each thread alone used
 * less and the wall time may be below 700 ms). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static long long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long used_ms[2];

static void *burn(void *arg)
{
    volatile unsigned long n = 0;
    while (thread_cpu_ns() < 500000000LL)
        for (int i = 0; i < 10000; i++)
            n++;
    used_ms[(long)arg] = thread_cpu_ns() / 1000000;
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, burn, (void *)i) != 0)
            return 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++)
        fprintf(stderr, "thread %d cpu_ms=%lld\n", i, used_ms[i]);
    puts("done");
    return 0;
}
