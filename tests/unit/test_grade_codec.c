/* test_grade_codec.c -- the grading fields of a job and of a result.
 *
 * A full grading job survives encode and decode; a language job carries no
 * argv; every bad combination is refused naming its field (one table row
 * each, in codec_fixtures' notation); the tests count is bounded before
 * anything is allocated; a result's grading fields survive the worker's
 * encoder and the client's decoder, and q_result_decode still reads the rest.
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
#include "queue/result.h"
#include "tests/lib/codec_fixtures.h"

static char *run_argv[] = { "./main", NULL };
static char *cc_argv[] = { "gcc", "-o", "main", "main.c", NULL };
static char *chk_argv[] = { "./check", "-v", NULL };
static q_file job_files[] = { { "main.c", "int main(){}", 12 } };
static q_file chk_files[] = { { "check", "\x7f" "ELF", 4 } };
static q_file t2_files[] = { { "data.txt", "abc", 3 } };

static void grading_job(q_job *j, q_grade *g, q_test *t)
{
    memset(j, 0, sizeof *j);
    memset(g, 0, sizeof *g);
    memset(t, 0, 2 * sizeof *t);
    strcpy(j->id, "g1");
    j->prog = (q_prog){ .argv = run_argv, .argc = 1, .files = job_files, .nfiles = 1 };
    t[0] = (q_test){ .name = "1", .stdin_data = "1 2\n", .stdin_len = 4, .expected = "3\n", .expected_len = 2 };
    t[1] = (q_test){ .name = "big one", .named = true, .stdin_data = "", .stdin_len = 0, .expected = "x",
                     .expected_len = 1, .extra = { .files = t2_files, .nfiles = 1 } };
    t[1].extra.limits[Q_LIM_CPU_MS] = 5000;
    t[1].extra.limits_present = 1u << Q_LIM_CPU_MS;
    *g = (q_grade){ .tests = t, .ntests = 2, .has_compile = true, .compile = { .argv = cc_argv, .argc = 4 },
                    .checker = Q_CHECK_PROGRAM, .checker_prog = { .argv = chk_argv, .argc = 2, .files = chk_files,
                                                                  .nfiles = 1 },
                    .stop_on_failure = true };
    g->compile.limits[Q_LIM_MEMORY_BYTES] = 1u << 30;
    g->compile.limits_present = 1u << Q_LIM_MEMORY_BYTES;
    j->grade = g;
}

/* out borrows sb's bytes: the caller frees out, then destroys sb. */
static void roundtrip(const q_job *in, q_job *out, msgpack_sbuffer *sb)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer_init(sb);
    if (q_job_encode(in, sb, err, sizeof err) < 0)
        fail_msg("encode: %s", err);
    if (q_job_decode(sb->data, sb->size, NULL, out, err, sizeof err) < 0)
        fail_msg("decode: %s", err);
}

static void done(q_job *d, msgpack_sbuffer *sb)
{
    q_job_free(d);
    msgpack_sbuffer_destroy(sb);
}

static void test_full_roundtrip(void **state)
{
    (void)state;
    q_job j, d;
    q_grade g;
    q_test t[2];
    msgpack_sbuffer sb;
    grading_job(&j, &g, t);
    roundtrip(&j, &d, &sb);
    assert_non_null(d.grade);
    const q_grade *x = d.grade;
    assert_int_equal(x->ntests, 2);
    assert_string_equal(x->tests[0].name, "1");
    assert_false(x->tests[0].named);
    tc_assert_bytes(x->tests[0].stdin_data, x->tests[0].stdin_len, "1 2\n", 4);
    tc_assert_bytes(x->tests[0].expected, x->tests[0].expected_len, "3\n", 2);
    assert_string_equal(x->tests[1].name, "big one");
    assert_int_equal(x->tests[1].extra.nfiles, 1);
    assert_string_equal(x->tests[1].extra.files[0].name, "data.txt");
    assert_int_equal(x->tests[1].extra.limits_present, 1u << Q_LIM_CPU_MS);
    assert_int_equal(x->tests[1].extra.limits[Q_LIM_CPU_MS], 5000);
    assert_true(x->has_compile);
    assert_int_equal(x->compile.argc, 4);
    assert_string_equal(x->compile.argv[3], "main.c");
    assert_int_equal(x->compile.limits[Q_LIM_MEMORY_BYTES], 1u << 30);
    assert_int_equal(x->checker, Q_CHECK_PROGRAM);
    assert_string_equal(x->checker_prog.argv[1], "-v");
    assert_string_equal(x->checker_prog.files[0].name, "check");
    assert_true(x->stop_on_failure);
    assert_null(x->language);
    done(&d, &sb);

    g.checker = Q_CHECK_FLOAT;
    g.eps = 1e-6;
    g.has_compile = false;
    g.stop_on_failure = false;
    roundtrip(&j, &d, &sb);
    assert_int_equal(d.grade->checker, Q_CHECK_FLOAT);
    assert_true(d.grade->eps == 1e-6);
    assert_false(d.grade->has_compile);
    done(&d, &sb);

    for (int k = Q_CHECK_LINES; k <= Q_CHECK_TOKENS; k++) {
        g.checker = (q_check_kind)k;
        roundtrip(&j, &d, &sb);
        assert_int_equal(d.grade->checker, k);
        done(&d, &sb);
    }
}

