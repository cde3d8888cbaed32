/* cmd_run.c -- `gradeq run`: one program in the sandbox, no Redis.
 *
 * In this process, or by the holder a `gradeq run` before it left (hold.h):
 * the holder runs the same steps (cmd_run.h) on the command's fds. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/cli/cli.h"
#include "worker/cli/cmd_run.h"
#include "worker/cli/commands.h"
#include "worker/cli/hold.h"
#include "worker/common/convert.h"
#include "worker/engine/interact.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq run [options] [--require-isolation] [--] PROGRAM ARGS...\n%s", wk_cli_run_help);
}

/* Without --stdin, gradeq's own stdin when it is not a terminal, as any
 * command in a pipe would read it (`echo 7 8 | gradeq run -- ./sum`). */
static int own_stdin(wk_cli_run *c, char *err, size_t errlen)
{
    size_t len;
    if (wk_read_stream(0, "stdin", WK_FILE_MAX, &c->stdin_buf, &len, err, errlen) < 0)
        return -1;
    c->spec.stdin_data = c->stdin_buf;
    c->spec.stdin_len = len;
    return 0;
}

/* Every time, not once: a run with less than full isolation must not pass
 * for a sandboxed one (the program can read what the caller can). */
static void warn_isolation(const sbx_host *host)
{
    if (!(SBX_ISO_ALL & ~sbx_host_isolation(host)))
        return;
    fprintf(stderr, "gradeq run: warning: not fully isolated (%s): the program can read and change what this "
                    "user can\ngradeq run: warning: run as root for full isolation (--require-isolation refuses "
                    "instead)\n",
            sbx_host_describe(host));
}

/* Without a memory cgroup the memory limit is an address-space rlimit: a
 * program over it sees an allocation fail and usually dies its own way
 * (Python's MemoryError, C++'s bad_alloc, an abort), and nothing the
 * sandbox measures tells that apart from any other failure. The status
 * stays what was measured; when stderr names a memory failure the result
 * says, as a guess and in so many words, that this may be the limit (any
 * program can print those words). */
static void memory_limit_guess(sbx_result *r)
{
    static const char *const marks[] = { "MemoryError", "std::bad_alloc", "Cannot allocate memory",
                                         "out of memory", "Out of memory" };
    if ((r->isolation & SBX_ISO_CG_MEMORY) || (r->status != SBX_RUNTIME_ERROR && r->status != SBX_SIGNALED) ||
        r->error[0])
        return;
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (r->stderr_buf && memmem(r->stderr_buf, r->stderr_len, marks[i], strlen(marks[i]))) {
            snprintf(r->error, sizeof r->error, "a guess: stderr says \"%s\"; perhaps an allocation refused at "
                                                "the memory limit (no memory cgroup here: not measured)", marks[i]);
            return;
        }
}

/* --interactor: the program against it, each in its own box. */
static int run_pair(sbx_host *host, sbx_box *box, wk_cli_run *c, q_result *w, const char **names)
{
    char err[SBX_ERR_LEN];
    sbx_box *ibox;
    if (sbx_box_open(host, &ibox, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq run: cannot start the interactor's sandbox: %s\n", err);
        return -1;
    }
    sbx_spec inter = { .argv = (const char *const *)c->inter_argv, .files = c->inter_files,
                       .nfiles = c->ninter_files };
    wk_cli_interactor_limits(c, &inter.limits);
    /* The test data is its file `input` (empty without --stdin), unless
     * --interactor-file gave one of that name: the user's file wins
     * (wk_cli_run_program refused both). */
    if (!c->inter_input)
        c->inter_files[inter.nfiles++] = (sbx_file){ "input", c->spec.stdin_data, c->spec.stdin_len, false };
    c->spec.stdin_data = NULL;
    c->spec.stdin_len = 0;
    wk_pair pair;
    int rc = wk_run_pair(box, &c->spec, ibox, &inter, &(wk_pair_opts){ .transcript_bytes = (size_t)c->transcript_bytes },
                         &pair);
    wk_pair_to_wire(&pair, NULL, NULL, 0, names, w);
    c->json ? wk_print_json(stdout, w) : wk_print_plain(w);
    wk_pair_free(&pair);
    sbx_box_close(ibox);
    return rc;
}

int wk_run_parse(wk_cli_run *c, int argc, char **argv, int *status)
{
    char err[SBX_HOST_ERR_LEN] = "";
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            wk_cli_run_free(c);
            *status = WK_EXIT_OK;
            return 0;
        }
        int rc = wk_cli_run_option(c, argc, argv, &i, err, sizeof err);
        if (rc < 0 || (rc == 0 && argv[i][0] == '-')) {
            wk_cli_run_free(c);
            *status = rc < 0 ? wk_usage_error("run", "%s", err) : wk_usage_error("run", "unknown option %s", argv[i]);
            return 0;
        }
        if (rc == 0)
            break; /* the program, without a "--" */
    }
    if (wk_cli_run_program(c, argc, argv, i, err, sizeof err) < 0) {
        wk_cli_run_free(c);
        *status = wk_usage_error("run", "%s", err);
        return 0;
    }
    return 1;
}

