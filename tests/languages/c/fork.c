#include <unistd.h>

/* Each process forks for ever. */
int main(void)
{
    for (;;)
        fork();
}
