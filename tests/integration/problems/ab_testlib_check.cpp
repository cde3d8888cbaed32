// A checker written with testlib's API (registerTestlibCmd, readLong,
// quitf), for a package that carries the real testlib.h: run only when
// the user gives a copy (GRADEQ_TESTLIB=/path/to/testlib.h).
#include "testlib.h"
int main(int argc, char *argv[])
{
    registerTestlibCmd(argc, argv);
    long long a = ans.readLong(), b = ouf.readLong();
    if (a != b)
        quitf(_wa, "expected %lld, found %lld", a, b);
    quitf(_ok, "%lld", a);
}
