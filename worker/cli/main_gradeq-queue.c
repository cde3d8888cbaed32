/* main_gradeq-queue.c -- gradeq-queue: `gradeq`'s commands that talk to
 * Redis, which `gradeq` execs with its own arguments (main_gradeq.c says
 * why they are a program of their own). Run directly it takes the same
 * arguments: gradeq-queue submit ... */
#include <stdio.h>
#include <string.h>

#include "worker/cli/cli.h"
#include "worker/cli/commands.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
} commands[] = {
    { "submit", wk_cmd_submit },
    { "result", wk_cmd_result },
    { "stats", wk_cmd_stats },
    { "dead", wk_cmd_dead },
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc >= 2 && i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return wk_output_done(argv[1], commands[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "usage: gradeq-queue submit|result|stats|dead [options] (run by gradeq: see gradeq --help)\n");
    return 2;
}
