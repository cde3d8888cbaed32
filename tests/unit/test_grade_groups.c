/* test_grade_groups.c -- points and groups on the wire.
 *
 * Points as decimal text, integers and floats become exact micro-points
 * and come back as canonical decimals; a job's groups survive encode and
 * decode with their tests and dependencies resolved to indices; every bad
 * group is refused naming its field (one table row each); counts are
 * bounded before anything is allocated; a result's scores and groups
 * survive the worker's encoder and the client's decoder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queue/grade.h"
#include "queue/job.h"
#include "queue/points.h"
#include "queue/result.h"
#include "tests/lib/codec_fixtures.h"

static q_points parse(const char *s, bool round)
{
    q_points p = -1;
    if (q_points_parse(s, strlen(s), round, &p) < 0)
        return -1;
    return p;
}

static void test_points_text(void **state)
{
    (void)state;
    char t[Q_POINTS_TEXT];
    assert_int_equal(parse("12.5", false), 12500000);
    assert_int_equal(parse("+0.000001", false), 1);
    assert_int_equal(parse("7", false), 7000000);
    assert_int_equal(parse(".5", false), 500000);
    assert_int_equal(parse("5.", false), 5000000);
    assert_int_equal(parse("0.1234567", false), -1);      /* exact: seven decimals refused */
    assert_int_equal(parse("0.1234567", true), 123457);    /* rounded half up */
    assert_int_equal(parse("0.0000005", true), 1);
    assert_int_equal(parse("0.00000049999", true), 0);
    assert_int_equal(parse("1e-05", true), 10);           /* Python's str(0.00001) */
    assert_int_equal(parse("2.5E+2", true), 250000000);
    assert_int_equal(parse("1e2", false), -1);             /* no exponent in a job */
    assert_int_equal(parse("-1", true), -1);
    assert_int_equal(parse("", true), -1);
    assert_int_equal(parse(".", true), -1);
    assert_int_equal(parse("1.5x", true), -1);
    assert_int_equal(parse("0x10", true), -1);
    assert_int_equal(parse("inf", true), -1);
    assert_int_equal(parse("1000000000", false), Q_POINTS_MAX);
    assert_int_equal(parse("1000000000.000001", false), -1);
    assert_int_equal(parse("1e99999999999999999999", true), -1);
    assert_int_equal(parse("1e-99999999999999999999", true), 0);
    assert_int_equal(parse("0000000000000000000000000000000000000000003.5", false), 3500000);
    assert_string_equal(q_points_format(12500000, t), "12.5");
    assert_string_equal(q_points_format(100000000, t), "100");
    assert_string_equal(q_points_format(333333, t), "0.333333");
    assert_string_equal(q_points_format(0, t), "0");
    assert_string_equal(q_points_format(Q_POINTS_MAX, t), "1000000000");
    q_points p;
    assert_int_equal(q_points_from_double(0.1, &p), 0);
    assert_int_equal(p, 100000);
    assert_int_equal(q_points_from_double(123456789.123456, &p), 0);
    assert_int_equal(p, 123456789123456LL);
    assert_int_equal(q_points_from_double(-0.5, &p), -1);
    assert_int_equal(q_points_from_double(1e10, &p), -1);
    assert_int_equal(q_points_muldiv(10 * Q_POINTS_ONE, 1, 3), 3333333);
    assert_int_equal(q_points_muldiv(20 * Q_POINTS_ONE, 1, 3), 6666667); /* half up */
    assert_int_equal(q_points_muldiv(Q_POINTS_MAX, Q_POINTS_MAX, Q_POINTS_MAX), Q_POINTS_MAX);
}

/* out borrows sb's bytes: free out, then destroy sb. */
static void decode_ok(const char *notation, q_job *out, msgpack_sbuffer *sb)
{
    char err[Q_ERR_LEN] = "";
    *sb = tc_mp(notation);
    if (q_job_decode(sb->data, sb->size, NULL, out, err, sizeof err) < 0)
        fail_msg("%s: %s", notation, err);
}

static void reencode(const q_job *in, q_job *out, msgpack_sbuffer *sb)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer_init(sb);
    if (q_job_encode(in, sb, err, sizeof err) < 0)
        fail_msg("encode: %s", err);
    if (q_job_decode(sb->data, sb->size, NULL, out, err, sizeof err) < 0)
        fail_msg("decode: %s", err);
}

