/* a + b; wrong on purpose when built with -DWRONG=N (for a == N), spins
 * forever with -DSPIN=N, leaves a file behind and reports one it finds. */
#include <stdio.h>
#include <unistd.h>
int main(void)
{
    long a, b;
    if (access("left_behind", F_OK) == 0) {
        puts("saw a leftover");
        return 0;
    }
    FILE *f = fopen("left_behind", "w");
    if (f)
        fclose(f);
    if (scanf("%ld %ld", &a, &b) != 2)
        return 1;
#ifdef WRONG
    if (a == WRONG)
        b++;
#endif
#ifdef SPIN
    while (a == SPIN)
        ;
#endif
    printf("%ld\n", a + b);
    return 0;
}
