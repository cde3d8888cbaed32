// A checker following testlib's conventions: argv input output answer;
// exit 0 accepted, 1 wrong answer, 2 presentation error, 3 fail; the first
// line of stderr is the message.
#include "testlib.h"
int main(int argc, char **argv)
{
    if (argc < 4)
        return 3;
    int ok_ans, ok_out;
    long long a = read_ll(fopen(argv[3], "r"), &ok_ans), b = read_ll(fopen(argv[2], "r"), &ok_out);
    if (!ok_ans) {
        fprintf(stderr, "bad answer file\n");
        return 3;
    }
    if (!ok_out) {
        fprintf(stderr, "expected a number\n");
        return 2;
    }
    if (a != b) {
        fprintf(stderr, "expected %lld, found %lld\n", a, b);
        return 1;
    }
    fprintf(stderr, "ok %lld\n", a);
    return 0;
}
