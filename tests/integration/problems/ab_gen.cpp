// The package's generator: its arguments are the test.
#include <cstdio>
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        printf("%s%c", argv[i], i + 1 < argc ? ' ' : '\n');
}
