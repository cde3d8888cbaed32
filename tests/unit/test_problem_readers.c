/* test_problem_readers.c -- packages read whole (worker/problem/): a
 * Polygon package, a Kattis package and a DMOJ problem in memory give the
 * limits, tests, points, groups (ordered, dependencies as indices) and
 * checkers they say; and what an attacker writes instead is refused
 * naming the field: numbers that are negative, NaN, 1e309, 2^64 or "1 s",
 * a path pattern that would reach printf, group graphs with cycles,
 * self-dependencies, unknown and duplicate names, paths leaving the
 * package. The group graph is ordered in linear time: a million groups
 * in a chain are ordered well within a bound that only catches a
 * quadratic walk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "worker/problem/groups.h"
#include "worker/problem/problem.h"

static q_file base[] = {
    { "problem.xml", NULL, 0 },
    { "tests/01", "1 2\n", 4 },   { "tests/01.a", "3\n", 2 },     { "tests/02", "5 6\n", 4 },
    { "tests/03", "7 8\n", 4 },   { "tests/03.a", "15\n", 3 },    { "files/check.cpp", "x", 1 },
    { "files/testlib.h", "", 0 }, { "files/gen.cpp", "x", 1 },    { "solutions/main.cpp", "x", 1 },
};

static const char *polygon(const char *testset, const char *groups, const char *assets)
{
    static char xml[8192];
    snprintf(xml, sizeof xml,
             "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<problem short-name=\"ab\"><judging><testset name=\"tests\">"
             "%s<input-path-pattern>tests/%%02d</input-path-pattern><answer-path-pattern>tests/%%02d.a"
             "</answer-path-pattern><tests><test method=\"manual\" group=\"g0\" points=\"0\"/>"
             "<test method=\"generated\" cmd=\"gen 5 6\" group=\"g1\" points=\"12.5\"/>"
             "<test method=\"manual\" group=\"g1\" points=\"7.5\"/></tests>%s</testset></judging>"
             "<files><resources><file path=\"files/testlib.h\"/></resources><executables><executable>"
             "<source path=\"files/gen.cpp\" type=\"cpp.g++17\"/></executable></executables></files>"
             "<assets>%s<solutions><solution tag=\"main\"><source path=\"solutions/main.cpp\" type=\"cpp.g++17\"/>"
             "</solution></solutions></assets></problem>",
             testset, groups, assets);
    return xml;
}

#define LIMITS "<time-limit>2000</time-limit><memory-limit>268435456</memory-limit><test-count>3</test-count>"
#define GROUPS "<groups><group name=\"g1\" points=\"20\" points-policy=\"complete-group\"><dependencies>" \
               "<dependency group=\"g0\"/></dependencies></group><group name=\"g0\" points-policy=\"each-test\"/>" \
               "</groups>"
#define CHECKER "<checker type=\"testlib\"><source path=\"files/check.cpp\" type=\"cpp.g++17\"/></checker>"

static int read_xml(const char *xml, wk_problem *p, char *err)
{
    wk_mat *m;
    base[0].data = xml;
    base[0].len = strlen(xml);
    assert_int_equal(wk_mat_open_mem(base, sizeof base / sizeof base[0], "pkg", NULL, &m, err, 512), 0);
    memset(p, 0, sizeof *p);
    return wk_problem_read(m, p, err, 512);
}

static void polygon_whole(void **state)
{
    (void)state;
    wk_problem p;
    char err[512];
    if (read_xml(polygon(LIMITS, GROUPS, CHECKER), &p, err) != 0)
        fail_msg("%s", err);
    assert_int_equal(p.format, WK_FMT_POLYGON);
    assert_int_equal(p.cpu_ms, 2000);
    assert_int_equal(p.memory_bytes, 268435456);
    assert_int_equal(p.ntests, 3);
    assert_string_equal(p.tests[1].name, "2");
    assert_int_equal(p.ptests[1].gen, -1);            /* tests/02 exists: read, not generated */
    assert_int_equal(p.ngens, 0);
    assert_true(p.ptests[1].needs_answer);            /* tests/02.a missing: the main solution */
    assert_non_null(p.main_src.path);
    assert_true(p.tests[1].points == 12500000 && p.tests[2].points == 7500000);
    assert_int_equal(p.ngroups, 2);
    assert_string_equal(p.groups[0].name, "g0");      /* before g1, which depends on it */
    assert_string_equal(p.groups[1].name, "g1");
    assert_int_equal(p.groups[1].ndepends, 1);
    assert_int_equal(p.groups[1].depends_on[0], 0);
    assert_int_equal(p.groups[1].scoring, Q_SCORE_ALL);
    assert_int_equal(p.groups[0].scoring, Q_SCORE_SUM);
    assert_int_equal(p.groups[1].ntests, 2);
    assert_int_equal(p.checker, Q_CHECK_PROGRAM);
    assert_string_equal(p.checker_src.lang, "cpp");
    assert_int_equal(p.nheaders, 1);
    assert_string_equal(p.headers[0].name, "testlib.h");
    wk_problem_free(&p);

    base[3].name = "tests/99"; /* without tests/02, its generator makes it */
    assert_int_equal(read_xml(polygon(LIMITS, GROUPS, CHECKER), &p, err), 0);
    base[3].name = "tests/02";
    assert_int_equal(p.ptests[1].gen, 0);
    assert_int_equal(p.ngens, 1);
    assert_string_equal(p.gen_names[0], "gen");
    assert_int_equal(p.ptests[1].nargs, 2);
    assert_string_equal(p.ptests[1].args[0], "5");
    wk_problem_free(&p);

    assert_int_equal(read_xml(polygon(LIMITS, "", "<checker name=\"std::rcmp6.cpp\" type=\"testlib\"/>"), &p, err), 0);
    assert_int_equal(p.checker, Q_CHECK_TESTLIB);
    assert_int_equal(p.std, Q_STD_RCMP6);
    assert_int_equal(p.ngroups, 2);                   /* named by tests only: each-test */
    assert_int_equal(p.groups[0].scoring, Q_SCORE_SUM);
    wk_problem_free(&p);
}

