/* An interactor by testlib's conventions for the interactive A+B
 * package: argv input tout [answer]; it gives the program the test's two
 * numbers, reads its sum, and writes what it read to tout, judging
 * nothing (the package's checker judges tout against the answer). */
#include <stdio.h>
int main(int argc, char **argv)
{
    long long a, b, s;
    FILE *in = argc > 2 ? fopen(argv[1], "r") : NULL, *tout = argc > 2 ? fopen(argv[2], "w") : NULL;
    if (!in || !tout || fscanf(in, "%lld %lld", &a, &b) != 2)
        return 3;
    printf("%lld %lld\n", a, b);
    fflush(stdout);
    if (scanf("%lld", &s) != 1) {
        fprintf(stderr, "no sum read\n");
        return 2;
    }
    fprintf(tout, "%lld\n", s);
    return 0;
}
