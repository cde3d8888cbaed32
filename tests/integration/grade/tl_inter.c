/* An interactor written to testlib's conventions, without testlib:
 * registerInteraction's argv (input tout [answer]), the program's output
 * on stdin, what the program reads on stdout, testlib's exit codes and
 * stderr lines. Input: a mode, then N, then N pairs a b. Each round it
 * sends "a b" and reads the program's number.
 *   tout     writes each number to tout and judges nothing (exit 0): a
 *            checker judges tout afterwards, as on Codeforces
 *   judge    wrong sum: exit 1; not a number: exit 2; end of file: exit 8
 *   points   exit 7 with "points K" for K right answers
 *   fail     exit 3 "FAIL" at once
 * With an answer file (argv[3]) it must be readable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    char mode[16];
    int n;
    if (argc < 3) {
        fprintf(stderr, "FAIL usage: interactor input tout [answer]\n");
        return 3;
    }
    FILE *in = fopen(argv[1], "r"), *tout = fopen(argv[2], "w");
    if (!in || !tout || fscanf(in, "%15s %d", mode, &n) != 2) {
        fprintf(stderr, "FAIL cannot read input or write tout\n");
        return 3;
    }
    if (argc > 3 && !fopen(argv[3], "r")) {
        fprintf(stderr, "FAIL cannot read the answer\n");
        return 3;
    }
    if (strcmp(mode, "fail") == 0) {
        fprintf(stderr, "FAIL the test is broken\n");
        return 3;
    }
    int right = 0;
    for (int i = 0; i < n; i++) {
        long a, b, x;
        char tok[64];
        if (fscanf(in, "%ld %ld", &a, &b) != 2)
            return 3;
        printf("%ld %ld\n", a, b);
        fflush(stdout);
        if (scanf("%63s", tok) != 1) {
            fprintf(stderr, "unexpected eof Unexpected end of file - int32 expected\n");
            return 8;
        }
        char *end;
        x = strtol(tok, &end, 10);
        if (*end) {
            fprintf(stderr, "wrong output format Expected integer, but \"%s\" found\n", tok);
            return 2;
        }
        fprintf(tout, "%ld\n", x);
        if (x == a + b)
            right++;
        else if (strcmp(mode, "judge") == 0) {
            fprintf(stderr, "wrong answer query %d: expected %ld, found %ld\n", i + 1, a + b, x);
            return 1;
        }
    }
    fclose(tout);
    if (strcmp(mode, "points") == 0 && right < n) {
        fprintf(stderr, "points %d right: %d of %d\n", right, right, n);
        return 7;
    }
    fprintf(stderr, "ok %d queries processed\n", n);
    return 0;
}
