/* cmd_run.c -- `gradeq run`: one program in the sandbox, no Redis. */
#include <stdio.h>
#include <string.h>

#include "worker/cli.h"
#include "worker/commands.h"
#include "worker/convert.h"
#include "worker/interact.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq run [options] [--require-isolation] -- PROGRAM ARGS...\n%s", wk_cli_run_help);
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
                       .nfiles = c->ninter_files, .limits = c->spec.limits };
    sbx_file input = { "input", c->spec.stdin_data, c->spec.stdin_len, false };
    if (c->spec.stdin_data && c->ninter_files < 64) {
        c->inter_files[c->ninter_files] = input;
        inter.nfiles++;
    }
    c->spec.stdin_data = NULL;
    c->spec.stdin_len = 0;
    wk_pair pair;
    int rc = wk_run_pair(box, &c->spec, ibox, &inter, (size_t)c->transcript_bytes, &pair);
    wk_pair_to_wire(&pair, NULL, NULL, 0, names, w);
    c->json ? wk_print_json(stdout, w) : wk_print_plain(w);
    wk_pair_free(&pair);
    sbx_box_close(ibox);
    return rc;
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
    if (sbx_host_cgroup_note(host)[0])
        fprintf(stderr, "gradeq run: cgroup v2: %s\n", sbx_host_cgroup_note(host));
    sbx_result r;
    const char *names[WK_ISO_MAX];
    q_result w;
    int rc;
    if (c.has_interactor) {
        rc = run_pair(host, box, &c, &w, names);
    } else {
        rc = sbx_run(box, &c.spec, &r);
        wk_result_to_wire(&r, NULL, NULL, 0, names, &w);
        c.json ? wk_print_json(stdout, &w) : wk_print_plain(&w);
        sbx_result_free(&r);
    }
    sbx_box_close(box);
    sbx_host_close(host);
    wk_cli_run_free(&c);
    return rc < 0 ? 3 : 0;
}
