/* test_result_codec.c -- the result codec: encode and decode.
 *
 * The round trip of a full and of a sparse result, the by-reference encoding
 * (byte for byte the copying one), what the encoder refuses, and every kind
 * of malformed result with the exact error line it must produce.
 *
 * With GRADEQ_WRITE_RESULT_CORPUS=<dir> the binary instead writes seed
 * inputs for fuzz_result into <dir> and exits: the seeds come from the
 * encoder itself, so they stay valid as the codec evolves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <cmocka.h>

#include "queue/result.h"
#include "tests/lib/codec_fixtures.h"

/* ---- fixtures -------------------------------------------------------------- */

static const char stdout_bytes[] = "\x00\xff\xfe\xc3\x28 ok \xed\xa0\x80\x00";

static const char *const isolation[] = {"pid_ns", "mount_ns", "seccomp"};

static void full_result(q_result *r)
{
    memset(r, 0, sizeof *r);
    r->id = "sub-42";
    r->status = "RUNTIME_ERROR";
    r->has_exit_code = true;
    r->exit_code = -3;
    r->stdout_buf = stdout_bytes;
    r->stdout_len = sizeof stdout_bytes - 1;
    r->stdout_truncated = true;
    r->stderr_buf = "warn\n";
    r->stderr_len = 5;
    r->cpu_us = 12345;
    r->wall_us = 67890;
    r->memory_bytes = UINT64_MAX;
    r->worker = "host-1:4242";
    r->attempt = 2;
    r->error = "exec: no such file";
    r->isolation = isolation;
    r->nisolation = 3;
    r->has_interactor = true;
    r->interactor.status = "SIGNALED";
    r->interactor.has_signal = true;
    r->interactor.signal = 9;
    r->interactor.stderr_buf = "\x00\x01";
    r->interactor.stderr_len = 2;
    r->interactor.cpu_us = 1;
    r->interactor.wall_us = 2;
    r->interactor.memory_bytes = 3;
    r->transcript = "> 1\n< 2\n";
    r->transcript_len = 8;
}

/* ---- comparisons ----------------------------------------------------------- */

static void assert_proc_equal(const q_proc_result *a, const q_proc_result *b)
{
    assert_string_equal(a->status, b->status);
    assert_int_equal(a->has_exit_code, b->has_exit_code);
    if (a->has_exit_code)
        assert_true(a->exit_code == b->exit_code);
    assert_int_equal(a->has_signal, b->has_signal);
    if (a->has_signal)
        assert_true(a->signal == b->signal);
    tc_assert_bytes(a->stderr_buf, a->stderr_len, b->stderr_buf, b->stderr_len);
    assert_true(a->cpu_us == b->cpu_us && a->wall_us == b->wall_us);
    assert_true(a->memory_bytes == b->memory_bytes);
}

static q_proc_result main_of(const q_result *r)
{
    return (q_proc_result){r->status, r->has_exit_code, r->exit_code, r->has_signal, r->signal,
                           r->stderr_buf, r->stderr_len, r->cpu_us, r->wall_us, r->memory_bytes};
}

static void assert_result_equal(const q_result *a, const q_result *b)
{
    q_proc_result ma = main_of(a), mb = main_of(b);

    assert_string_equal(a->id, b->id);
    assert_proc_equal(&ma, &mb);
    tc_assert_bytes(a->stdout_buf, a->stdout_len, b->stdout_buf, b->stdout_len);
    assert_int_equal(a->stdout_truncated, b->stdout_truncated);
    assert_int_equal(a->stderr_truncated, b->stderr_truncated);
    assert_string_equal(a->worker, b->worker);
    assert_true(a->attempt == b->attempt);
    if (a->error)
        assert_string_equal(a->error, b->error);
    else
        assert_null(b->error);
    assert_int_equal(a->nisolation, b->nisolation);
    for (size_t i = 0; i < a->nisolation; i++)
        assert_string_equal(a->isolation[i], b->isolation[i]);
    assert_int_equal(a->has_interactor, b->has_interactor);
    if (a->has_interactor)
        assert_proc_equal(&a->interactor, &b->interactor);
    assert_int_equal(a->transcript == NULL, b->transcript == NULL);
    tc_assert_bytes(a->transcript, a->transcript_len, b->transcript, b->transcript_len);
}