static void refused(const char *xml, const char *want)
{
    wk_problem p;
    char err[512];
    assert_int_equal(read_xml(xml, &p, err), -1);
    if (!strstr(err, want))
        fail_msg("got \"%s\", want \"%s\"", err, want);
    for (const char *c = err; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            fail_msg("a raw byte 0x%02x in \"%s\"", (unsigned char)*c, err);
}

static void polygon_numbers(void **state)
{
    (void)state;
    static const struct { const char *limit, *want; } bad[] = {
        { "<time-limit>-1</time-limit>", "time-limit \"-1\" is negative" },
        { "<time-limit>NaN</time-limit>", "time-limit \"NaN\" is not a number" },
        { "<time-limit>1e309</time-limit>", "time-limit \"1e309\" is not a number" },
        { "<time-limit>1 s</time-limit>", "time-limit \"1 s\" is not a number" },
        { "<time-limit>18446744073709551616</time-limit>", "time-limit \"18446744073709551616\" is too large" },
        { "<time-limit>60001</time-limit>", "is too large (1..60000)" },
        { "<time-limit>0</time-limit>", "is too small" },
        { "<time-limit>1000</time-limit><memory-limit>1e9</memory-limit>", "memory-limit \"1e9\" is not a number" },
        { "<time-limit>1000</time-limit><test-count>1001</test-count>", "test-count \"1001\" is too large" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused(polygon(bad[i].limit, "", CHECKER), bad[i].want);
    char xml[8192];
    snprintf(xml, sizeof xml, "%s", polygon(LIMITS, "", CHECKER));
    char *pts = strstr(xml, "points=\"12.5\"");
    memcpy(pts, "points=\"-1.0\"", 13);
    refused(xml, "test 2: points \"-1.0\" is negative");
    memcpy(pts, "points=\"1e99\"", 13);
    refused(xml, "test 2: points \"1e99\" is not a number of points");
}

static void polygon_paths(void **state)
{
    (void)state;
    char xml[8192];
    snprintf(xml, sizeof xml, "%s", polygon(LIMITS, "", CHECKER));
    char *pat = strstr(xml, "tests/%02d<");
    memcpy(pat, "tests/%02s<", 11);
    refused(xml, "input-path-pattern tests/%02s has a '%' that is not %d");
    snprintf(xml, sizeof xml, "%s", polygon(LIMITS, "", CHECKER));
    pat = strstr(xml, "tests/%02d.a");
    memcpy(pat, "../etc/%02d", 11);
    refused(xml, "a path no test may have");
    snprintf(xml, sizeof xml, "%s",
             polygon(LIMITS, "", "<checker type=\"testlib\"><source path=\"/etc/shadow\" type=\"cpp.g++17\"/></checker>"));
    refused(xml, "source path /etc/shadow: an absolute path");
    snprintf(xml, sizeof xml, "%s",
             polygon(LIMITS, "", "<checker type=\"testlib\"><source path=\"files/x.pas\" type=\"pas.fpc\"/></checker>"));
    refused(xml, "files/x.pas: a source in language \"pas.fpc\", which gradeq builds with no preset");
    refused(polygon(LIMITS, "", "<checker name=\"std::nosuch.cpp\" type=\"testlib\"/>"),
            "checker std::nosuch.cpp is no standard checker gradeq has");
    refused("<!DOCTYPE p [<!ENTITY x SYSTEM \"file:///etc/shadow\">]><problem>&x;</problem>", "no DTD is read");
    refused(polygon(LIMITS, "", "<checker type=\"testlib\"><source path=\"files/check.cpp\" type=\"cpp\"/></checker>"
                                "<checker type=\"testlib\"><source path=\"files/\x1b[2J\" type=\"cpp\"/></checker>"),
            "files/\\x1b[2J");
}

static void polygon_groups(void **state)
{
    (void)state;
    refused(polygon(LIMITS, "<groups><group name=\"g0\"/><group name=\"g1\"><dependencies><dependency group=\"g1\"/>"
                            "</dependencies></group></groups>", CHECKER), "group g1: depends on itself");
    refused(polygon(LIMITS, "<groups><group name=\"g0\"><dependencies><dependency group=\"g1\"/></dependencies></group>"
                            "<group name=\"g1\"><dependencies><dependency group=\"g0\"/></dependencies></group></groups>",
                    CHECKER), "in a cycle of dependencies");
    refused(polygon(LIMITS, "<groups><group name=\"g0\"/><group name=\"g1\"><dependencies><dependency group=\"zz\"/>"
                            "</dependencies></group></groups>", CHECKER), "group g1: depends on zz, which is no group");
    refused(polygon(LIMITS, "<groups><group name=\"g0\"/><group name=\"g1\"/><group name=\"g1\"/></groups>", CHECKER),
            "group g1: a name given to two groups");
    refused(polygon(LIMITS, "<groups><group name=\"g0\"/></groups>", CHECKER),
            "test 2 is in group g1, which <groups> does not have");
    refused(polygon(LIMITS, "<groups><group name=\"g0\"/><group name=\"g1\" points-policy=\"best\"/></groups>", CHECKER),
            "points-policy best is neither complete-group nor each-test");
}

/* A million groups in a chain, written last first: Kahn's order is linear;
 * a walk that rescans the list per group would not end within the test's
 * bound. */
static void million_groups_linear(void **state)
{
    (void)state;
    size_t n = 1000000;
    wk_gdef *d = calloc(n, sizeof *d);
    char name[32], err[256];
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "g%zu", n - 1 - i);
        d[i].name = strdup(name);
        if (i + 1 < n) {
            snprintf(name, sizeof name, "g%zu", n - 2 - i);
            assert_int_equal(wk_gdef_dep(&d[i], name), 0);
        }
    }
    alarm(60);
    q_group *g;
    assert_int_equal(wk_groups_order(d, n, "pkg", &g, err, sizeof err), 0);
    assert_string_equal(g[0].name, "g0");
    assert_string_equal(g[n - 1].name, "g999999");
    assert_int_equal(g[n - 1].depends_on[0], n - 2);
    wk_groups_free(g, n);
    wk_gdefs_free(d, n); /* what the order did not take: the dependencies' names */
    /* A chain closed into a cycle is refused, also in linear time. */
    d = calloc(n, sizeof *d);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "g%zu", i);
        d[i].name = strdup(name);
        snprintf(name, sizeof name, "g%zu", (i + 1) % n);
        assert_int_equal(wk_gdef_dep(&d[i], name), 0);
    }
    assert_int_equal(wk_groups_order(d, n, "pkg", &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "in a cycle of dependencies"));
    alarm(0);
    wk_gdefs_free(d, n);
}

