/* grade_cli.c -- the grading options of `gradeq grade` and `gradeq submit`
 * and the grading job they build; every file read is capped before it is
 * allocated, every command split within fixed arrays. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/common/words.h"
#include "worker/engine/engine.h"
#include "worker/cli/grade_cli.h"
#include "worker/lang/languages.h"
#include "worker/problem/problem.h"
#include "worker/problem/testdir.h"

const char wk_cli_grade_help[] =
    "grading (a submission against a folder of tests):\n"
    "  --tests DIR         NAME.in with NAME.out or NAME.ans, or Polygon's NN with NN.a\n"
    "                      (read without following links: a link is refused)\n"
    "  --problem PATH      a problem whole instead of --tests: a Polygon package\n"
    "                      (problem.xml), a Kattis package (problem.yaml), a DMOJ\n"
    "                      problem (init.yml), a folder of tests, or a zip of one;\n"
    "                      it gives the tests, points, groups, checker, interactor\n"
    "                      and limits, and its own code runs only in the sandbox\n"
    "  --allow-hardlinks   read material files that have other hard links (refused\n"
    "                      by default: a hard link can reach a file outside it)\n"
    "  --compile 'CMD ARGS'  run once in /box first (cpu 10 s, wall 30 s, memory 512M);\n"
    "                      what it leaves there is what every test starts from\n"
    "  --language NAME --source FILE  a preset of the languages file instead of\n"
    "                      --compile and PROGRAM (`gradeq languages` lists them)\n"
    "  --languages FILE    the presets (default: deploy/languages beside gradeq)\n"
    "  --checker RULE      exact, lines (default: trailing blanks and empty lines\n"
    "                      ignored), tokens, float:EPS, or 'PROG ARGS': testlib's\n"
    "                      way, run with input output answer; exit 0 OK, 1, 2 or 8\n"
    "                      WRONG_ANSWER, 7 points (`points X` on stderr); with\n"
    "                      --interactor it judges what the interactor wrote (tout)\n"
    "  --checker testlib:NAME  one of testlib's standard checkers (acmp dcmp fcmp\n"
    "                      hcmp icmp lcmp ncmp nyesno rcmp rcmp4 rcmp6 rcmp9 rncmp\n"
    "                      uncmp wcmp yesno), answered by gradeq's own\n"
    "  --checker-convention testlib|cms|kattis  cms: run with input answer output,\n"
    "                      a fraction 0..1 on stdout; kattis: input answer\n"
    "                      feedback_dir, the output on stdin, exit 42 OK, 43 wrong\n"
    "  --checker-file NAME=PATH  a file for the checker's /box (repeatable)\n"
    "  --checker-cpu-ms N, --checker-wall-ms N, --checker-memory SIZE\n"
    "                      the checker's limits (default the sandbox's: 1 s, 256M)\n"
    "  --points NAME=X     test NAME is worth X points (default 1; repeatable)\n"
    "  --group 'name=N points=X scoring=all|min|sum|product tests=A,B,C..D\n"
    "          depends_on=G,H stop_on_failure'  a subtask (repeatable, in order)\n"
    "  --stop-on-failure   the first failed test ends the grading (the rest SKIPPED)\n"
    "  --test-output-max SIZE  each test's stdout and stderr kept (default 4K)\n"
    "With --interactor a test needs no answer file (NAME.in alone).\n";

static int fail(char *err, size_t errlen, const char *what, const char *why)
{
    snprintf(err, errlen, "%s: %s", what, why);
    return -1;
}

static int split(const char *flag, const char *v, char *buf, size_t size, char **argv, size_t max, char *err,
                 size_t errlen)
{
    char why[96];
    if (!v)
        return fail(err, errlen, flag, "needs 'PROGRAM ARGS'");
    if (wk_split_words(v, buf, size, argv, max, why, sizeof why) < 0)
        return fail(err, errlen, flag, why);
    return 1;
}

static int add_checker_file(wk_cli_grade *g, char *name, const char *path, char *err, size_t errlen)
{
    if (g->nchecker_files == WK_CHECKER_FILES)
        return fail(err, errlen, "--checker-file", "too many files");
    size_t k = g->nchecker_files, len;
    if (wk_read_file(path, WK_FILE_MAX, &g->checker_bufs[k], &len, err, errlen) < 0)
        return -1;
    g->checker_files[k] = (q_file){ name, g->checker_bufs[k], len };
    g->nchecker_files++;
    return 1;
}

/* A checker that is a file here (a path with a '/') travels into its box
 * and runs as ./NAME there. */
