/* main_gradeq.c -- `gradeq`: the command-line front of the sandbox and the
 * queue. Only this file and the other main_*.c call exit. */
#include <stdio.h>
#include <string.h>

#include "worker/cli/commands.h"
#include "worker/daemon/config.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} commands[] = {
    { "run", wk_cmd_run, "run one program in the sandbox, here" },
    { "grade", wk_cmd_grade, "grade a submission against a folder of tests, here" },
    { "languages", wk_cmd_languages, "the language presets, one a line" },
    { "submit", wk_cmd_submit, "queue a job in Redis (and wait for its result)" },
    { "result", wk_cmd_result, "the result of a job submitted earlier (--wait: wait for it)" },
    { "stats", wk_cmd_stats, "the queue and its workers (--watch: refreshed)" },
    { "dead", wk_cmd_dead, "list, show, requeue or purge dead letters" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
    fprintf(f, "\n`gradeq COMMAND --help` for its options; `gradeq --version`.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0)
        return printf("gradeq %s\n", WK_VERSION), 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "gradeq: unknown command \"%s\"\nTry 'gradeq --help'.\n", argv[1]);
    return 2;
}
