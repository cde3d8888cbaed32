/* A contestant for tl_inter: reads "a b" lines and answers a + b; built
 * with -DMINUS it answers a - b; -DGARBAGE answers "x"; -DQUIT=K stops
 * after K answers. */
#include <stdio.h>
int main(void)
{
    long a, b;
    int k = 0;
    while (scanf("%ld %ld", &a, &b) == 2) {
#ifdef QUIT
        if (k == QUIT)
            return 0;
#endif
#if defined(MINUS)
        printf("%ld\n", a - b);
#elif defined(GARBAGE)
        puts("x");
#else
        printf("%ld\n", a + b);
#endif
        fflush(stdout);
        k++;
    }
    return 0;
}
