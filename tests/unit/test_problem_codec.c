/* test_problem_codec.c -- a grading job's problem on the wire
 * (queue/grade_problem.c): a held problem's name and a package's files
 * decode, survive a round trip, and what would reach outside is refused
 * naming the field: a name with a path or a leading dot, files whose
 * paths climb, a problem beside tests, groups or a checker; testlib's
 * standard checkers by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "queue/grade.h"
#include "queue/job.h"
#include "tests/lib/codec_fixtures.h"

static void decodes(void **state)
{
    (void)state;
    char err[Q_ERR_LEN];
    q_job j, again;
    msgpack_sbuffer in = tc_mp("{id: 'p', language: 'cpp', source: 'int main(){}', problem: 'ab-1.x'}");
    assert_int_equal(q_job_decode(in.data, in.size, NULL, &j, err, sizeof err), 0);
    assert_string_equal(j.grade->problem, "ab-1.x");
    assert_int_equal(j.grade->ntests, 0);
    msgpack_sbuffer out;
    msgpack_sbuffer_init(&out);
    assert_int_equal(q_job_encode(&j, &out, err, sizeof err), 0);
    assert_int_equal(q_job_decode(out.data, out.size, NULL, &again, err, sizeof err), 0);
    assert_string_equal(again.grade->problem, "ab-1.x");
    q_job_free(&again);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&in);
    msgpack_sbuffer_destroy(&out);

    in = tc_mp("{id: 'p', argv: ['./a'], problem_files: {'problem.xml': '<problem/>', 'tests/01': b'1 2'}, "
               "stop_on_failure: true}");
    assert_int_equal(q_job_decode(in.data, in.size, NULL, &j, err, sizeof err), 0);
    assert_int_equal(j.grade->problem_files.nfiles, 2);
    assert_true(j.grade->stop_on_failure);
    msgpack_sbuffer_init(&out);
    assert_int_equal(q_job_encode(&j, &out, err, sizeof err), 0);
    assert_int_equal(q_job_decode(out.data, out.size, NULL, &again, err, sizeof err), 0);
    assert_int_equal(again.grade->problem_files.nfiles, 2);
    tc_assert_bytes(again.grade->problem_files.files[1].data, again.grade->problem_files.files[1].len, "1 2", 3);
    q_job_free(&again);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&in);
    msgpack_sbuffer_destroy(&out);

    in = tc_mp("{id: 'p', argv: ['./a'], tests: [{}], checker: 'testlib:rcmp6'}");
    assert_int_equal(q_job_decode(in.data, in.size, NULL, &j, err, sizeof err), 0);
    assert_int_equal(j.grade->checker, Q_CHECK_TESTLIB);
    assert_int_equal(j.grade->std, Q_STD_RCMP6);
    msgpack_sbuffer_init(&out);
    assert_int_equal(q_job_encode(&j, &out, err, sizeof err), 0);
    assert_int_equal(q_job_decode(out.data, out.size, NULL, &again, err, sizeof err), 0);
    assert_int_equal(again.grade->std, Q_STD_RCMP6);
    q_job_free(&again);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&in);
    msgpack_sbuffer_destroy(&out);
}

static const struct tc_bad bad[] = {
    { "{id: 'p', argv: ['a'], problem: '../etc'}", "problem: \"../etc\": byte 0 is not one of [A-Za-z0-9._-] (nor a leading '.')", "p" },
    { "{id: 'p', argv: ['a'], problem: 'a/b'}", "problem: \"a/b\": byte 1 is not one of [A-Za-z0-9._-] (nor a leading '.')", "p" },
    { "{id: 'p', argv: ['a'], problem: ''}", "problem: 0 bytes, not 1..64", "p" },
    { "{id: 'p', argv: ['a'], problem: 5}", "problem: not a string", "p" },
    { "{id: 'p', argv: ['a'], problem: 'x', problem_files: {a: 'b'}}",
      "problem: not with problem_files (one or the other)", "p" },
    { "{id: 'p', argv: ['a'], problem_files: {'../x': 'y'}}", "problem_files[\"../x\"]: path escapes /box ('..' component)", "p" },
    { "{id: 'p', argv: ['a'], problem_files: {'/etc/passwd': 'y'}}", "problem_files[\"/etc/passwd\"]: absolute path escapes /box", "p" },
    { "{id: 'p', argv: ['a'], problem_files: {}}", "problem_files: empty", "p" },
    { "{id: 'p', argv: ['a'], problem: 'x', tests: [{}]}", "tests: not with a problem (the problem gives it)", "p" },
    { "{id: 'p', argv: ['a'], problem: 'x', checker: 'exact'}", "checker: not with a problem (the problem gives it)", "p" },
    { "{id: 'p', problem: 'x'}", "argv: missing (tests need argv or language)", "p" },
    { "{id: 'p', argv: ['a'], tests: [{}], checker: 'testlib:nosuch'}",
      "checker: \"testlib:nosuch\": not exact, lines, tokens, testlib:NAME (a standard checker), {\"float\": EPS} or a "
      "program map", "p" },
};

static void refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msgpack_sbuffer in = tc_mp(bad[i].in);
        tc_expect_job_error(bad[i].in, in.data, in.size, NULL, bad[i].err, bad[i].id);
        msgpack_sbuffer_destroy(&in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(decodes), cmocka_unit_test(refused) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
