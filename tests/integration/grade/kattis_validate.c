/* An output validator to the Kattis problem package format: argv input
 * answer feedback_dir, the team's output on stdin; exit 42 accepted, 43
 * wrong; feedback_dir/judgemessage.txt says why; for half the answer it
 * accepts with feedback_dir/score.txt 0.5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void message(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1); /* a validator that cannot write: a judge error */
    fputs(text, f);
    fclose(f);
}
int main(int argc, char **argv)
{
    double ans, out;
    FILE *a = argc > 3 ? fopen(argv[2], "r") : NULL;
    if (!a || fscanf(a, "%lf", &ans) != 1)
        return 1;
    if (scanf("%lf", &out) != 1) {
        message(argv[3], "judgemessage.txt", "no number in the output\n");
        return 43;
    }
    if (out * 2 == ans) {
        message(argv[3], "score.txt", "0.5\n");
        message(argv[3], "judgemessage.txt", "half\n");
        return 42;
    }
    message(argv[3], "judgemessage.txt", out == ans ? "correct\n" : "wrong sum\n");
    return out == ans ? 42 : 43;
}