static void test_groups_roundtrip(void **state)
{
    (void)state;
    q_job j, k;
    msgpack_sbuffer a, b;
    decode_ok("{id: g, argv: [a], tests: [{name: s1, points: 0}, {name: x, points: '2.5'}, {name: y}, {name: z},"
              " {name: lone, points: 3}],"
              " groups: [{name: samples, tests: [s1]},"
              "          {name: sub1, tests: [y, x], points: 40, scoring: min, stop_on_failure: true,"
              "           depends_on: [samples]},"
              "          {tests: [z], scoring: product, depends_on: [sub1, samples]}]}",
              &j, &a);
    reencode(&j, &k, &b);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&a);
    const q_grade *g = k.grade;
    assert_int_equal(g->ngroups, 3);
    assert_true(g->tests[1].has_points);
    assert_int_equal(g->tests[1].points, 2500000);
    assert_false(g->tests[2].has_points);
    assert_string_equal(g->groups[0].name, "samples");
    assert_int_equal(g->groups[0].scoring, Q_SCORE_ALL);
    assert_false(g->groups[0].has_points);
    assert_string_equal(g->groups[1].name, "sub1");
    assert_int_equal(g->groups[1].ntests, 2);
    assert_int_equal(g->groups[1].tests[0], 2); /* as listed: y first */
    assert_int_equal(g->groups[1].tests[1], 1);
    assert_int_equal(g->groups[1].points, 40 * Q_POINTS_ONE);
    assert_int_equal(g->groups[1].scoring, Q_SCORE_MIN);
    assert_true(g->groups[1].stop_on_failure);
    assert_int_equal(g->groups[1].ndepends, 1);
    assert_int_equal(g->groups[1].depends_on[0], 0);
    assert_string_equal(g->groups[2].name, "3"); /* by position */
    assert_int_equal(g->groups[2].scoring, Q_SCORE_PRODUCT);
    assert_int_equal(g->groups[2].ndepends, 2);
    assert_int_equal(g->groups[2].depends_on[0], 1);
    /* Defaults: 1 in a group, 0 outside one when the job has groups. */
    assert_int_equal(q_test_points(g, &g->tests[2], true), Q_POINTS_ONE);
    assert_int_equal(q_test_points(g, &g->tests[4], false), 3 * Q_POINTS_ONE);
    q_test bare = { 0 };
    assert_int_equal(q_test_points(g, &bare, false), 0);
    q_grade none = { 0 };
    assert_int_equal(q_test_points(&none, &bare, false), Q_POINTS_ONE);
    /* A fixed point: encoding what was decoded gives the same bytes. */
    q_job l;
    msgpack_sbuffer c;
    reencode(&k, &l, &c);
    assert_int_equal(b.size, c.size);
    assert_memory_equal(b.data, c.data, b.size);
    q_job_free(&l);
    msgpack_sbuffer_destroy(&c);
    q_job_free(&k);
    msgpack_sbuffer_destroy(&b);
}

static void test_points_as_float(void **state)
{
    (void)state;
    static const double v[] = { 0.1, 12.5, 0.000001, 999999999.999999 };
    static const q_points want[] = { 100000, 12500000, 1, 999999999999999LL };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        msgpack_sbuffer sb;
        msgpack_packer pk;
        msgpack_sbuffer_init(&sb);
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, 3);
        msgpack_pack_str_with_body(&pk, "id", 2), msgpack_pack_str_with_body(&pk, "g", 1);
        msgpack_pack_str_with_body(&pk, "argv", 4), msgpack_pack_array(&pk, 1), msgpack_pack_str_with_body(&pk, "a", 1);
        msgpack_pack_str_with_body(&pk, "tests", 5), msgpack_pack_array(&pk, 1), msgpack_pack_map(&pk, 1);
        msgpack_pack_str_with_body(&pk, "points", 6), msgpack_pack_double(&pk, v[i]);
        char err[Q_ERR_LEN];
        q_job j;
        assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &j, err, sizeof err), 0);
        assert_int_equal(j.grade->tests[0].points, want[i]);
        q_job_free(&j);
        msgpack_sbuffer_destroy(&sb);
    }
}

