/* cli.c -- run options shared by `gradeq run` and `gradeq submit`. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "queue/job.h"
#include "worker/common/words.h"
#include "worker/cli/cli.h"
#include "worker/common/convert.h"
#include "worker/engine/grade_files.h"
#include "worker/lang/languages.h"

const char wk_cli_run_help[] =
    "  --cpu-ms N          CPU time of all processes (default 1000)\n"
    "  --wall-ms N         wall time (default 3x cpu)\n"
    "  --memory SIZE       memory, swap included (default 256M)\n"
    "  --stdout-max SIZE   stdout cap; past it the run is killed (default 1M)\n"
    "  --stderr-max SIZE   stderr cap (default 64K)\n"
    "  --processes N       processes and threads (default 64)\n"
    "  --file-max SIZE     largest file it may write (default 64M)\n"
    "  --open-files N      open files (default 64)\n"
    "  --stdin FILE        stdin bytes: a file, a pipe, or - for gradeq's own stdin\n"
    "                      (run: default gradeq's own stdin unless it is a terminal;\n"
    "                      submit: default empty)\n"
    "  --file NAME=PATH    place PATH in /box as NAME (repeatable)\n"
    "  --interactor 'PROGRAM ARGS'  run against an interactor: its stdout is the\n"
    "                      program's stdin and the program's stdout its stdin;\n"
    "                      --stdin becomes its file `input`, and it is run as\n"
    "                      PROGRAM ARGS input tout (testlib's way); exit 0 OK,\n"
    "                      1, 2 or 8 WRONG_ANSWER, 7 PARTIAL (testlib's points),\n"
    "                      anything else INTERACTOR_ERROR; it gets the program's\n"
    "                      limits, but for these three:\n"
    "  --interactor-cpu-ms N, --interactor-wall-ms N, --interactor-memory SIZE\n"
    "                      The command is split on blanks and tabs; '...' and\n"
    "                      \"...\" group words (quotes removed, no escapes, no\n"
    "                      shell); a local PROGRAM travels into its /box\n"
    "  --interactor-file NAME=PATH  a file for the interactor's /box (repeatable)\n"
    "  --transcript SIZE   keep up to SIZE bytes of what the two said, each chunk\n"
    "                      as \"> N\" (program to interactor) or \"< N\", a newline,\n"
    "                      N bytes, a newline\n"
    "  --json              print the result as one JSON object\n"
    "SIZE is bytes or a number with K, M or G (binary units).\n";

/* --stdin FILE: "-" is gradeq's own stdin; a pipe, a FIFO or /dev/stdin is
 * read to its end like a file, within the same bound. */