/* ---- round trips ----------------------------------------------------------- */

static void test_result_roundtrip(void **state)
{
    char err[Q_ERR_LEN] = "";
    q_result in, out;
    msgpack_sbuffer sb;

    (void)state;
    full_result(&in);
    msgpack_sbuffer_init(&sb);
    assert_int_equal(q_result_encode(&in, &sb, err, sizeof err), 0);
    assert_int_equal(q_result_decode(sb.data, sb.size, &out, err, sizeof err), 0);
    /* Decoding copies: wiping the input must not change the result. */
    memset(sb.data, 0, sb.size);
    assert_result_equal(&in, &out);
    q_result_free(&out);
    msgpack_sbuffer_destroy(&sb);
}

/* The by-reference encoding, pieces concatenated, is byte for byte the
 * copying one: large bodies referenced, small ones copied, in order. */
static void test_result_refs_same_bytes(void **state)
{
    char err[Q_ERR_LEN] = "";
    static char big_out[300000], big_err[5000], small[100];
    for (size_t i = 0; i < sizeof big_out; i++)
        big_out[i] = (char)(i * 31 + 7);
    memset(big_err, 'e', sizeof big_err);
    memset(small, 's', sizeof small);
    q_result in;
    (void)state;
    full_result(&in);
    in.stdout_buf = big_out;
    in.stdout_len = sizeof big_out;
    in.stderr_buf = big_err;
    in.stderr_len = sizeof big_err;
    in.transcript = small;
    in.transcript_len = sizeof small;
    msgpack_sbuffer whole, parts;
    msgpack_sbuffer_init(&whole);
    msgpack_sbuffer_init(&parts);
    q_refs refs;
    assert_int_equal(q_result_encode(&in, &whole, err, sizeof err), 0);
    assert_int_equal(q_result_encode_refs(&in, &parts, &refs, err, sizeof err), 0);
    assert_int_equal(refs.n, 2); /* stdout and stderr; the transcript is small */
    assert_true(parts.size < 2000);
    struct iovec iov[2 * Q_REFS_MAX + 1];
    int k = q_refs_iov(&parts, &refs, iov);
    size_t at = 0;
    for (int i = 0; i < k; i++) {
        assert_true(at + iov[i].iov_len <= whole.size);
        assert_memory_equal(whole.data + at, iov[i].iov_base, iov[i].iov_len);
        at += iov[i].iov_len;
    }
    assert_int_equal(at, whole.size);
    msgpack_sbuffer_destroy(&whole);
    msgpack_sbuffer_destroy(&parts);
}

static void test_result_roundtrip_sparse(void **state)
{
    char err[Q_ERR_LEN] = "";
    q_result in = {.id = "j1", .status = "OK", .worker = "w"}, out;
    msgpack_sbuffer sb;

    (void)state;
    in.transcript = "";
    msgpack_sbuffer_init(&sb);
    assert_int_equal(q_result_encode(&in, &sb, err, sizeof err), 0);
    assert_int_equal(q_result_decode(sb.data, sb.size, &out, err, sizeof err), 0);
    assert_result_equal(&in, &out);
    assert_false(out.has_exit_code);
    assert_false(out.has_signal);
    assert_null(out.error);
    assert_false(out.has_interactor);
    assert_non_null(out.transcript); /* present and empty is not absent */
    q_result_free(&out);
    q_result_free(&in); /* priv is NULL: frees nothing */
    msgpack_sbuffer_destroy(&sb);
}

/* ---- encoding errors ------------------------------------------------------- */

static void test_result_encode_rejects(void **state)
{
    char err[Q_ERR_LEN] = "";
    q_result r;
    msgpack_sbuffer sb;

    (void)state;
    msgpack_sbuffer_init(&sb);
    full_result(&r);
    r.id = NULL;
    assert_int_equal(q_result_encode(&r, &sb, err, sizeof err), -1);
    assert_string_equal(err, "id: NULL");
    full_result(&r);
    r.interactor.status = NULL;
    assert_int_equal(q_result_encode(&r, &sb, err, sizeof err), -1);
    assert_string_equal(err, "interactor.status: NULL");
    full_result(&r);
    r.isolation = (const char *const[]){"pid_ns", NULL};
    r.nisolation = 2;
    assert_int_equal(q_result_encode(&r, &sb, err, sizeof err), -1);
    assert_string_equal(err, "isolation[1]: NULL");
    full_result(&r);
    r.stdout_buf = NULL;
    assert_int_equal(q_result_encode(&r, &sb, err, sizeof err), -1);
    assert_string_equal(err, "stdout: NULL with 13 bytes");
    assert_int_equal(sb.size, 0);
    msgpack_sbuffer_destroy(&sb);
}

