/* env: prints its environment, one "K=V" per line, in order.
 * Attacks: leaks of the worker's environment (REDIS_URL, passwords, ...).
 * Sandbox must report: OK; stdout exactly the spec's env, or the minimal
 * default when spec.env is NULL (nothing of the worker's own environment). */
#include <stdio.h>

extern char **environ;

int main(void)
{
    for (char **e = environ; *e; e++)
        puts(*e);
    return 0;
}
