/* grade_encode.c -- a grading job's fields on the wire (encoded by
 * `gradeq submit` and the clients' tests; decoded by grade_decode.c).
 *
 * DESIGN. Only packs: q_job_encode decodes what it packed, so
 * grade_decode.c's rules hold for what a client sends. Defaults are left
 * out, so every job has one encoding.
 */
#include <stdio.h>

#include "queue/codec_util.h"
#include "queue/err.h"
#include "queue/grade.h"
#include "queue/job_decode.h"

static size_t test_entries(const q_test *t)
{
    return t->named + (t->stdin_data != NULL) + (t->expected != NULL) + t->has_points + (t->extra.nfiles > 0) +
           (t->extra.limits_present != 0);
}

static int put_test(q_enc *e, const q_test *t)
{
    if (q_enc_map(e, test_entries(t)) < 0)
        return -1;
    if (t->named && (q_enc_cstr(e, "name") < 0 || q_enc_cstr(e, t->name) < 0))
        return -1;
    if (t->stdin_data && (q_enc_cstr(e, "stdin") < 0 || q_enc_bin(e, t->stdin_data, t->stdin_len) < 0))
        return -1;
    if (t->expected && (q_enc_cstr(e, "expected") < 0 || q_enc_bin(e, t->expected, t->expected_len) < 0))
        return -1;
    if (t->has_points && q_enc_points(e, "points", t->points) < 0)
        return -1;
    if (t->extra.nfiles && q_job_put_files(e, &t->extra) < 0)
        return -1;
    return t->extra.limits_present ? q_job_put_limits(e, &t->extra) : 0;
}

static int put_checker(q_enc *e, const q_grade *g)
{
    if (q_enc_cstr(e, "checker") < 0)
        return -1;
    if (g->checker == Q_CHECK_FLOAT)
        return q_enc_map(e, 1) < 0 || q_enc_cstr(e, "float") < 0 ? -1
                                                                  : q_enc_packed(e, msgpack_pack_double(&e->pk, g->eps));
    if (g->checker == Q_CHECK_PROGRAM) {
        bool conv = g->convention != Q_CONV_TESTLIB;
        if (q_enc_map(e, q_job_prog_entries(&g->checker_prog) + conv) < 0 || q_job_put_prog(e, &g->checker_prog) < 0)
            return -1;
        return conv && (q_enc_cstr(e, "convention") < 0 || q_enc_cstr(e, q_convention_name(g->convention)) < 0) ? -1
                                                                                                                : 0;
    }
    if (g->checker == Q_CHECK_TESTLIB) {
        char name[32];
        snprintf(name, sizeof name, "testlib:%s", q_std_checker_name(g->std));
        return q_enc_cstr(e, name);
    }
    return q_enc_cstr(e, q_check_name(g->checker));
}

size_t q_grade_entries(const q_grade *g)
{
    if (!g)
        return 0;
    bool problem = g->problem || g->problem_files.nfiles;
    return !problem + g->has_compile + (g->ngroups > 0) + (g->checker != Q_CHECK_LINES) + g->stop_on_failure +
           2 * (g->language != NULL) + q_grade_problem_entries(g);
}

int q_grade_put(q_enc *e, const q_grade *g)
{
    if (!g)
        return 0;
    if (g->problem || g->problem_files.nfiles)
        return q_grade_put_problem(e, g) < 0 || (g->has_compile && (q_enc_cstr(e, "compile") < 0 ||
                                                 q_enc_map(e, q_job_prog_entries(&g->compile)) < 0 ||
                                                 q_job_put_prog(e, &g->compile) < 0)) ||
                       (g->stop_on_failure && q_enc_bool(e, "stop_on_failure", true) < 0) ||
                       (g->language && (q_enc_cstr(e, "language") < 0 || q_enc_cstr(e, g->language) < 0 ||
                                        q_enc_cstr(e, "source") < 0 || q_enc_bin(e, g->source, g->source_len) < 0))
                   ? -1 : 0;
    if (g->ntests && !g->tests)
        return q_fail(e->err, e->errlen, "tests: NULL with %zu tests", g->ntests);
    if (q_enc_cstr(e, "tests") < 0 || q_enc_array(e, g->ntests) < 0)
        return -1;
    for (size_t i = 0; i < g->ntests; i++) {
        if (g->tests[i].named && !g->tests[i].name)
            return q_fail(e->err, e->errlen, "tests[%zu].name: NULL", i);
        if (put_test(e, &g->tests[i]) < 0)
            return -1;
    }
    if (g->ngroups && q_grade_put_groups(e, g) < 0)
        return -1;
    if (g->has_compile && (q_enc_cstr(e, "compile") < 0 || q_enc_map(e, q_job_prog_entries(&g->compile)) < 0 ||
                           q_job_put_prog(e, &g->compile) < 0))
        return -1;
    if (g->checker != Q_CHECK_LINES && put_checker(e, g) < 0)
        return -1;
    if (g->stop_on_failure && q_enc_bool(e, "stop_on_failure", true) < 0)
        return -1;
    if (g->language && (q_enc_cstr(e, "language") < 0 || q_enc_cstr(e, g->language) < 0 ||
                        q_enc_cstr(e, "source") < 0 || q_enc_bin(e, g->source, g->source_len) < 0))
        return -1;
    return 0;
}

