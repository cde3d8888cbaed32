#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 GiB in 1 MiB blocks, one alive at a time (freed as the next comes). */
int main(void)
{
    char *alive = NULL;
    for (int i = 0; i < 1024; i++) {
        free(alive);
        alive = malloc(1 << 20);
        if (!alive)
            return 1;
        memset(alive, i, 1 << 20);
    }
    printf("done %d\n", 1 << 20);
    free(alive);
    return 0;
}