static int local_checker(wk_cli_grade *g, char *err, size_t errlen)
{
    char *prog = g->checker_argv[0], *base = strrchr(prog, '/');
    if (!base || access(prog, X_OK) != 0 || strncmp(prog, "/usr/", 5) == 0 || strncmp(prog, "/bin/", 5) == 0)
        return 1;
    base++;
    if (!*base || strlen(base) + 3 > sizeof g->checker_local)
        return fail(err, errlen, "--checker", "bad program name");
    snprintf(g->checker_local, sizeof g->checker_local, "./%s", base);
    if (add_checker_file(g, g->checker_local + 2, prog, err, errlen) < 0)
        return -1;
    g->checker_argv[0] = g->checker_local;
    return 1;
}

static int checker_option(wk_cli_grade *g, const char *v, char *err, size_t errlen)
{
    static const struct { const char *name; q_check_kind k; } names[] = {
        { "exact", Q_CHECK_EXACT }, { "lines", Q_CHECK_LINES }, { "tokens", Q_CHECK_TOKENS },
    };
    if (!v)
        return fail(err, errlen, "--checker", "needs exact, lines, tokens, float:EPS or 'PROG ARGS'");
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(v, names[k].name) == 0)
            return g->checker = names[k].k, 1;
    if (strncmp(v, "float:", 6) == 0) {
        char *end;
        errno = 0;
        g->eps = strtod(v + 6, &end);
        if (errno || end == v + 6 || *end || !(g->eps >= 0) || isinf(g->eps))
            return fail(err, errlen, "--checker", "float:EPS needs a number EPS >= 0");
        return g->checker = Q_CHECK_FLOAT, 1;
    }
    if (strncmp(v, "testlib:", 8) == 0) {
        int k = q_std_checker_find(v + 8, strlen(v + 8));
        if (k < 0)
            return fail(err, errlen, "--checker", "testlib:NAME needs one of testlib's standard checkers "
                                                  "(wcmp, ncmp, rcmp6, yesno, ...)");
        g->std = (q_std_checker)k;
        return g->checker = Q_CHECK_TESTLIB, 1;
    }
    g->checker = Q_CHECK_PROGRAM;
    if (split("--checker", v, g->checker_cmd, sizeof g->checker_cmd, g->checker_argv,
              sizeof g->checker_argv / sizeof g->checker_argv[0], err, errlen) < 0)
        return -1;
    return local_checker(g, err, errlen);
}

static int checker_file(wk_cli_grade *g, char *v, char *err, size_t errlen)
{
    char *eq = v ? strchr(v, '=') : NULL;
    if (!eq || eq == v || !eq[1])
        return fail(err, errlen, "--checker-file", "needs NAME=PATH");
    *eq = 0;
    return add_checker_file(g, v, eq + 1, err, errlen);
}

