#include <stdlib.h>
#include <string.h>

/* Keeps every 1 MiB block: past any limit. */
int main(void)
{
    for (;;) {
        char *b = malloc(1 << 20);
        if (!b)
            return 1;
        memset(b, 1, 1 << 20);
    }
}
