// Wrong when the sum passes 100: tests 4 and 5 of the package.
#include <cstdio>
int main() { long long a, b; if (scanf("%lld %lld", &a, &b) == 2) printf("%lld\n", a + b > 100 ? a + b + 1 : a + b); }