int wk_cli_grade_option(wk_cli_grade *g, int argc, char **argv, int *i, char *err, size_t errlen)
{
    const char *a = argv[*i];
    char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    int rc;
    if (!g->test_output_max)
        g->test_output_max = WK_TEST_OUTPUT_MAX_DEFAULT;
    if (strcmp(a, "--stop-on-failure") == 0)
        return g->any = g->stop_on_failure = true, 1;
    if (strcmp(a, "--allow-hardlinks") == 0)
        return g->allow_hardlinks = true, 1;
    if (strcmp(a, "--tests") == 0 || strcmp(a, "--languages") == 0 || strcmp(a, "--language") == 0 ||
        strcmp(a, "--problem") == 0) {
        if (!v)
            return fail(err, errlen, a, "needs a value");
        *(a[2] == 't' ? &g->tests_dir : a[2] == 'p' ? &g->problem_path : a[10] ? &g->languages : &g->language) = v;
        rc = 1;
    } else if (strcmp(a, "--source") == 0) {
        free(g->source);
        g->source = NULL;
        if (!v)
            return fail(err, errlen, a, "needs a FILE");
        rc = wk_read_file(v, WK_FILE_MAX, &g->source, &g->source_len, err, errlen) < 0 ? -1 : 1;
    } else if (strcmp(a, "--compile") == 0) {
        rc = split(a, v, g->compile_cmd, sizeof g->compile_cmd, g->compile_argv,
                   sizeof g->compile_argv / sizeof g->compile_argv[0], err, errlen);
    } else if (strcmp(a, "--checker") == 0) {
        rc = checker_option(g, v, err, errlen);
    } else if (strcmp(a, "--checker-file") == 0) {
        rc = checker_file(g, v, err, errlen);
    } else if (strcmp(a, "--checker-convention") == 0) {
        int k = Q_CONV_KATTIS;
        while (v && k >= 0 && strcmp(q_convention_name((q_check_convention)k), v) != 0)
            k--;
        if (!v || k < 0)
            return fail(err, errlen, a, "needs testlib, cms or kattis");
        g->convention = (q_check_convention)k;
        rc = 1;
    } else if (strcmp(a, "--checker-cpu-ms") == 0 || strcmp(a, "--checker-wall-ms") == 0 ||
               strcmp(a, "--checker-memory") == 0) {
        int k = a[10] == 'c' ? Q_LIM_CPU_MS : a[10] == 'w' ? Q_LIM_WALL_MS : Q_LIM_MEMORY_BYTES;
        if ((k == Q_LIM_MEMORY_BYTES ? wk_parse_size(v, &g->checker_limits[k]) : wk_parse_uint(v, &g->checker_limits[k])) <
            0)
            return fail(err, errlen, a, k == Q_LIM_MEMORY_BYTES ? "needs a SIZE" : "needs a non-negative integer");
        g->checker_given |= 1u << k;
        rc = 1;
    } else if (strcmp(a, "--points") == 0 || strcmp(a, "--group") == 0) {
        bool pts = a[2] == 'p';
        if (!v)
            return fail(err, errlen, a, pts ? "needs NAME=POINTS" : "needs 'name=N tests=A,B ...'");
        if ((pts ? g->npoints : g->ngroup_args) == Q_TESTS_MAX)
            return fail(err, errlen, a, "given too many times");
        if (pts)
            g->points_args[g->npoints++] = v;
        else
            g->group_args[g->ngroup_args++] = v;
        rc = 1;
    } else if (strcmp(a, "--test-output-max") == 0) {
        if (wk_parse_size(v, &g->test_output_max) < 0 || g->test_output_max > (64u << 20))
            return fail(err, errlen, a, "needs a SIZE up to 64M");
        rc = 1;
    } else {
        return 0;
    }
    if (rc > 0) {
        g->any = true;
        (*i)++;
    }
    return rc;
}

static size_t count(char *const *argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    return n;
}

