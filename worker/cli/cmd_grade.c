/* cmd_grade.c -- `gradeq grade`: a submission against a folder of tests,
 * here, no Redis. The CLI starts once per submission: one host, one box,
 * reused by every test. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "worker/cli/commands.h"
#include "worker/common/convert.h"
#include "worker/engine/engine.h"
#include "worker/cli/grade_cli.h"
#include "worker/engine/grade_plan.h"
#include "worker/problem/prepare.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq grade [options] --tests DIR [--compile 'CMD ARGS'] [--checker RULE]\n"
               "                    [--json] -- PROGRAM ARGS...\n"
               "       gradeq grade [options] --tests DIR --language NAME --source FILE\n"
               "       gradeq grade [options] --problem PATH (--language NAME --source FILE | -- PROGRAM)\n%s%s"
               "Exit 0 whenever the grading happened, whatever the verdict.\n",
            wk_cli_run_help, wk_cli_grade_help);
}

/* Per-test lines go to stdout, or to stderr with --json (stdout then holds
 * the one object); on a terminal a [done/total] counter follows them. */
typedef struct progress {
    FILE *f;
    size_t total, done;
    bool tty;
} progress;

/* Lines come in the order tests run (a group is brought in whole). */
static void on_test(void *ctx, size_t i, const q_graded *t)
{
    progress *p = ctx;
    (void)i;
    p->done++;
    if (p->tty)
        fputs("\r\033[K", p->f);
    wk_print_test_line(p->f, t);
    if (p->tty && p->done < p->total)
        fprintf(p->f, "[%zu/%zu]", p->done, p->total);
    /* A failure on stdout is told at the end (wk_output_done); stderr's
     * (with --json) has no one to be told to. */
    if (p->f == stdout)
        wk_output_flush();
    else
        fflush(p->f);
}

/* A problem's own code (judges, generators, the main solution) built and
 * run in box, and the job given its part: 0, 2 (the problem is at fault),
 * 3 (the sandbox failed). */
static int prepare(wk_cli_grade *g, q_job *j, const wk_langs *langs, sbx_box *box, wk_prepared *w)
{
    char err[512];
    wk_prepare_env env = { .box = box, .langs = langs };
    wk_limits_most(&env.max); /* here the command line is the operator */
    int rc = wk_problem_prepare(g->problem, &env, w, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "gradeq grade: %s\n", err);
        return rc > 0 ? 2 : 3;
    }
    wk_problem_job(g->problem, w, j->grade, j);
    return 0;
}

static int grade(wk_cli_run *c, wk_cli_grade *g, q_job *j, const wk_langs *langs)
{
    char err[SBX_HOST_ERR_LEN];
    sbx_limits max;
    wk_limits_most(&max); /* here the command line is the operator */
    wk_grade_plan plan;
    wk_plan_store st = { 0 };
    wk_prepared w = { 0 };
    sbx_host_options ho = { .require_isolation = c->require_isolation };
    sbx_host *host = NULL;
    sbx_box *box = NULL, *cbox = NULL;
    if (wk_langs_host_open(langs, &ho, &host, err, sizeof err) < 0 || sbx_box_open(host, &box, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq grade: cannot start the sandbox: %s\n", err);
        sbx_host_close(host);
        return 3;
    }
    int prc = g->problem ? prepare(g, j, langs, box, &w) : 0;
    /* The worker's default budget: what it publishes, this prints. */
    if (prc || wk_grade_plan_from_job(j, langs, &max, (size_t)g->test_output_max,
                                      wk_output_budget(Q_RESULT_BYTES_MAX, true), &plan, &st, err, sizeof err) < 0) {
        if (!prc)
            fprintf(stderr, "gradeq grade: %s\n", err);
        wk_plan_store_free(&st);
        wk_prepared_free(&w);
        sbx_box_close(box);
        sbx_host_close(host);
        return prc ? prc : 2;
    }
    FILE *f = c->json ? stderr : stdout;
    progress pr = { f, j->grade->ntests, 0, isatty(fileno(f)) == 1 };
    plan.on_test = on_test;
    plan.ctx = &pr;
    wk_graded out;
    int rc = 0;
    if (wk_grade(host, box, &cbox, &plan, &out) != WK_GRADED) {
        char why[4 * SBX_ERR_LEN];
        wk_text_escape(why, sizeof why, out.error);
        fprintf(stderr, "gradeq grade: the sandbox failed: %s\n", why);
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
    wk_prepared_free(&w);
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
    /* A language preset gives the program; a local interactor travels all
     * the same. */
    if ((i < argc || !g.language ? wk_cli_run_program(&c, argc, argv, i, err, sizeof err)
                                 : wk_cli_run_preset(&c, err, sizeof err)) < 0) {
        fprintf(stderr, "gradeq grade: %s\n", err);
        goto bad;
    }
    q_job j;
    wk_langs langs = { 0 };
    if (wk_cli_grade_job(&g, &c, &j, err, sizeof err) < 0 ||
        ((g.language || g.problem) && wk_langs_load(g.languages, &langs, err, sizeof err) < 0)) {
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
