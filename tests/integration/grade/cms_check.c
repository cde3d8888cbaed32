/* A checker to CMS's convention: argv input answer output (the answer
 * before the output), exit 0, the outcome in [0, 1] on stdout's first
 * line, the message on stderr's (translation keys as CMS ships them). The
 * outcome is output / answer, capped at 1; an output "crash" aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc < 4)
        return 1;
    FILE *a = fopen(argv[2], "r"), *o = fopen(argv[3], "r");
    char out[64] = "";
    double ans;
    if (!a || !o || fscanf(a, "%lf", &ans) != 1)
        return 1;
    if (fgets(out, sizeof out, o) && strncmp(out, "crash", 5) == 0)
        abort();
    double f = atof(out) / ans;
    f = f > 1 ? 1 : f < 0 ? 0 : f;
    printf("%.10f\n", f);
    fprintf(stderr, "%s\n", f == 1 ? "translate:success" : f == 0 ? "translate:wrong" : "translate:partial");
    return 0;
}