int wk_cli_grade_job(wk_cli_grade *g, const wk_cli_run *c, q_job *j, char *err, size_t errlen)
{
    if (!g->tests_dir && !g->problem_path)
        return fail(err, errlen, "--tests", "missing (the folder of tests, or --problem)");
    if (g->tests_dir && g->problem_path)
        return fail(err, errlen, "--problem", "not with --tests (the problem gives the tests)");
    if (g->problem_path && (g->checker != Q_CHECK_LINES || c->has_interactor))
        return fail(err, errlen, g->checker != Q_CHECK_LINES ? "--checker" : "--interactor",
                    "not with --problem (the problem gives it)");
    if (g->language && (!g->source || g->compile_argv[0] || c->argv[0]))
        return fail(err, errlen, "--language", g->source ? "replaces --compile and PROGRAM" : "needs --source FILE");
    if (!g->language && g->source)
        return fail(err, errlen, "--source", "needs --language");
    if (!g->language && !c->argv[0])
        return fail(err, errlen, "PROGRAM", "missing (use -- PROGRAM ARGS, or --language)");
    if (c->spec.stdin_data)
        return fail(err, errlen, "--stdin", "not with --tests (each test gives its stdin)");
    if (c->transcript_bytes)
        return fail(err, errlen, "--transcript", "not kept when grading");
    if (wk_cli_check_names("--checker-file", g->checker_files, sizeof *g->checker_files, g->nchecker_files, err,
                           errlen) < 0)
        return -1;
    if (g->problem_path) {
        if (g->npoints || g->ngroup_args)
            return fail(err, errlen, g->npoints ? "--points" : "--group", "not with --problem (the problem gives them)");
        wk_problem_opts po = { .allow_hardlinks = g->allow_hardlinks };
        if (!(g->problem = calloc(1, sizeof *g->problem)))
            return fail(err, errlen, "--problem", "out of memory");
        if (wk_problem_open(g->problem_path, &po, g->problem, err, errlen) < 0) {
            free(g->problem);
            g->problem = NULL;
            return -1;
        }
    } else {
        wk_mat_opts mo = { .allow_hardlinks = g->allow_hardlinks };
        if (wk_mat_open_dir(g->tests_dir, &mo, &g->mat, err, errlen) < 0 ||
            wk_testdir_read(g->mat, "", !c->has_interactor, &g->tests, &g->ntests, err, errlen) < 0 ||
            wk_cli_points(g, err, errlen) < 0 || wk_cli_groups(g, err, errlen) < 0)
            return -1;
    }
    if (g->checker != Q_CHECK_PROGRAM && (g->checker_given || g->convention != Q_CONV_TESTLIB))
        return fail(err, errlen, g->checker_given ? "--checker-cpu-ms, -wall-ms, -memory" : "--checker-convention",
                    "need --checker 'PROG ARGS'");
    memset(j, 0, sizeof *j);
    g->files = calloc(c->spec.nfiles + 1, sizeof *g->files);
    if (!g->files)
        return fail(err, errlen, "files", "out of memory");
    for (size_t i = 0; i < c->spec.nfiles; i++)
        g->files[i] = (q_file){ (char *)c->files[i].name, c->files[i].data, c->files[i].len };
    j->prog = (q_prog){ .argv = c->argv[0] ? (char **)c->argv : NULL, .argc = c->argv[0] ? count(c->argv) : 0,
                        .files = c->spec.nfiles ? g->files : NULL, .nfiles = c->spec.nfiles,
                        .limits_present = c->limits_given };
    memcpy(j->prog.limits, &c->limits, sizeof j->prog.limits);
    q_grade *gr = &g->grade;
    *gr = (q_grade){ .std = g->std, .tests = g->tests, .ntests = g->ntests, .groups = g->groups, .ngroups = g->ngroups,
                     .checker = g->checker, .eps = g->eps, .convention = g->convention,
                     .stop_on_failure = g->stop_on_failure, .language = (char *)g->language,
                     .source = g->source, .source_len = g->source_len };
    if (g->compile_argv[0]) {
        gr->has_compile = true;
        gr->compile = (q_prog){ .argv = g->compile_argv, .argc = count(g->compile_argv) };
    }
    if (g->checker == Q_CHECK_PROGRAM) {
        gr->checker_prog = (q_prog){ .argv = g->checker_argv, .argc = count(g->checker_argv),
                                     .files = g->nchecker_files ? g->checker_files : NULL,
                                     .nfiles = g->nchecker_files, .limits_present = g->checker_given };
        memcpy(gr->checker_prog.limits, g->checker_limits, sizeof gr->checker_prog.limits);
    }
    if (c->has_interactor) {
        g->inter_files = calloc(c->ninter_files + 1, sizeof *g->inter_files);
        if (!g->inter_files)
            return fail(err, errlen, "files", "out of memory");
        for (size_t i = 0; i < c->ninter_files; i++)
            g->inter_files[i] = (q_file){ (char *)c->inter_files[i].name, c->inter_files[i].data,
                                          c->inter_files[i].len };
        /* The program's limits, with those given for the interactor. */
        j->has_interactor = true;
        j->interactor = (q_prog){ .argv = (char **)c->inter_argv, .argc = count(c->inter_argv),
                                  .files = c->ninter_files ? g->inter_files : NULL, .nfiles = c->ninter_files,
                                  .limits_present = j->prog.limits_present | c->inter_given };
        memcpy(j->interactor.limits, j->prog.limits, sizeof j->interactor.limits);
        for (int i = 0; i < Q_LIM_COUNT; i++)
            if (c->inter_given & (1u << i))
                j->interactor.limits[i] = c->inter_limits[i];
    }
    j->grade = gr;
    return 0;
}

int wk_cli_grade_ship(wk_cli_grade *g)
{
    if (!g->problem)
        return 0;
    size_t n;
    const q_file *f = wk_mat_files_read(g->problem->m, &n);
    g->grade.problem_files = (q_prog){ .files = (q_file *)f, .nfiles = n };
    return 0;
}

void wk_cli_grade_free(wk_cli_grade *g)
{
    wk_cli_groups_free(g);
    if (g->tests)
        wk_testdir_free(g->tests, g->ntests);
    wk_mat_close(g->mat);
    if (g->problem) {
        wk_problem_free(g->problem);
        free(g->problem);
    }
    for (size_t i = 0; i < g->nchecker_files; i++)
        free(g->checker_bufs[i]);
    free(g->source);
    free(g->files);
    free(g->inter_files);
    memset(g, 0, sizeof *g);
}