int wk_run_input(wk_cli_run *c, int *status)
{
    char err[SBX_ERR_LEN];
    if (!c->stdin_given && !c->inter_input && !isatty(0) && own_stdin(c, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq run: %s\n", err);
        wk_cli_run_free(c);
        *status = WK_EXIT_USAGE;
        return 0;
    }
    return 1;
}

void wk_run_notes(const sbx_host *host)
{
    warn_isolation(host);
}

int wk_run_single(wk_cli_run *c, sbx_box *box, sbx_result *r)
{
    int rc = sbx_run(box, &c->spec, r);
    memory_limit_guess(r);
    return rc;
}

int wk_run_report(wk_cli_run *c, sbx_result *r, int rc)
{
    const char *names[WK_ISO_MAX];
    q_result w;
    wk_result_to_wire(r, NULL, NULL, 0, names, &w);
    c->json ? wk_print_json(stdout, &w) : wk_print_plain(&w);
    sbx_result_free(r);
    wk_cli_run_free(c);
    return rc < 0 ? WK_EXIT_REDIS : WK_EXIT_OK;
}

int wk_cmd_run(int argc, char **argv)
{
    static wk_cli_run c;
    static wk_hold_self self;
    int status;
    bool leave;
    if (wk_hold_call(argc, argv, &self, &status, &leave))
        return status;
    if (!wk_run_parse(&c, argc, argv, &status) || !wk_run_input(&c, &status))
        return status;
    char err[SBX_HOST_ERR_LEN] = "";
    sbx_host_options ho = { .require_isolation = c.require_isolation };
    sbx_host *host = NULL;
    sbx_box *box = NULL;
    if (sbx_host_open(&host, &ho, err, sizeof err) < 0 || sbx_box_open(host, &box, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq run: cannot start the sandbox: %s\n", err);
        sbx_host_close(host);
        wk_cli_run_free(&c);
        return WK_EXIT_REDIS;
    }
    wk_run_notes(host);
    /* What opening the host did to others' processes, said by the command
     * that did it; its own transient scope is gradeq's business (the
     * holder's commands could not say it, having not done it). */
    if (sbx_host_cgroup_others(host)[0])
        fprintf(stderr, "gradeq run: cgroup v2: %s\n", sbx_host_cgroup_others(host));
    int rc;
    if (c.has_interactor) {
        const char *names[WK_ISO_MAX];
        q_result w;
        rc = run_pair(host, box, &c, &w, names);
        wk_cli_run_free(&c);
        status = rc < 0 ? WK_EXIT_REDIS : WK_EXIT_OK;
    } else {
        sbx_result r;
        rc = wk_run_single(&c, box, &r);
        status = wk_run_report(&c, &r, rc);
    }
    sbx_box_close(box);
    sbx_host_close(host);
    if (leave) {
        /* What the command printed goes out, its failure told, before
         * the holder's fork. */
        status = wk_output_done("run", status);
        wk_hold_leave(&self, c.require_isolation);
    }
    return status;
}
