// A checker written with testlib (registerTestlibCmd) for testlib's own
// interactor-a-plus-b: the input is n and n pairs; what the interactor
// wrote to tout (the "output" here) must hold each pair's sum.
#include "testlib.h"

int main(int argc, char *argv[])
{
    registerTestlibCmd(argc, argv);
    int n = inf.readInt();
    for (int i = 1; i <= n; i++) {
        long long a = inf.readInt(), b = inf.readInt();
        long long x = ouf.readLong();
        if (x != a + b)
            quitf(_wa, "query %d: %lld + %lld is %lld, not %lld", i, a, b, a + b, x);
    }
    quitf(_ok, "%d sums", n);
}
