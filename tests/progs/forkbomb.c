/* forkbomb --really: every process forks forever; children do the same.
 * Fork errors are ignored and retried. Nothing is printed; nothing exits.
 * Attacks: the process limit (pids cgroup / RLIMIT_NPROC), the CPU limit of
 * all processes together, and the final kill of every process.
 * Sandbox must report: TIME_LIMIT (or WALL_TIME_LIMIT, or MEMORY_LIMIT: the
 * kernel memory of the processes it makes and ends is charged to the run,
 * and freed late on a loaded machine), never more than `processes` alive
 * at once, and no process left when sbx_run returns.
 * Without "--really" it refuses and exits 2 (safe to run by hand). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--really") != 0) {
        fprintf(stderr, "forkbomb: refusing without --really\n");
        return 2;
    }
    for (;;)
        fork();
}
