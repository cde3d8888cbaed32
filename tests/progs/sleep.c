/* sleep: blocks forever without using any CPU (pause() in a loop).
 * Attacks: a limit on CPU time alone; only the wall clock can end it.
 * Sandbox must report: WALL_TIME_LIMIT, with cpu_us close to 0. */
#include <unistd.h>

int main(void)
{
    for (;;)
        pause();
}
