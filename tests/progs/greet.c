/* greet: prints "hello\n" and exits 0.
 * Attacks: nothing; the baseline every other test is compared with.
 * Sandbox must report: OK, exit_code 0, stdout "hello\n", stderr empty. */
#include <stdio.h>

int main(void)
{
    fputs("hello\n", stdout);
    return 0;
}