static const struct tc_bad bad[] = {
    { "{id: g, argv: [a], tests: [{points: -1}]}", "tests[0].points: not a number >= 0", "g" },
    { "{id: g, argv: [a], tests: [{points: 1000000001}]}", "tests[0].points: over 1000000000", "g" },
    { "{id: g, argv: [a], tests: [{points: '1.0000001'}]}",
      "tests[0].points: \"1.0000001\": not a decimal in 0..1000000000 with at most 6 decimals", "g" },
    { "{id: g, argv: [a], tests: [{points: '1e3'}]}",
      "tests[0].points: \"1e3\": not a decimal in 0..1000000000 with at most 6 decimals", "g" },
    { "{id: g, argv: [a], tests: [{points: [1]}]}", "tests[0].points: not a number >= 0", "g" },
    { "{id: g, argv: [a], groups: []}", "groups: needs tests", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: {}}", "groups: not an array", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: []}", "groups: 0 groups, not 1..1000", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [5]}", "groups[0]: not a map", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{}]}", "groups[0].tests: missing", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: []}]}", "groups[0].tests: 0 names, not 1..1 (the tests)",
      "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: ['1', '1']}]}",
      "groups[0].tests: 2 names, not 1..1 (the tests)", "g" },
    { "{id: g, argv: [a], tests: [{}, {}], groups: [{tests: ['1', '1']}]}",
      "groups[0].tests[1]: \"1\": already in a group", "g" },
    { "{id: g, argv: [a], tests: [{}, {}], groups: [{tests: ['1']}, {tests: ['2', '1']}]}",
      "groups[1].tests[1]: \"1\": already in a group", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: ['9']}]}",
      "groups[0].tests[0]: \"9\": no test has this name", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: [b'1\\x00']}]}",
      "groups[0].tests[0]: \"1\\x00\": no test has this name", "g" },
    { "{id: g, argv: [a], tests: [{name: t}, {name: t}], groups: [{tests: [t]}]}",
      "groups[0].tests[0]: \"t\": the name of several tests", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: [5]}]}", "groups[0].tests[0]: not a string", "g" },
    { "{id: g, argv: [a], tests: [{}, {}], groups: [{name: a, tests: ['1']}, {name: a, tests: ['2']}]}",
      "groups[1].name: \"a\": the name of groups[0] too", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{name: '', tests: ['1']}]}", "groups[0].name: 0 bytes, not 1..128",
      "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{name: 'a\\x1b', tests: ['1']}]}",
      "groups[0].name: \"a\\x1b\": byte 1 is not printable ASCII", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: ['1'], scoring: max}]}",
      "groups[0].scoring: \"max\": not all, min, sum or product", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: ['1'], scoring: 1}]}", "groups[0].scoring: not a string",
      "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: ['1'], points: '-2'}]}",
      "groups[0].points: \"-2\": not a decimal in 0..1000000000 with at most 6 decimals", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: ['1'], depends_on: ['1']}]}",
      "groups[0].depends_on: 1 names, more than the 0 groups before it", "g" },
    { "{id: g, argv: [a], tests: [{}, {}], groups: [{tests: ['1'], depends_on: ['2']}, {tests: ['2']}]}",
      "groups[0].depends_on: 1 names, more than the 0 groups before it", "g" },
    { "{id: g, argv: [a], tests: [{}, {}, {}], groups: [{tests: ['1']}, {tests: ['2'], depends_on: ['3']},"
      " {tests: ['3']}]}",
      "groups[1].depends_on[0]: \"3\": not a group before this one", "g" },
    { "{id: g, argv: [a], tests: [{}, {}, {}], groups: [{tests: ['1']}, {tests: ['2']},"
      " {tests: ['3'], depends_on: ['1', '1']}]}",
      "groups[2].depends_on[1]: \"1\": given twice", "g" },
    { "{id: g, argv: [a], tests: [{}, {}], groups: [{tests: ['1']}, {tests: ['2'], depends_on: '1'}]}",
      "groups[1].depends_on: not an array", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: ['1'], stop_on_failure: 1}]}",
      "groups[0].stop_on_failure: not a boolean", "g" },
    { "{id: g, argv: [a], tests: [{}], groups: [{tests: ['1'], tests: ['1']}]}",
      "groups[0]: duplicate key \"tests\"", "g" },
    { "{id: g, argv: [a], tests: [{}], checker: {argv: [c], convention: icpc}}",
      "checker.convention: \"icpc\": not testlib, cms or kattis", "g" },
};