static void test_language_job(void **state)
{
    (void)state;
    q_job j, d;
    q_grade g;
    q_test t[2];
    msgpack_sbuffer sb;
    grading_job(&j, &g, t);
    j.prog.argv = NULL;
    j.prog.argc = 0;
    g.has_compile = false;
    g.language = "cpp";
    g.source = "int main(){}";
    g.source_len = 12;
    roundtrip(&j, &d, &sb);
    assert_null(d.prog.argv);
    assert_string_equal(d.grade->language, "cpp");
    tc_assert_bytes(d.grade->source, d.grade->source_len, "int main(){}", 12);
    assert_int_equal(d.prog.nfiles, 1);
    done(&d, &sb);
}

static void test_plain_job_has_no_grade(void **state)
{
    (void)state;
    char err[Q_ERR_LEN];
    msgpack_sbuffer sb = tc_mp("{id: 'p', argv: ['a']}");
    q_job d;
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &d, err, sizeof err), 0);
    assert_null(d.grade);
    done(&d, &sb);
}

/* The job's key rule holds in the grading maps too: nil is absent and
 * unknown keys are ignored. */
static void test_grading_maps_follow_the_key_rule(void **state)
{
    (void)state;
    char err[Q_ERR_LEN];
    msgpack_sbuffer sb = tc_mp("{id: 'g', argv: ['a'], compile: nil, checker: nil, "
                               "tests: [{name: nil, stdin: nil, limits: {cpu_ms: 7, gpus: 1}, colour: 'x'}]}");
    q_job d;
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &d, err, sizeof err), 0);
    assert_non_null(d.grade);
    assert_int_equal(d.grade->ntests, 1);
    assert_int_equal(d.grade->tests[0].extra.limits[Q_LIM_CPU_MS], 7);
    done(&d, &sb);
}

/* A compile or checker argv too large for execve is the job's fault, said
 * at decode time, as for the program's own argv. */
static void pack_str(msgpack_packer *pk, const char *str, size_t n)
{
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, str, n);
}

static void test_grading_argv_size_checked(void **state)
{
    (void)state;
    static char big[Q_EXEC_STRING_MAX];
    memset(big, 'x', sizeof big);
    for (int which = 0; which < 2; which++) {
        const char *key = which ? "checker" : "compile";
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, 4);
        pack_str(&pk, "id", 2), pack_str(&pk, "g", 1);
        pack_str(&pk, "argv", 4), msgpack_pack_array(&pk, 1), pack_str(&pk, "a", 1);
        pack_str(&pk, "tests", 5), msgpack_pack_array(&pk, 1), msgpack_pack_map(&pk, 0);
        pack_str(&pk, key, strlen(key)), msgpack_pack_map(&pk, 1);
        pack_str(&pk, "argv", 4), msgpack_pack_array(&pk, 1), pack_str(&pk, big, sizeof big);
        char err[Q_ERR_LEN];
        q_job d;
        assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &d, err, sizeof err), -1);
        assert_non_null(strstr(err, which ? "checker.argv: a string of" : "compile.argv: a string of"));
        msgpack_sbuffer_destroy(&sb);
    }
}

/* The compile step runs with the job's env: 140 KiB of compile argv and
 * 120 KiB of env each fit alone, not together. The checker gets "input
 * output answer" appended: an argv that fits to the byte without them
 * does not with them. */
