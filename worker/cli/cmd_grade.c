/* cmd_grade.c -- `gradeq grade`: a submission against a folder of tests,
 * here, no Redis; `gradeq languages`: the presets. The CLI starts once per
 * submission: one host, one box, reused by every test. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/cli/commands.h"
#include "worker/common/convert.h"
#include "worker/engine/engine.h"
#include "worker/cli/grade_cli.h"
#include "worker/engine/grade_plan.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq grade [options] --tests DIR [--compile 'CMD ARGS'] [--checker RULE]\n"
               "                    [--json] -- PROGRAM ARGS...\n"
               "       gradeq grade [options] --tests DIR --language NAME --source FILE\n%s%s"
               "Exit 0 whenever the grading happened, whatever the verdict.\n",
            wk_cli_run_help, wk_cli_grade_help);
}

/* Per-test lines go to stdout, or to stderr with --json (stdout then holds
 * the one object); on a terminal a [done/total] counter follows them. */
typedef struct progress {
    FILE *f;
    size_t total;
    bool tty;
} progress;

static void on_test(void *ctx, size_t i, const q_graded *t)
{
    progress *p = ctx;
    if (p->tty)
        fputs("\r\033[K", p->f);
    wk_print_test_line(p->f, t);
    if (p->tty && i + 1 < p->total)
        fprintf(p->f, "[%zu/%zu]", i + 1, p->total);
    fflush(p->f);
}

static int grade(wk_cli_run *c, wk_cli_grade *g, const q_job *j, const wk_langs *langs)
{
    char err[SBX_HOST_ERR_LEN];
    sbx_limits max;
    memset(&max, 0xff, sizeof max); /* here the command line is the operator */
    wk_grade_plan plan;
    wk_plan_store st;
    if (wk_grade_plan_from_job(j, langs, &max, (size_t)g->test_output_max, &plan, &st, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq grade: %s\n", err);
        wk_plan_store_free(&st);
        return 2;
    }
    FILE *f = c->json ? stderr : stdout;
    progress pr = { f, j->grade->ntests, isatty(fileno(f)) == 1 };
    plan.on_test = on_test;
    plan.ctx = &pr;
    sbx_host_options ho = { .require_isolation = c->require_isolation };
    sbx_host *host = NULL;
    sbx_box *box = NULL, *cbox = NULL;
    if (sbx_host_open(&host, &ho, err, sizeof err) < 0 || sbx_box_open(host, &box, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq grade: cannot start the sandbox: %s\n", err);
        sbx_host_close(host);
        wk_plan_store_free(&st);
        return 3;
    }
    wk_graded out;
    int rc = 0;
    if (wk_grade(host, box, &cbox, &plan, &out) != WK_GRADED) {
        fprintf(stderr, "gradeq grade: the sandbox failed: %s\n", out.error);
        rc = 3;
    } else {
        const char *names[WK_ISO_MAX];
        q_result r;
        wk_graded_to_wire(&out, NULL, NULL, 0, sbx_host_isolation(host), names, &r);
        if (c->json)
            wk_print_json(stdout, &r);
        else
            wk_print_grade_plain(stdout, &r, false);
    }
    wk_graded_free(&out);
    if (cbox)
        sbx_box_close(cbox);
    sbx_box_close(box);
    sbx_host_close(host);
    wk_plan_store_free(&st);
    return rc;
}

int wk_cmd_grade(int argc, char **argv)
{
    static wk_cli_run c;
    static wk_cli_grade g;
    char err[512] = "";
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(stdout), 0;
        int rc = wk_cli_grade_option(&g, argc, argv, &i, err, sizeof err);
        if (rc == 0)
            rc = wk_cli_run_option(&c, argc, argv, &i, err, sizeof err);
        if (rc < 0 || (rc == 0 && argv[i][0] == '-')) {
            fprintf(stderr, "gradeq grade: %s%s\n", rc < 0 ? err : "unknown option ", rc < 0 ? "" : argv[i]);
            usage(stderr);
            goto bad;
        }
        if (rc == 0)
            break;
    }
    if (i < argc || !g.language) {
        if (wk_cli_run_program(&c, argc, argv, i, err, sizeof err) < 0) {
            fprintf(stderr, "gradeq grade: %s\n", err);
            goto bad;
        }
    }
    q_job j;
    wk_langs langs = { 0 };
    if (wk_cli_grade_job(&g, &c, &j, err, sizeof err) < 0 ||
        (g.language && wk_langs_load(g.languages, &langs, err, sizeof err) < 0)) {
        fprintf(stderr, "gradeq grade: %s\n", err);
        wk_langs_free(&langs);
        goto bad;
    }
    int rc = grade(&c, &g, &j, &langs);
    wk_langs_free(&langs);
    wk_cli_grade_free(&g);
    wk_cli_run_free(&c);
    return rc;
bad:
    wk_cli_grade_free(&g);
    wk_cli_run_free(&c);
    return 2;
}

int wk_cmd_languages(int argc, char **argv)
{
    const char *path = NULL;
    char err[512];
    if (argc == 3 && strcmp(argv[1], "--languages") == 0)
        path = argv[2];
    else if (argc != 1) {
        fprintf(stderr, "usage: gradeq languages [--languages FILE]\n");
        return 2;
    }
    wk_langs l;
    if (wk_langs_load(path, &l, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq languages: %s\n", err);
        return 2;
    }
    wk_langs_print(&l, stdout);
    wk_langs_free(&l);
    return 0;
}
