/* A testlib-style checker: argv input output answer; exit 0 accepted, 1
 * wrong answer (message on stderr), and it crashes when the input says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    char in[64] = "";
    long out, ans;
    FILE *i = fopen(argv[argc - 3], "r"), *o = fopen(argv[argc - 2], "r"), *a = fopen(argv[argc - 1], "r");
    if (!i || !o || !a)
        return 3;
    if (fgets(in, sizeof in, i) && strstr(in, "100"))
        abort();
    if (fscanf(a, "%ld", &ans) != 1)
        return 3;
    if (fscanf(o, "%ld", &out) != 1) {
        fprintf(stderr, "wrong answer: no number\n");
        return 1;
    }
    if (out != ans) {
        fprintf(stderr, "wrong answer: expected %ld, found %ld\nsecond line\n", ans, out);
        return 1;
    }
    fprintf(stderr, "ok %ld\n", out);
    return 0;
}
