/* cmd_run.c -- `gradeq run`: one program in the sandbox, no Redis. */
#include <stdio.h>
#include <string.h>

#include "worker/cli.h"
#include "worker/commands.h"
#include "worker/convert.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq run [options] [--require-isolation] -- PROGRAM ARGS...\n%s", wk_cli_run_help);
}

int wk_cmd_run(int argc, char **argv)
{
    static wk_cli_run c;
    char err[512] = "";
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(stdout), 0;
        int rc = wk_cli_run_option(&c, argc, argv, &i, err, sizeof err);
        if (rc < 0 || (rc == 0 && argv[i][0] == '-')) {
            fprintf(stderr, "gradeq run: %s\n", rc < 0 ? err : "unknown option");
            if (rc == 0)
                fprintf(stderr, "gradeq run: unknown option %s\n", argv[i]);
            usage(stderr);
            wk_cli_run_free(&c);
            return 2;
        }
        if (rc == 0)
            break; /* the program, without a "--" */
    }
    if (wk_cli_run_program(&c, argc, argv, i, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq run: %s\n", err);
        wk_cli_run_free(&c);
        return 2;
    }
    sbx_host_options ho = { .require_isolation = c.require_isolation };
    sbx_host *host = NULL;
    sbx_box *box = NULL;
    if (sbx_host_open(&host, &ho, err, sizeof err) < 0 || sbx_box_open(host, &box, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq run: cannot start the sandbox: %s\n", err);
        sbx_host_close(host);
        wk_cli_run_free(&c);
        return 3;
    }
    sbx_result r;
    int rc = sbx_run(box, &c.spec, &r);
    const char *names[WK_ISO_MAX];
    q_result w;
    wk_result_to_wire(&r, NULL, NULL, 0, names, &w);
    if (c.json)
        wk_print_json(stdout, &w);
    else
        wk_print_plain(&w);
    sbx_result_free(&r);
    sbx_box_close(box);
    sbx_host_close(host);
    wk_cli_run_free(&c);
    return rc < 0 ? 3 : 0;
}
