/* yes_both: two threads, one writes "y\n" forever to stdout, the other to
 * stderr, 64 KiB at a time.
 * Attacks: a collector that reads one pipe at a time (deadlock when the
 * other pipe fills) and the caps of both streams at once.
 * Sandbox must report: OUTPUT_LIMIT promptly (no wall-time deadlock), each
 * stream no longer than its cap, at least one of them truncated. */
#include <pthread.h>
#include <unistd.h>

static char buf[64 * 1024];

static void *flood(void *arg)
{
    int fd = (int)(long)arg;
    for (;;)
        write(fd, buf, sizeof buf);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    for (size_t i = 0; i < sizeof buf; i += 2) {
        buf[i] = 'y';
        buf[i + 1] = '\n';
    }
    pthread_create(&t1, NULL, flood, (void *)1L);
    pthread_create(&t2, NULL, flood, (void *)2L);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
