/* main_gradeq.c -- `gradeq`: the command-line front of the sandbox and the
 * queue. Only this file and the other main_*.c call exit.
 *
 * `gradeq` is started once a command, thousands in a row from a script,
 * so it is linked statically (Makefile): its start skips the dynamic
 * loader. The commands that talk to Redis are a program of their own,
 * gradeq-queue beside it (main_gradeq-queue.c), linked dynamically: they
 * resolve host names, and glibc resolves them through the system's NSS
 * modules, which a static program would load from whatever glibc the
 * machine has after its next upgrade. `gradeq submit ...` execs it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/cli/cli.h"
#include "worker/cli/commands.h"
#include "worker/daemon/config.h"

#define QUEUE_PROGRAM "gradeq-queue"

static const struct {
    const char *name;
    int (*fn)(int, char **); /* NULL: gradeq-queue's */
    const char *what;
} commands[] = {
    { "run", wk_cmd_run, "run one program in the sandbox, here" },
    { "grade", wk_cmd_grade, "grade a submission against a folder of tests, here" },
    { "languages", wk_cmd_languages, "the language presets, one a line" },
    { "submit", NULL, "queue a job in Redis (and wait for its result)" },
    { "result", NULL, "the result of a job submitted earlier (--wait: wait for it)" },
    { "stats", NULL, "the queue and its workers (--watch: refreshed)" },
    { "dead", NULL, "list, show, requeue or purge dead letters" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
    fprintf(f, "\n`gradeq COMMAND --help` for its options; `gradeq --version`.\n");
}

/* A queue command: gradeq-queue, from the directory of this program, with
 * the same arguments. Returns only when it could not be started. */
static int queue_command(char **argv)
{
    char path[PATH_MAX];
    size_t room = sizeof path - sizeof QUEUE_PROGRAM; /* the name and its NUL fit after */
    ssize_t n = readlink("/proc/self/exe", path, room);
    char *slash = n > 0 && (size_t)n < room ? memrchr(path, '/', (size_t)n) : NULL;
    if (!slash) {
        fprintf(stderr, "gradeq %s: cannot find this program's directory (/proc/self/exe): %s\n", argv[1],
                n < 0 ? strerror(errno) : "too long");
        return WK_EXIT_REDIS;
    }
    strcpy(slash + 1, QUEUE_PROGRAM);
    argv[0] = path;
    execv(path, argv);
    fprintf(stderr, "gradeq %s: cannot run %s: %s\n", argv[1], path, strerror(errno));
    return WK_EXIT_REDIS;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : wk_output_done("--help", WK_EXIT_OK);
    }
    if (strcmp(argv[1], "--version") == 0)
        return printf("gradeq %s\n", WK_VERSION), wk_output_done("--version", WK_EXIT_OK);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].fn ? wk_output_done(argv[1], commands[i].fn(argc - 1, argv + 1)) : queue_command(argv);
    fprintf(stderr, "gradeq: unknown command \"%s\"\nTry 'gradeq --help'.\n", argv[1]);
    return 2;
}