static void test_what_runs_together_is_checked(void **state)
{
    (void)state;
    static char a70[70 * 1024], v60[60 * 1024], big[Q_EXEC_STRING_MAX - 1];
    memset(a70, 'a', sizeof a70 - 1);
    memset(v60, 'v', sizeof v60 - 1);
    for (int which = 0; which < 3; which++) {
        msgpack_sbuffer sb;
        msgpack_sbuffer_init(&sb);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
        msgpack_pack_map(&pk, which == 2 ? 4 : 5);
        pack_str(&pk, "id", 2), pack_str(&pk, "g", 1);
        pack_str(&pk, "argv", 4), msgpack_pack_array(&pk, 1), pack_str(&pk, "a", 1);
        pack_str(&pk, "tests", 5), msgpack_pack_array(&pk, 1), msgpack_pack_map(&pk, 0);
        if (which < 2) {
            pack_str(&pk, "env", 3), msgpack_pack_map(&pk, 2);
            pack_str(&pk, "A", 1), pack_str(&pk, v60, strlen(v60));
            pack_str(&pk, "B", 1), pack_str(&pk, v60, strlen(v60));
            pack_str(&pk, "compile", 7), msgpack_pack_map(&pk, 1);
            pack_str(&pk, "argv", 4), msgpack_pack_array(&pk, which ? 1 : 2);
            pack_str(&pk, a70, strlen(a70));
            if (!which)
                pack_str(&pk, a70, strlen(a70));
        } else {
            /* Q_EXEC_BYTES_MAX exactly with the default env, before the
             * three names: a long string and a filler, with their NULs. */
            size_t fill = Q_EXEC_BYTES_MAX - Q_EXEC_DEFAULT_ENV - sizeof big - 1;
            memset(big, 'c', sizeof big - 1);
            pack_str(&pk, "checker", 7), msgpack_pack_map(&pk, 1);
            pack_str(&pk, "argv", 4), msgpack_pack_array(&pk, 2);
            pack_str(&pk, big, strlen(big));
            char *f = malloc(fill);
            memset(f, 'f', fill);
            pack_str(&pk, f, fill);
            free(f);
        }
        char err[Q_ERR_LEN];
        q_job d;
        int rc = q_job_decode(sb.data, sb.size, NULL, &d, err, sizeof err);
        if (which == 1) {
            assert_int_equal(rc, 0); /* 70 KiB with 120 KiB of env: it fits */
            q_job_free(&d);
        } else {
            assert_int_equal(rc, -1);
            const char *want = which ? "checker.argv (with input output answer) and env: 261140 bytes"
                                     : "compile.argv and env: ";
            if (!strstr(err, want))
                fail_msg("case %d: got \"%s\", want \"%s\"", which, err, want);
            assert_true(d.has_id);
        }
        msgpack_sbuffer_destroy(&sb);
    }
}

static const struct tc_bad bad[] = {
    { "{id: 'g', tests: [{}]}", "argv: missing (tests need argv or language)", "g" },
    { "{id: 'g', argv: ['a'], tests: []}", "tests: 0 tests, not 1..1000", "g" },
    { "{id: 'g', argv: ['a'], tests: {}}", "tests: not an array", "g" },
    { "{id: 'g', argv: ['a'], tests: [5]}", "tests[0]: not a map", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}, {stdin: 5}]}", "tests[1].stdin: not bytes (str or bin)", "g" },
    { "{id: 'g', argv: ['a'], tests: [{expected: []}]}", "tests[0].expected: not bytes (str or bin)", "g" },
    { "{id: 'g', argv: ['a'], tests: [{name: ''}]}", "tests[0].name: 0 bytes, not 1..128", "g" },
    { "{id: 'g', argv: ['a'], tests: [{name: 'a\\x1bb'}]}",
      "tests[0].name: \"a\\x1bb\": byte 1 is not printable ASCII", "g" },
    { "{id: 'g', argv: ['a'], tests: [{files: {'../x': 'a'}}]}",
      "tests[0].files[\"../x\"]: path escapes /box ('..' component)", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], checker: 5}", "checker: neither a name nor a map", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], checker: 'diff'}",
      "checker: \"diff\": not exact, lines, tokens, testlib:NAME (a standard checker), {\"float\": EPS} or a "
      "program map", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], checker: {float: 'x'}}", "checker.float: not a number", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], checker: {float: 1, argv: ['c']}}",
      "checker: {\"float\": EPS} takes no other key", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], checker: {files: {}}}", "checker.argv: missing", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], compile: ['gcc']}", "compile: not a map", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], compile: {limits: {}}}", "compile.argv: missing", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], compile: {argv: ['gcc'], files: {}}}",
      "compile.files: not allowed (the compile step sees the job's files)", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], stop_on_failure: 1}", "stop_on_failure: not a boolean", "g" },
    { "{id: 'g', argv: ['a'], compile: {argv: ['gcc']}}", "compile: needs tests", "g" },
    { "{id: 'g', argv: ['a'], checker: 'exact'}", "checker: needs tests", "g" },
    { "{id: 'g', argv: ['a'], language: 'c', source: 'x'}", "language: needs tests", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], language: 'c', source: 'x'}",
      "language: cannot be given with argv (the preset gives it)", "g" },
    { "{id: 'g', tests: [{}], language: 'c', source: 'x', compile: {argv: ['a']}}",
      "language: cannot be given with compile (the preset gives it)", "g" },
    { "{id: 'g', tests: [{}], language: 'c'}", "source: missing (language needs it)", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], source: 'x'}", "source: needs language", "g" },
    { "{id: 'g', tests: [{}], language: 5, source: 'x'}", "language: not a string", "g" },
    { "{id: 'g', tests: [{}], language: 'c c', source: 'x'}",
      "language: \"c c\": byte 1 is not a visible ASCII character", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], tests: [{}]}", "job: duplicate key \"tests\"", "g" },
    /* Every limit of every program is checked before anything runs. */
    { "{id: 'g', argv: ['a'], tests: [{}, {limits: {cpu_ms: 0}}]}",
      "tests[1].limits.cpu_ms: 0, must be positive", "g" },
    { "{id: 'g', argv: ['a'], tests: [{limits: {open_files: 0}}]}",
      "tests[0].limits.open_files: 0, must be positive", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], compile: {argv: ['gcc'], limits: {memory_bytes: 0}}}",
      "compile.limits.memory_bytes: 0, must be positive", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], checker: {argv: ['c'], limits: {processes: 0}}}",
      "checker.limits.processes: 0, must be positive", "g" },
    { "{id: 'g', argv: ['a'], tests: [{}], interactor: {argv: ['i'], limits: {cpu_ms: 0}}}",
      "interactor.limits.cpu_ms: 0, must be positive", "g" },
};

