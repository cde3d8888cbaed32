/* guess_solver: a contestant for guess_interactor (secrets in 1..1000000).
 * argv[1]: "right" (binary search, the default), "wrong" (reads the hints
 * backwards, so it never finds the secret), "silent" (never writes: the
 * judge waits forever), "flood" (writes garbage at the judge without end). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "right";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "silent") == 0) {
        for (;;)
            pause();
    }
    if (strcmp(mode, "flood") == 0) {
        for (;;)
            fputs("garbage garbage garbage garbage\n", stdout);
    }
    int wrong = strcmp(mode, "wrong") == 0;
    char line[64];
    for (int r = 0; r < 20; r++) {
        long lo = 1, hi = 1000000;
        for (;;) {
            long mid = lo + (hi - lo) / 2;
            printf("? %ld\n", mid);
            if (!fgets(line, sizeof line, stdin))
                return 0;
            if (line[0] == '=')
                break;
            if ((line[0] == '<') != wrong)
                hi = mid - 1;
            else
                lo = mid + 1;
        }
    }
    return 0;
}