static void test_bad_groups(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msgpack_sbuffer sb = tc_mp(bad[i].in);
        tc_expect_job_error(bad[i].in, sb.data, sb.size, NULL, bad[i].err, bad[i].id);
        msgpack_sbuffer_destroy(&sb);
    }
}

/* 1001 groups are refused before anything is allocated for them. */
static void test_groups_bounded(void **state)
{
    (void)state;
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 4);
    msgpack_pack_str_with_body(&pk, "id", 2), msgpack_pack_str_with_body(&pk, "g", 1);
    msgpack_pack_str_with_body(&pk, "argv", 4), msgpack_pack_array(&pk, 1), msgpack_pack_str_with_body(&pk, "a", 1);
    msgpack_pack_str_with_body(&pk, "tests", 5), msgpack_pack_array(&pk, 1), msgpack_pack_map(&pk, 0);
    msgpack_pack_str_with_body(&pk, "groups", 6), msgpack_pack_array(&pk, 1001);
    for (int i = 0; i < 1001; i++)
        msgpack_pack_map(&pk, 0);
    tc_expect_job_error("1001 groups", sb.data, sb.size, NULL, "groups: 1001 groups, not 1..1000", "g");
    msgpack_sbuffer_destroy(&sb);
}

static void test_convention_roundtrip(void **state)
{
    (void)state;
    q_job j, k;
    msgpack_sbuffer a, b;
    decode_ok("{id: g, argv: [a], tests: [{}], checker: {argv: [c], convention: cms}}", &j, &a);
    assert_int_equal(j.grade->convention, Q_CONV_CMS);
    reencode(&j, &k, &b);
    assert_int_equal(k.grade->convention, Q_CONV_CMS);
    q_job_free(&j);
    q_job_free(&k);
    msgpack_sbuffer_destroy(&a);
    msgpack_sbuffer_destroy(&b);
    decode_ok("{id: g, argv: [a], tests: [{}], checker: {argv: [c], convention: testlib}}", &j, &a);
    assert_int_equal(j.grade->convention, Q_CONV_TESTLIB);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&a);
    decode_ok("{id: g, argv: [a], tests: [{}], checker: {argv: [c], convention: kattis}}", &j, &a);
    assert_int_equal(j.grade->convention, Q_CONV_KATTIS);
    reencode(&j, &k, &b);
    assert_int_equal(k.grade->convention, Q_CONV_KATTIS);
    q_job_free(&j);
    q_job_free(&k);
    msgpack_sbuffer_destroy(&a);
    msgpack_sbuffer_destroy(&b);
}

static void test_result_scores(void **state)
{
    (void)state;
    char err[Q_ERR_LEN] = "";
    q_graded tests[2] = {
        { .name = "1", .status = "OK", .stdout_buf = "", .stderr_buf = "", .group = "sub1", .score = 2500000,
          .max_score = 2500000 },
        { .name = "2", .status = "PARTIAL", .stdout_buf = "", .stderr_buf = "", .score = 333333,
          .max_score = Q_POINTS_ONE, .checker_message = "points 0.333333" },
    };
    q_group_result groups[1] = { { "sub1", "OK", 40 * Q_POINTS_ONE, 40 * Q_POINTS_ONE, NULL } };
    q_grade_result gr = { .tests = tests, .ntests = 2, .groups = groups, .ngroups = 1, .passed = 1, .total = 2,
                          .score = 40333333, .max_score = 41 * Q_POINTS_ONE };
    q_result r = { .id = "g1", .status = "PARTIAL", .worker = "w", .stdout_buf = "", .stderr_buf = "", .grade = &gr };
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    assert_int_equal(q_result_encode(&r, &sb, err, sizeof err), 0);
    /* Scores travel as decimal strings. */
    assert_non_null(memmem(sb.data, sb.size, "40.333333", 9));
    assert_non_null(memmem(sb.data, sb.size, "\xa9max_score\xa2" "41", 13));
    q_grade_result g;
    assert_int_equal(q_grade_result_decode(sb.data, sb.size, &g, err, sizeof err), 1);
    assert_int_equal(g.score, 40333333);
    assert_int_equal(g.max_score, 41 * Q_POINTS_ONE);
    assert_int_equal(g.ngroups, 1);
    assert_string_equal(g.groups[0].name, "sub1");
    assert_string_equal(g.groups[0].status, "OK");
    assert_null(g.groups[0].message);
    assert_int_equal(g.groups[0].score, 40 * Q_POINTS_ONE);
    assert_string_equal(g.tests[0].group, "sub1");
    assert_null(g.tests[1].group);
    assert_int_equal(g.tests[0].score, 2500000);
    assert_int_equal(g.tests[1].score, 333333);
    assert_int_equal(g.tests[1].max_score, Q_POINTS_ONE);
    q_grade_result_free(&g);
    msgpack_sbuffer_destroy(&sb);
}

