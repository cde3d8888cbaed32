/* thread_bomb: creates threads forever (64 KiB stacks, each thread sleeps in
 * pause()); failures are ignored and retried. Prints nothing.
 * Attacks: the process limit counted in threads (pids cgroup counts tasks),
 * the memory of thread stacks, the kill of a process with many threads.
 * Sandbox must report: TIME_LIMIT (retrying burns CPU) or WALL_TIME_LIMIT,
 * never more than `processes` tasks at once, nothing left afterwards.
 * Never run it outside a sandbox. */
#include <pthread.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

int main(void)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 * 1024);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    for (;;) {
        pthread_t t;
        pthread_create(&t, &a, sleeper, NULL);
    }
}
