/* cli.h -- what the gradeq commands share: run options, files, output.
 *
 * `gradeq run` and `gradeq submit` take the same run options; both turn
 * them into a wk_job_spec (argv, files read from disk, stdin, limits), one
 * runs it here and the other sends it to Redis. Every file read is capped
 * before it is allocated.
 */
#ifndef GRADEQ_CLI_H
#define GRADEQ_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "queue/result.h"
#include "sandbox/sandbox.h"
#include "worker/common/readfile.h"
#include "worker/common/sizes.h"
#include "worker/common/text.h"

#define WK_MAX_FILES 1024
#define WK_FILE_MAX (1ull << 30) /* one file given on the command line */

/* Order of the limits in limits_given (the same as the job's limit keys). */
enum { WK_LIM_CPU, WK_LIM_WALL, WK_LIM_MEMORY, WK_LIM_STDOUT, WK_LIM_STDERR,
       WK_LIM_PROCESSES, WK_LIM_FILE, WK_LIM_OPEN_FILES, WK_LIM_COUNT };

typedef struct wk_cli_run {
    sbx_spec spec;
    sbx_limits limits;
    unsigned limits_given;     /* bit i: limit i was on the command line */
    sbx_file files[WK_MAX_FILES];
    char *argv[4096];
    char *owned[WK_MAX_FILES + 70]; /* buffers to free */
    size_t nowned;
    char *stdin_buf;
    bool stdin_given;          /* --stdin was on the command line */
    /* --interactor 'PROGRAM ARGS' and its --interactor-file NAME=PATH */
    bool has_interactor;
    char inter_cmd[4096];
    char *inter_argv[64];
    sbx_file inter_files[64 + 1];  /* and one more: `input` (the stdin) */
    size_t ninter_files;
    bool inter_input;          /* an --interactor-file is `input`: it is the input */
    uint64_t inter_limits[WK_LIM_COUNT]; /* --interactor-cpu-ms, -wall-ms, -memory: */
    unsigned inter_given;      /* in WK_LIM_ order, bit i when given */
    bool inter_localized;      /* a local interactor file is among inter_files */
    uint64_t transcript_bytes; /* --transcript SIZE */
    bool json;
    bool require_isolation;
} wk_cli_run;

/* Tries argv[*i] as a run option (consuming its value). Returns 1 when it
 * was one, 0 when it is not a run option, -1 on a bad value (err filled). */
int wk_cli_run_option(wk_cli_run *c, int argc, char **argv, int *i, char *err, size_t errlen);
/* After the options: the program and its arguments (argv[i..]). A PROGRAM
 * that is a local file outside the system dirs travels into /box. */
int wk_cli_run_program(wk_cli_run *c, int argc, char **argv, int i, char *err, size_t errlen);
/* The same when a language preset gives the program: the limits settled,
 * and a local interactor made to travel. */
int wk_cli_run_preset(wk_cli_run *c, char *err, size_t errlen);
void wk_cli_run_free(wk_cli_run *c);
/* The names of n files for one /box (an array of sbx_file or q_file,
 * elements stride bytes apart): each a path a job could give, none in
 * another's way (the same name twice, "a" and "a/b"), so placing them
 * cannot fail. -1 with err naming flag and the names. */
int wk_cli_check_names(const char *flag, const void *files, size_t stride, size_t n, char *err, size_t errlen);
/* The interactor's limits: the program's, with those given for it. */
void wk_cli_interactor_limits(const wk_cli_run *c, sbx_limits *out);
/* The run options' help text. */
extern const char wk_cli_run_help[];

/* The Redis URL and key prefix of the client commands: GRADEQ_REDIS and
 * GRADEQ_PREFIX, or the worker's defaults. */
const char *wk_default_redis(void);
const char *wk_default_prefix(void);
/* Exit statuses of every gradeq command: one table, in gradeq(1), kept by
 * tests/integration/exit_codes.sh. */
enum {
    WK_EXIT_OK = 0,
    WK_EXIT_NOT_FOUND = 1, /* dead show/requeue: no such letter; result: none yet */
    WK_EXIT_USAGE = 2,     /* bad option or value (a malformed URL too), or a job that cannot be encoded */
    WK_EXIT_REDIS = 3,     /* Redis unreachable or failing, the queue full; run: the sandbox could not start
                            * (or the holder serving it was killed) */
    WK_EXIT_TIMEOUT = 4,   /* --wait ran out before the result came */
    WK_EXIT_OUTPUT = 5,    /* stdout or stderr did not take all the output */
};

/* Parses url and connects (the client commands' one connection). On
 * failure *exit_code is WK_EXIT_USAGE (the URL) or WK_EXIT_REDIS. */
struct q_conn *wk_cli_connect(const char *url, int *exit_code, char *err, size_t errlen);
/* The options every client command takes, wherever they stand: --redis
 * URL, --prefix P, --json (when json is not NULL), -h/--help. Returns 1
 * when argv[*i] was one (its value consumed), 2 for help, 0 when it is
 * not one, -1 when its value is missing. */
int wk_cli_common_option(int argc, char **argv, int *i, const char **redis, const char **prefix, bool *json);
/* "gradeq CMD: <message>" and a hint to --help, on stderr; returns
 * WK_EXIT_USAGE. */
int wk_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the result of job `id` (see q_wait_result for timeout_ms) as
 * `gradeq run` would; returns the exit status (WK_EXIT_*), messages on
 * stderr prefixed "gradeq CMD:". (cmd_result.c) */
int wk_print_result_of(struct q_conn *conn, const char *cmd, const char *prefix, const char *id, long timeout_ms,
                       bool json);
/* --wait SECONDS as q_wait_result's timeout: 0 (or beyond a long) is no limit. */
long wk_wait_ms(uint64_t s);

/* Output of a result (local or from the queue): JSON, one object with the
 * result's field names and base64 bytes (id, worker and attempt only when
 * set), or the program's output passed through plus a time(1)-like
 * summary on stderr. */
void wk_print_json(FILE *f, const q_result *r);
void wk_print_plain(const q_result *r);
/* The exit status once command cmd's output is out: status, or
 * WK_EXIT_OUTPUT in place of WK_EXIT_OK when stdout or stderr did not take
 * all of it (a full disk, a closed pipe with SIGPIPE ignored), said on
 * stderr when stderr still can. Told once: the streams' error flags are
 * cleared. */
int wk_output_done(const char *cmd, int status);
/* Flushes stdout before the end of a command (its output before a summary
 * on stderr, a watch's refresh), keeping why it failed for wk_output_done;
 * false when stdout has failed. */
bool wk_output_flush(void);

#endif