static void test_bad_combinations(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msgpack_sbuffer sb = tc_mp(bad[i].in);
        tc_expect_job_error(bad[i].in, sb.data, sb.size, NULL, bad[i].err, bad[i].id);
        msgpack_sbuffer_destroy(&sb);
    }
}

/* A job map of n keys: id "g", argv ["a"], then the key "tests". */
static void job_head(msgpack_packer *pk, size_t n)
{
    msgpack_pack_map(pk, n);
    msgpack_pack_str_with_body(pk, "id", 2);
    msgpack_pack_str_with_body(pk, "g", 1);
    msgpack_pack_str_with_body(pk, "argv", 4);
    msgpack_pack_array(pk, 1);
    msgpack_pack_str_with_body(pk, "a", 1);
    msgpack_pack_str_with_body(pk, "tests", 5);
}

/* 1001 tests, and a checker whose EPS is negative: neither is allocated for. */
static void test_counts_bounded(void **state)
{
    (void)state;
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    job_head(&pk, 3);
    msgpack_pack_array(&pk, 1001);
    for (int i = 0; i < 1001; i++)
        msgpack_pack_map(&pk, 0);
    tc_expect_job_error("1001 tests", sb.data, sb.size, NULL, "tests: 1001 tests, not 1..1000", "g");
    msgpack_sbuffer_clear(&sb);
    job_head(&pk, 4);
    msgpack_pack_array(&pk, 1);
    msgpack_pack_map(&pk, 0);
    msgpack_pack_str_with_body(&pk, "checker", 7);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, "float", 5);
    msgpack_pack_double(&pk, -0.5);
    tc_expect_job_error("negative eps", sb.data, sb.size, NULL, "checker.float: not a finite number >= 0", "g");
    msgpack_sbuffer_destroy(&sb);
}