static void test_bad_result_scores(void **state)
{
    (void)state;
    char err[Q_ERR_LEN];
    q_grade_result g;
    static const struct { const char *in, *err; } cases[] = {
        { "{tests: [], score: 5}", "result.score: not a decimal string of at most 6 decimals" },
        { "{tests: [], max_score: '1.0000001'}", "result.max_score: not a decimal string of at most 6 decimals" },
        { "{tests: [{status: OK, name: a, score: '-1'}]}", "tests[0].score: not a decimal string of at most 6 decimals" },
        { "{tests: [], groups: 5}", "groups: not an array" },
        { "{tests: [], groups: [5]}", "groups[0]: not a map" },
        { "{tests: [], groups: [{name: a}]}", "groups[0].status: missing" },
        { "{tests: [], groups: [{status: OK}]}", "groups[0].name: missing" },
        { "{tests: [], groups: [{name: a, status: OK, message: 5}]}", "groups[0].message: not bytes" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        msgpack_sbuffer sb = tc_mp(cases[i].in);
        assert_int_equal(q_grade_result_decode(sb.data, sb.size, &g, err, sizeof err), -1);
        assert_string_equal(err, cases[i].err);
        assert_null(g.priv);
        msgpack_sbuffer_destroy(&sb);
    }
}

/* Seeds for the fuzzers: GRADEQ_WRITE_CORPUS=tests/fuzz writes a job with
 * groups into corpus_job and a result with scores into corpus_result. */
static int write_corpus(const char *dir)
{
    char sub[512], err[Q_ERR_LEN];
    msgpack_sbuffer sb = tc_mp("{id: g, argv: [a], tests: [{name: s, points: 0}, {name: x, points: '2.5'}, {}],"
                               " groups: [{name: samples, tests: [s]}, {name: one, tests: [x, '3'], points: 40,"
                               " scoring: min, depends_on: [samples], stop_on_failure: true}],"
                               " checker: {argv: [c], convention: cms}}");
    snprintf(sub, sizeof sub, "%s/corpus_job", dir);
    int rc = tc_write_file(sub, "grade-groups", &sb);
    msgpack_sbuffer_destroy(&sb);
    q_graded t[1] = { { .name = "1", .status = "PARTIAL", .stdout_buf = "", .stderr_buf = "", .group = "a",
                        .score = 333333, .max_score = Q_POINTS_ONE, .checker_message = "points 0.333333" } };
    q_group_result g[1] = { { "a", "PARTIAL", 13333320, 40 * Q_POINTS_ONE, "depends on b (failed)" } };
    q_grade_result gr = { .tests = t, .ntests = 1, .groups = g, .ngroups = 1, .total = 1, .score = 13333320,
                          .max_score = 40 * Q_POINTS_ONE };
    q_result r = { .id = "g1", .status = "PARTIAL", .worker = "w", .stdout_buf = "", .stderr_buf = "", .grade = &gr };
    msgpack_sbuffer_init(&sb);
    snprintf(sub, sizeof sub, "%s/corpus_result", dir);
    if (q_result_encode(&r, &sb, err, sizeof err) < 0 || tc_write_file(sub, "grade-groups", &sb) < 0)
        rc = -1;
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_points_text),      cmocka_unit_test(test_groups_roundtrip),
        cmocka_unit_test(test_points_as_float),  cmocka_unit_test(test_bad_groups),
        cmocka_unit_test(test_groups_bounded),   cmocka_unit_test(test_convention_roundtrip),
        cmocka_unit_test(test_result_scores),    cmocka_unit_test(test_bad_result_scores),
    };
    const char *dir = getenv("GRADEQ_WRITE_CORPUS");
    if (dir)
        return write_corpus(dir) < 0 ? 1 : 0;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
