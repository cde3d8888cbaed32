/* guess_interactor: the judge of a guess-the-number problem, 20 rounds.
 * Secrets come from the file "input" (one per line; the job's test data),
 * else from a fixed sequence. Each round the program writes "? X" and gets
 * "<" (the secret is smaller), ">" or "="; at most 25 guesses a round.
 * Exit 0: all rounds solved; exit 1: a wrong or malformed answer.
 * argv[1] "crash": segfault after the first guess (INTERACTOR_ERROR).
 * Messages go to stderr (the result's interactor message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int crash = argc > 1 && strcmp(argv[1], "crash") == 0;
    long secrets[20];
    FILE *in = fopen("input", "r");
    for (int r = 0; r < 20; r++)
        if (!in || fscanf(in, "%ld", &secrets[r]) != 1)
            secrets[r] = (r * 7919L + 13) % 1000000 + 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    char line[128];
    for (int r = 0; r < 20; r++) {
        int guesses = 0;
        for (;;) {
            long x;
            if (!fgets(line, sizeof line, stdin) || sscanf(line, "? %ld", &x) != 1) {
                fprintf(stderr, "round %d: expected \"? X\"\n", r + 1);
                return 1;
            }
            if (crash)
                *(volatile int *)0 = 1;
            if (++guesses > 25) {
                fprintf(stderr, "round %d: more than 25 guesses\n", r + 1);
                return 1;
            }
            if (x == secrets[r]) {
                puts("=");
                break;
            }
            puts(x > secrets[r] ? "<" : ">");
        }
    }
    fprintf(stderr, "20 rounds solved\n");
    return 0;
}