static void test_result_roundtrip(void **state)
{
    (void)state;
    char err[Q_ERR_LEN] = "";
    q_graded tests[3] = {
        { .name = "1", .status = "OK", .has_exit_code = true, .exit_code = 0, .cpu_us = 10, .wall_us = 20,
          .memory_bytes = 4096, .stdout_buf = "3\n", .stdout_len = 2, .stderr_buf = "", .stderr_len = 0 },
        { .name = "2", .status = "WRONG_ANSWER", .has_exit_code = true, .exit_code = 0,
          .checker_message = "line 1: expected \"4\", got \"5\"", .stdout_buf = "5\x00\n", .stdout_len = 3,
          .stdout_truncated = true, .stderr_buf = "warn", .stderr_len = 4 },
        { .name = "3", .status = "SKIPPED", .stdout_buf = "", .stderr_buf = "" },
    };
    q_grade_result gr = { .has_compile = true,
                          .compile = { .status = "OK", .has_exit_code = true, .stderr_buf = "note: x",
                                       .stderr_len = 7, .stdout_buf = "", .stderr_truncated = true },
                          .tests = tests, .ntests = 3, .passed = 1, .total = 3, .time_factor_milli = 1500 };
    q_result r = { .id = "g1", .status = "WRONG_ANSWER", .worker = "w", .stdout_buf = "", .stderr_buf = "",
                   .grade = &gr };
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    assert_int_equal(q_result_encode(&r, &sb, err, sizeof err), 0);
    q_result back;
    assert_int_equal(q_result_decode(sb.data, sb.size, &back, err, sizeof err), 0);
    assert_string_equal(back.status, "WRONG_ANSWER");
    q_result_free(&back);
    q_grade_result g;
    assert_int_equal(q_grade_result_decode(sb.data, sb.size, &g, err, sizeof err), 1);
    assert_true(g.has_compile);
    assert_string_equal(g.compile.status, "OK");
    assert_true(g.compile.stderr_truncated);
    tc_assert_bytes(g.compile.stderr_buf, g.compile.stderr_len, "note: x", 7);
    assert_int_equal(g.ntests, 3);
    assert_int_equal(g.passed, 1);
    assert_int_equal(g.total, 3);
    assert_string_equal(g.tests[1].name, "2");
    assert_string_equal(g.tests[1].status, "WRONG_ANSWER");
    assert_string_equal(g.tests[1].checker_message, "line 1: expected \"4\", got \"5\"");
    tc_assert_bytes(g.tests[1].stdout_buf, g.tests[1].stdout_len, "5\x00\n", 3);
    assert_true(g.tests[1].stdout_truncated);
    assert_null(g.tests[0].checker_message);
    assert_int_equal(g.tests[0].memory_bytes, 4096);
    assert_string_equal(g.tests[2].status, "SKIPPED");
    assert_int_equal(g.time_factor_milli, 1500);
    q_grade_result_free(&g);
    msgpack_sbuffer_destroy(&sb);

    /* Without a time factor, none on the wire. */
    gr.time_factor_milli = 0;
    msgpack_sbuffer_init(&sb);
    assert_int_equal(q_result_encode(&r, &sb, err, sizeof err), 0);
    assert_null(memmem(sb.data, sb.size, "time_factor", 11));
    assert_int_equal(q_grade_result_decode(sb.data, sb.size, &g, err, sizeof err), 1);
    assert_int_equal(g.time_factor_milli, 0);
    q_grade_result_free(&g);
    msgpack_sbuffer_destroy(&sb);

    /* A single run's result has no grading fields. */
    r.grade = NULL;
    msgpack_sbuffer_init(&sb);
    assert_int_equal(q_result_encode(&r, &sb, err, sizeof err), 0);
    assert_int_equal(q_grade_result_decode(sb.data, sb.size, &g, err, sizeof err), 0);
    msgpack_sbuffer_destroy(&sb);
}

static void test_bad_results(void **state)
{
    (void)state;
    char err[Q_ERR_LEN];
    q_grade_result g;
    static const struct { const char *in, *err; } cases[] = {
        { "{tests: 5}", "tests: not an array" },
        { "{tests: [5]}", "tests[0]: not a map" },
        { "{tests: [{name: 'a'}]}", "tests[0].status: missing" },
        { "{tests: [{status: 'OK'}]}", "tests[0].name: missing" },
        { "{tests: [{status: 'OK', name: 'a', cpu_us: -1}]}", "tests[0].cpu_us: not a non-negative integer" },
        { "{compile: {status: 5}, tests: []}", "compile.status: not bytes" },
        { "{tests: [], passed: 'x'}", "result.passed: not a non-negative integer" },
        { "{tests: [], time_factor: 'x'}", "time_factor: not a number above 0 and at most 100" },
        { "{tests: [], time_factor: 0}", "time_factor: not a number above 0 and at most 100" },
        { "{tests: [], time_factor: 1000}", "time_factor: not a number above 0 and at most 100" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        msgpack_sbuffer sb = tc_mp(cases[i].in);
        assert_int_equal(q_grade_result_decode(sb.data, sb.size, &g, err, sizeof err), -1);
        assert_string_equal(err, cases[i].err);
        assert_null(g.priv);
        msgpack_sbuffer_destroy(&sb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_roundtrip),     cmocka_unit_test(test_language_job),
        cmocka_unit_test(test_plain_job_has_no_grade), cmocka_unit_test(test_grading_maps_follow_the_key_rule),
        cmocka_unit_test(test_grading_argv_size_checked),
        cmocka_unit_test(test_what_runs_together_is_checked),
        cmocka_unit_test(test_bad_combinations),
        cmocka_unit_test(test_counts_bounded),     cmocka_unit_test(test_result_roundtrip),
        cmocka_unit_test(test_bad_results),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