static int read_pkg(const q_file *f, size_t n, wk_problem *p, char *err)
{
    wk_mat *m;
    assert_int_equal(wk_mat_open_mem(f, n, "pkg", NULL, &m, err, 512), 0);
    memset(p, 0, sizeof *p);
    return wk_problem_read(m, p, err, 512);
}

static void kattis(void **state)
{
    (void)state;
    q_file f[] = {
        { "problem.yaml", "", 0 },
        { "data/sample/1.in", "1\n", 2 },      { "data/sample/1.ans", "1\n", 2 },
        { "data/secret/b.in", "2\n", 2 },      { "data/secret/b.ans", "2\n", 2 },
        { "data/secret/a.in", "3\n", 2 },      { "data/secret/a.ans", "3\n", 2 },
        { "output_validators/v/check.cpp", "x", 1 }, { "output_validators/v/helper.h", "h", 1 },
    };
    wk_problem p;
    char err[512];
    const char *y = "name: x\nlimits: {time_limit: 1.5, memory: 512}\nvalidation: custom\n";
    f[0] = (q_file){ "problem.yaml", y, strlen(y) };
    assert_int_equal(read_pkg(f, 9, &p, err), 0);
    assert_int_equal(p.cpu_ms, 1500);
    assert_int_equal(p.memory_bytes, 512ull << 20);
    assert_int_equal(p.ntests, 3);
    assert_string_equal(p.tests[0].name, "sample/1");
    assert_string_equal(p.tests[1].name, "secret/a");
    assert_string_equal(p.tests[2].name, "secret/b");
    assert_int_equal(p.checker, Q_CHECK_PROGRAM);
    assert_int_equal(p.convention, Q_CONV_KATTIS);
    assert_string_equal(p.headers[0].name, "helper.h");
    assert_true(p.stop_on_failure);
    wk_problem_free(&p);

    static const struct { const char *yaml, *want; } bad[] = {
        { "limits: {time_limit: -1}\n", "limits.time_limit \"-1\" is negative" },
        { "limits: {time_limit: .nan}\n", "limits.time_limit \".nan\" is not a number" },
        { "limits: {time_limit: 1e309}\n", "limits.time_limit \"1e309\" is too large" },
        { "limits: {time_limit: 1 s}\n", "limits.time_limit \"1 s\" is not a number" },
        { "limits: {memory: 18446744073709551616}\n", "limits.memory \"18446744073709551616\" is too large" },
        { "limits: {time_limit: 1, time_limit: 2}\n", "time_limit given twice" },
        { "name: !!python/object/apply:os.system [id]\n", "a tag (!): refused" },
        { "a: &x [1]\nb: *x\n", "an anchor (&): refused" },
        { "type: scoring\nlimits: {time_limit: 1}\n", "a scoring problem: not read" },
        { "validation: custom interactive\nlimits: {time_limit: 1}\n", "an interactive problem: not read" },
        { "name: x\n", "no time limit" },
        { "limits: {time_limit: 1}\nvalidator_flags: case_sensitive\n", "validator_flags case_sensitive" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f[0] = (q_file){ "problem.yaml", bad[i].yaml, strlen(bad[i].yaml) };
        assert_int_equal(read_pkg(f, 7, &p, err), -1);
        if (!strstr(err, bad[i].want))
            fail_msg("%s: got \"%s\", want \"%s\"", bad[i].yaml, err, bad[i].want);
    }
    y = "limits: {time_limit: 1}\nvalidator_flags: float_tolerance 1e-6\n";
    f[0] = (q_file){ "problem.yaml", y, strlen(y) };
    assert_int_equal(read_pkg(f, 7, &p, err), 0);
    assert_int_equal(p.checker, Q_CHECK_FLOAT);
    assert_true(p.eps > 0.99e-6 && p.eps < 1.01e-6);
    wk_problem_free(&p);
}

static void dmoj(void **state)
{
    (void)state;
    const char *y = "test_cases:\n- {in: 1.in, out: 1.out, points: 5}\n- points: 30\n  batched:\n"
                    "  - {in: 1.in, out: 1.out}\n  - {in: 2.in, out: 2.out}\n- batched:\n  - {in: 2.in, out: 2.out}\n"
                    "  points: 20\n  dependencies: [1]\nchecker: {name: floats, args: {precision: 3}}\n";
    q_file f[] = { { "init.yml", y, strlen(y) }, { "1.in", "1", 1 }, { "1.out", "1", 1 }, { "2.in", "2", 1 },
                   { "2.out", "2", 1 } };
    wk_problem p;
    char err[512];
    assert_int_equal(read_pkg(f, 5, &p, err), 0);
    assert_int_equal(p.ntests, 4);
    assert_true(p.tests[0].has_points && p.tests[0].points == 5000000);
    assert_int_equal(p.ngroups, 2);
    assert_string_equal(p.groups[0].name, "batch 1");
    assert_int_equal(p.groups[0].scoring, Q_SCORE_MIN);
    assert_true(p.groups[0].points == 30000000);
    assert_int_equal(p.groups[1].depends_on[0], 0);
    assert_int_equal(p.groups[1].tests[0], 3);
    assert_int_equal(p.checker, Q_CHECK_FLOAT);
    assert_true(p.eps > 0.99e-3 && p.eps < 1.01e-3);
    wk_problem_free(&p);

    static const struct { const char *yaml, *want; } bad[] = {
        { "test_cases:\n- {in: ../../etc/shadow, out: 1.out, points: 1}\n", "in ../../etc/shadow: a '..' component" },
        { "test_cases:\n- {in: /etc/shadow, out: 1.out, points: 1}\n", "an absolute path" },
        { "test_cases:\n- {in: 1.in, out: 1.out, points: -5}\n", "points -5 is negative" },
        { "test_cases:\n- {in: 1.in, out: 1.out, points: 1e309}\n", "is not a number of points" },
        { "test_cases:\n- batched: [{in: 1.in, out: 1.out}]\n  dependencies: [1]\n", "batch 1: depends on itself" },
        { "test_cases:\n- batched: [{in: 1.in, out: 1.out}]\n  dependencies: [2]\n", "depends on batch 2, which is no" },
        { "test_cases:\n- {in: 1.in, out: 1.out}\nchecker: checker.py\n", "a Python checker module" },
        { "test_cases:\n- {generator: gen.cpp, points: 1}\n", "DMOJ generators are not run" },
        { "test_cases: {input_format: x}\n", "regex test cases are not read" },
        { "test_cases:\n- {in: 3.in, out: 1.out}\n", "3.in is missing" },
        { "archive: tests.zip\ntest_cases:\n- {in: 1.in, out: 1.out}\n", "archive tests.zip is missing" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f[0] = (q_file){ "init.yml", bad[i].yaml, strlen(bad[i].yaml) };
        assert_int_equal(read_pkg(f, 5, &p, err), -1);
        if (!strstr(err, bad[i].want))
            fail_msg("%s: got \"%s\", want \"%s\"", bad[i].yaml, err, bad[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(polygon_whole),  cmocka_unit_test(polygon_numbers), cmocka_unit_test(polygon_paths),
        cmocka_unit_test(polygon_groups), cmocka_unit_test(million_groups_linear), cmocka_unit_test(kattis),
        cmocka_unit_test(dmoj),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