static int read_stdin_option(wk_cli_run *c, const char *v, char *err, size_t errlen)
{
    size_t len;
    char *buf;
    struct stat st;
    int rc;
    if (strcmp(v, "-") == 0) {
        rc = wk_read_stream(0, "--stdin -", WK_FILE_MAX, &buf, &len, err, errlen);
    } else if (stat(v, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        int fd = open(v, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return snprintf(err, errlen, "%s: %s", v, strerror(errno)), -1;
        rc = wk_read_stream(fd, v, WK_FILE_MAX, &buf, &len, err, errlen);
        close(fd);
    } else {
        rc = wk_read_file(v, WK_FILE_MAX, &buf, &len, err, errlen);
    }
    if (rc < 0)
        return -1;
    free(c->stdin_buf);
    c->stdin_buf = buf;
    c->spec.stdin_data = buf;
    c->spec.stdin_len = len;
    c->stdin_given = true;
    return 0;
}

static const struct {
    const char *flag;
    int which;
    bool size, inter;
} limit_flags[] = {
    { "--interactor-cpu-ms", WK_LIM_CPU, false, true },
    { "--interactor-wall-ms", WK_LIM_WALL, false, true },
    { "--interactor-memory", WK_LIM_MEMORY, true, true },
    { "--cpu-ms", WK_LIM_CPU, false },       { "--wall-ms", WK_LIM_WALL, false },
    { "--memory", WK_LIM_MEMORY, true },     { "--stdout-max", WK_LIM_STDOUT, true },
    { "--stderr-max", WK_LIM_STDERR, true }, { "--processes", WK_LIM_PROCESSES, false },
    { "--file-max", WK_LIM_FILE, true },     { "--open-files", WK_LIM_OPEN_FILES, false },
};

static uint64_t *limit_slot(sbx_limits *l, int which)
{
    uint64_t *slots[WK_LIM_COUNT] = { &l->cpu_ms, &l->wall_ms, &l->memory_bytes, &l->stdout_bytes,
                                      &l->stderr_bytes, &l->processes, &l->file_bytes, &l->open_files };
    return slots[which];
}

/* Reads path into files[*n] as NAME. */
static int add_file_to(wk_cli_run *c, sbx_file *files, size_t *n, size_t max, const char *name, const char *path,
                       char *err, size_t errlen)
{
    if (*n >= max || c->nowned >= sizeof c->owned / sizeof c->owned[0])
        return snprintf(err, errlen, "more than %zu files", max), -1;
    char *buf;
    size_t len;
    if (wk_read_file(path, WK_FILE_MAX, &buf, &len, err, errlen) < 0)
        return -1;
    c->owned[c->nowned++] = buf;
    files[(*n)++] = (sbx_file){ name, buf, len, access(path, X_OK) == 0 };
    return 0;
}

static int add_file(wk_cli_run *c, const char *name, const char *path, char *err, size_t errlen)
{
    return add_file_to(c, c->files, &c->spec.nfiles, WK_MAX_FILES, name, path, err, errlen);
}

/* Splits an --interactor command on blanks; single and double quotes group. */
static int split_command(wk_cli_run *c, const char *cmd, char *err, size_t errlen)
{
    char why[96];
    if (wk_split_words(cmd, c->inter_cmd, sizeof c->inter_cmd, c->inter_argv,
                       sizeof c->inter_argv / sizeof c->inter_argv[0], why, sizeof why) < 0)
        return snprintf(err, errlen, "--interactor: %s", why), -1;
    c->has_interactor = true;
    return 0;
}

int wk_cli_run_option(wk_cli_run *c, int argc, char **argv, int *i, char *err, size_t errlen)
{
    const char *a = argv[*i];
    if (!c->spec.limits.cpu_ms && !c->limits_given)
        sbx_limits_default(&c->limits);
    if (strcmp(a, "--json") == 0)
        return c->json = true, 1;
    if (strcmp(a, "--require-isolation") == 0)
        return c->require_isolation = true, 1;
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    for (size_t k = 0; k < sizeof limit_flags / sizeof limit_flags[0]; k++) {
        if (strcmp(a, limit_flags[k].flag) != 0)
            continue;
        uint64_t x;
        int rc = limit_flags[k].size ? wk_parse_size(v, &x) : wk_parse_uint(v, &x);
        if (rc < 0)
            return snprintf(err, errlen, "%s needs %s, got \"%s\"", a,
                            limit_flags[k].size ? "a SIZE (bytes, or with K/M/G)" : "a non-negative integer",
                            v ? v : ""), -1;
        if (limit_flags[k].inter) {
            c->inter_limits[limit_flags[k].which] = x;
            c->inter_given |= 1u << limit_flags[k].which;
        } else {
            *limit_slot(&c->limits, limit_flags[k].which) = x;
            c->limits_given |= 1u << limit_flags[k].which;
        }
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--stdin") == 0) {
        if (!v)
            return snprintf(err, errlen, "--stdin needs a FILE (or - for this stdin)"), -1;
        (*i)++;
        return read_stdin_option(c, v, err, errlen) < 0 ? -1 : 1;
    }
    if (strcmp(a, "--transcript") == 0) {
        if (wk_parse_size(v, &c->transcript_bytes) < 0 || c->transcript_bytes > (1u << 30))
            return snprintf(err, errlen, "--transcript needs a SIZE up to 1G"), -1;
        (*i)++;
        return 1;
    }
    if (strcmp(a, "--interactor") == 0) {
        if (!v)
            return snprintf(err, errlen, "--interactor needs 'PROGRAM ARGS'"), -1;
        (*i)++;
        return split_command(c, v, err, errlen) < 0 ? -1 : 1;
    }
    if (strcmp(a, "--interactor-file") == 0) {
        char *eq = v ? strchr(v, '=') : NULL;
        if (!eq || eq == v || !eq[1])
            return snprintf(err, errlen, "--interactor-file needs NAME=PATH, got \"%s\""
                            , v ? v : ""), -1;
        *eq = 0;
        (*i)++;
        return add_file_to(c, c->inter_files, &c->ninter_files, 64, v, eq + 1, err, errlen) < 0 ? -1 : 1;
    }
    if (strcmp(a, "--file") == 0) {
        char *eq = v ? strchr(v, '=') : NULL;
        if (!eq || eq == v || !eq[1])
            return snprintf(err, errlen, "--file needs NAME=PATH, got \"%s\"", v ? v : ""), -1;
        *eq = 0;
        (*i)++;
        return add_file(c, v, eq + 1, err, errlen) < 0 ? -1 : 1;
    }
    return 0;
}

/* The i-th name of an array of sbx_file or q_file (each has it first). */
static const char *name_at(const void *files, size_t stride, size_t i)
{
    return *(const char *const *)(const void *)((const char *)files + i * stride);
}

int wk_cli_check_names(const char *flag, const void *files, size_t stride, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        const char *a = name_at(files, stride, i), *why = q_path_problem(a, strlen(a));
        if (why)
            return snprintf(err, errlen, "%s %s: %s", flag, a, why), -1;
        for (size_t k = 0; k < i; k++)
            if (wk_path_clash(name_at(files, stride, k), a))
                return snprintf(err, errlen, "%s: \"%s\" and \"%s\" cannot both be in /box (one name twice, or one the "
                                "other's directory; a local program goes in under its own name)", flag,
                                name_at(files, stride, k), a), -1;
    }
    return 0;
}

/* The interactor's `input` is what --stdin (or gradeq's own stdin) gives,
 * unless an --interactor-file is named input: then that file is the
 * input, and --stdin as well is a usage error. */
static int check_files(wk_cli_run *c, char *err, size_t errlen)
{
    if (wk_cli_check_names("--file", c->files, sizeof *c->files, c->spec.nfiles, err, errlen) < 0 ||
        wk_cli_check_names("--interactor-file", c->inter_files, sizeof *c->inter_files, c->ninter_files, err,
                           errlen) < 0)
        return -1;
    for (size_t i = 0; c->has_interactor && i < c->ninter_files; i++)
        c->inter_input |= wk_path_clash(c->inter_files[i].name, "input");
    if (c->inter_input && c->stdin_given)
        return snprintf(err, errlen, "--stdin and --interactor-file input=...: both would be the interactor's file "
                        "`input` (give one or the other)"), -1;
    return 0;
}

/* The limits a run gets, the interactor's too: a usage error naming the
 * flag, never a sandbox error after the run was set up. */
static int check_limits(const wk_cli_run *c, char *err, size_t errlen)
{
    static const char *const flags[WK_LIM_COUNT] = { "--cpu-ms", "--wall-ms", "--memory", "--stdout-max",
                                                     "--stderr-max", "--processes", "--file-max", "--open-files" };
    char why[96];
    sbx_limits il;
    wk_cli_interactor_limits(c, &il);
    int i = wk_limits_refused(&c->spec.limits, why, sizeof why);
    if (i >= 0)
        return snprintf(err, errlen, "%s: %s", flags[i], why), -1;
    if (c->has_interactor && (i = wk_limits_refused(&il, why, sizeof why)) >= 0)
        return snprintf(err, errlen, "--interactor-%s: %s", flags[i] + 2, why), -1;
    return 0;
}

/* System directories are visible in the box; anything else is copied in. */
static bool visible_in_box(const char *real)
{
    static const char *const dirs[] = { "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strncmp(real, dirs[i], strlen(dirs[i])) == 0)
            return true;
    return false;
}

/* A PROGRAM that is a local file outside the system dirs is copied into
 * the box and run as ./NAME. */
static int localize(wk_cli_run *c, char **prog, sbx_file *files, size_t *n, size_t max, char *err, size_t errlen)
{
    char real[PATH_MAX];
    struct stat st;
    if (!strchr(*prog, '/') || stat(*prog, &st) < 0 || !S_ISREG(st.st_mode) || !realpath(*prog, real) ||
        visible_in_box(real))
        return 0;
    const char *base = strrchr(*prog, '/') + 1;
    char *name = malloc(strlen(base) + 3);
    if (!name || c->nowned >= sizeof c->owned / sizeof c->owned[0]) {
        free(name);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    sprintf(name, "./%s", base);
    c->owned[c->nowned++] = name;
    if (add_file_to(c, files, n, max, name + 2, *prog, err, errlen) < 0)
        return -1;
    files[*n - 1].executable = true;
    *prog = name;
    return 0;
}

/* A local interactor travels into its /box, once. */
static int run_interactor(wk_cli_run *c, char *err, size_t errlen)
{
    if (!c->has_interactor || c->inter_localized)
        return 0;
    c->inter_localized = true;
    return localize(c, &c->inter_argv[0], c->inter_files, &c->ninter_files, 64, err, errlen);
}

int wk_cli_run_program(wk_cli_run *c, int argc, char **argv, int i, char *err, size_t errlen)
{
    if (!c->limits_given && !c->limits.cpu_ms)
        sbx_limits_default(&c->limits);
    if (i >= argc)
        return snprintf(err, errlen, "no PROGRAM given (use -- PROGRAM ARGS...)"), -1;
    if (argc - i >= (int)(sizeof c->argv / sizeof c->argv[0]))
        return snprintf(err, errlen, "too many arguments"), -1;
    for (int k = i; k < argc; k++)
        c->argv[k - i] = argv[k];
    c->argv[argc - i] = NULL;
    if (localize(c, &c->argv[0], c->files, &c->spec.nfiles, WK_MAX_FILES, err, errlen) < 0 ||
        run_interactor(c, err, errlen) < 0)
        return -1;
    c->spec.argv = (const char *const *)c->argv;
    c->spec.files = c->files;
    c->spec.limits = c->limits;
    /* What execve and the sandbox take, as a job's are checked. */
    for (int k = 0; c->argv[k]; k++)
        if (strlen(c->argv[k]) >= Q_EXEC_STRING_MAX)
            return snprintf(err, errlen, "argument %d: %zu bytes, more than execve takes (%u)", k,
                            strlen(c->argv[k]), Q_EXEC_STRING_MAX - 1), -1;
    size_t n = q_exec_bytes((const char *const *)c->argv, NULL, NULL);
    if (n > Q_EXEC_BYTES_MAX)
        return snprintf(err, errlen, "PROGRAM ARGS: %zu bytes with the environment, more than the sandbox takes (%u)",
                        n, Q_EXEC_BYTES_MAX), -1;
    return check_limits(c, err, errlen) < 0 ? -1 : check_files(c, err, errlen);
}

int wk_cli_run_preset(wk_cli_run *c, char *err, size_t errlen)
{
    if (!c->limits_given && !c->limits.cpu_ms)
        sbx_limits_default(&c->limits);
    if (run_interactor(c, err, errlen) < 0)
        return -1;
    c->spec.limits = c->limits;
    return check_limits(c, err, errlen) < 0 ? -1 : check_files(c, err, errlen);
}

void wk_cli_interactor_limits(const wk_cli_run *c, sbx_limits *out)
{
    *out = c->spec.limits;
    for (int i = 0; i < WK_LIM_COUNT; i++)
        if (c->inter_given & (1u << i))
            *limit_slot(out, i) = c->inter_limits[i];
}

void wk_cli_run_free(wk_cli_run *c)
{
    for (size_t i = 0; i < c->nowned; i++)
        free(c->owned[i]);
    free(c->stdin_buf);
    c->nowned = 0;
    c->stdin_buf = NULL;
}

int wk_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gradeq %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'gradeq %s --help'.\n", cmd);
    return WK_EXIT_USAGE;
}
