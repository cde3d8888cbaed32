/* Written for gradeq's tests: the header the package carries beside its
 * checker (where a real package carries testlib.h). Not testlib. */
#include <stdio.h>
#include <stdlib.h>
static long long read_ll(FILE *f, int *ok)
{
    long long v = 0;
    *ok = f && fscanf(f, "%lld", &v) == 1;
    return v;
}
