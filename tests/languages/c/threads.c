#include <pthread.h>
#include <stdio.h>

/* Four threads, each sums its quarter. */
static long long part[4];

static void *work(void *arg)
{
    long id = (long)arg;
    long long s = 0;
    for (long long i = id; i < 400000; i += 4)
        s += i;
    part[id] = s;
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    for (long k = 0; k < 4; k++)
        if (pthread_create(&t[k], NULL, work, (void *)k) != 0)
            return 1;
    for (int k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
    printf("%lld\n", part[0] + part[1] + part[2] + part[3]);
    return 0;
}
