#include <stdio.h>

int main(void)
{
    int *volatile p = NULL;
    printf("%d\n", *p);
    return 0;
}
