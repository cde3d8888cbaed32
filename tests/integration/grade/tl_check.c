/* A checker written to testlib's conventions, without testlib: argv input
 * output answer, the verdict as testlib's exit code, the message as the
 * first line of stderr in testlib's words. The output decides:
 *   the answer            exit 0  "ok ..."
 *   half the answer       exit 7  "points 0.5 half" (quitp)
 *   a quarter of it       exit 7  "points points_info=0.25 quarter" (quitpi)
 *   "pe"                  exit 2  "wrong output format ..."
 *   nothing               exit 8  "unexpected eof ..." (-DENABLE_UNEXPECTED_EOF)
 *   "fail"                exit 3  "FAIL ..." (the checker's own failure)
 *   "pts X"               exit 7  "points X" (X as printed)
 *   anything else         exit 1  "wrong answer ..." */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc < 4)
        return 3;
    FILE *o = fopen(argv[2], "r"), *a = fopen(argv[3], "r");
    char out[256] = "";
    double ans;
    if (!o || !a || fscanf(a, "%lf", &ans) != 1) {
        fprintf(stderr, "FAIL cannot read the answer\n");
        return 3;
    }
    if (!fgets(out, sizeof out, o) || !out[0] || out[0] == '\n') {
        fprintf(stderr, "unexpected eof Unexpected end of file - double expected\n");
        return 8;
    }
    out[strcspn(out, "\n")] = 0;
    if (strcmp(out, "pe") == 0) {
        fprintf(stderr, "wrong output format Expected double, but \"pe\" found\n");
        return 2;
    }
    if (strcmp(out, "fail") == 0) {
        fprintf(stderr, "FAIL the jury's answer is wrong\n");
        return 3;
    }
    if (strncmp(out, "pts ", 4) == 0) {
        fprintf(stderr, "points %s\n", out + 4);
        return 7;
    }
    double v = atof(out);
    if (v == ans) {
        fprintf(stderr, "ok answer is %g\n", v);
        return 0;
    }
    if (v * 2 == ans) {
        fprintf(stderr, "points 0.5 half\n");
        return 7;
    }
    if (v * 4 == ans) {
        fprintf(stderr, "points points_info=0.25 quarter\n");
        return 7;
    }
    fprintf(stderr, "wrong answer expected %g, found %g\n", ans, v);
    return 1;
}