/* ---- malformed results ----------------------------------------------------- */

/* A valid result's required keys, to prefix a bad field with. */
#define RES "{id: 'x', status: 'OK', worker: 'w', "

static const struct tc_bad bad_results[] = {
    {"[1]", "result: not a map", NULL},
    {"{}", "id: missing", NULL},
    {"{id: 'x'}", "status: missing", NULL},
    /* Found by fuzz_result: without worker a decoded result could not be
     * encoded again, since the encoder requires one. */
    {"{id: 'x', status: 'OK'}", "worker: missing", NULL},
    {"{id: 'x', status: 'OK', worker: 1}", "worker: not a string", NULL},
    {"{id: 'x', id: 'y', status: 'OK', worker: 'w'}", "result: duplicate key \"id\"", NULL},
    {"{id: 'x\\x00', status: 'OK', worker: 'w'}", "id: contains a NUL byte", NULL},
    {"{id: 'x', status: 1, worker: 'w'}", "status: not a string", NULL},
    {RES "exit_code: 'a'}", "exit_code: not a 64-bit integer or nil", NULL},
    {RES "signal: 18446744073709551615}", "signal: not a 64-bit integer or nil", NULL},
    {RES "stdout: 1}", "stdout: not bytes (bin or str)", NULL},
    {RES "stdout_truncated: 1}", "stdout_truncated: not a boolean", NULL},
    {RES "cpu_us: -1}", "cpu_us: not a non-negative integer", NULL},
    {RES "error: 1}", "error: not a string or nil", NULL},
    {RES "isolation: 'a'}", "isolation: not an array", NULL},
    {RES "isolation: ['a', 1]}", "isolation[1]: not a string", NULL},
    {RES "interactor: 1}", "interactor: not a map", NULL},
    {RES "interactor: {}}", "interactor.status: missing", NULL},
    {RES "interactor: {status: 'OK', cpu_us: -1}}", "interactor.cpu_us: not a non-negative integer",
     NULL},
    {RES "transcript: nil}", "transcript: not bytes (bin or str)", NULL},
};

static void test_bad_results(void **state)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb;
    q_result r;

    (void)state;
    for (size_t i = 0; i < sizeof bad_results / sizeof bad_results[0]; i++) {
        sb = tc_mp(bad_results[i].in);
        if (q_result_decode(sb.data, sb.size, &r, err, sizeof err) != -1 ||
            strcmp(err, bad_results[i].err) != 0)
            fail_msg("%s: got \"%s\", want \"%s\"", bad_results[i].in, err, bad_results[i].err);
        assert_null(r.priv);
        q_result_free(&r);
        msgpack_sbuffer_destroy(&sb);
    }
    assert_int_equal(q_result_decode("\xdd\xff\xff\xff\xff", 5, &r, err, sizeof err), -1);
    assert_string_equal(err,
                        "result: array count 4294967295 at byte 0 exceeds the 0 remaining bytes");
}

/* ---- seed corpus ----------------------------------------------------------- */

static int write_result_corpus(const char *dir)
{
    char err[Q_ERR_LEN] = "";
    q_result r;
    msgpack_sbuffer sb;
    int rc;

    full_result(&r);
    msgpack_sbuffer_init(&sb);
    rc = q_result_encode(&r, &sb, err, sizeof err);
    if (rc == 0)
        rc = tc_write_file(dir, "full", &sb);
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_roundtrip),
        cmocka_unit_test(test_result_refs_same_bytes),
        cmocka_unit_test(test_result_roundtrip_sparse),
        cmocka_unit_test(test_result_encode_rejects),
        cmocka_unit_test(test_bad_results),
    };
    const char *dir = getenv("GRADEQ_WRITE_RESULT_CORPUS");

    if (dir)
        return write_result_corpus(dir) < 0 ? 1 : 0;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
