/* test_job_codec.c -- the job codec: encode and decode.
 *
 * The round trip of a full job, the defaults of a minimal one, every kind of
 * malformed job with the exact error line it must produce (written in the
 * tc_mp notation of codec_fixtures.h, so each case is one table row), the id
 * still reported for a refused job, and what the encoder refuses.
 * Malformed bytes and the prescan under the decoder are in test_prescan.c.
 *
 * With GRADEQ_WRITE_CORPUS=<dir> the binary instead writes seed inputs for
 * fuzz_job into <dir> and exits: the seeds come from the encoder itself, so
 * they stay valid as the codec evolves.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queue/job.h"
#include "queue/prescan.h"
#include "tests/lib/codec_fixtures.h"

/* ---- fixtures -------------------------------------------------------------- */

static const char file_a[] = "int main(void) { return 0; }\n";
static const char file_bin[] = "\x00\xff\xfe\x80 binary \x00";
static const char stdin_bytes[] = "3 4\n\x00\xc3\x28";

static char *job_argv[] = {"./main", "--flag", "", "\xc3\x28", NULL};
static char *iact_argv[] = {"./interactor", "input.txt", NULL};
static char *job_env[] = {"LANG=C.UTF-8", "EMPTY=", "EQ=a=b", NULL};
static q_file job_files[] = {
    {"main.c", file_a, sizeof file_a - 1},
    {"data/in.bin", file_bin, sizeof file_bin - 1},
    {"empty", "", 0},
};
static q_file iact_files[] = {{"input.txt", "1 2 3\n", 6}};

static void full_job(q_job *j)
{
    memset(j, 0, sizeof *j);
    strcpy(j->id, "sub-42:run.1_A");
    j->prog.argv = job_argv;
    j->prog.argc = 4;
    j->prog.files = job_files;
    j->prog.nfiles = 3;
    for (unsigned i = 0; i < Q_LIM_COUNT; i++)
        j->prog.limits[i] = (uint64_t)1000 * (i + 1);
    j->prog.limits[Q_LIM_MEMORY_BYTES] = UINT64_MAX;
    j->prog.limits_present = (1u << Q_LIM_COUNT) - 1;
    j->stdin_data = stdin_bytes;
    j->stdin_len = sizeof stdin_bytes - 1;
    j->has_stdin = true;
    j->env = job_env;
    j->nenv = 3;
    j->network = true;
    j->has_interactor = true;
    j->interactor.argv = iact_argv;
    j->interactor.argc = 2;
    j->interactor.files = iact_files;
    j->interactor.nfiles = 1;
    j->interactor.limits[Q_LIM_CPU_MS] = 500;
    j->interactor.limits_present = 1u << Q_LIM_CPU_MS;
    j->transcript_bytes = 65536;
}

static void minimal_job(q_job *j)
{
    memset(j, 0, sizeof *j);
    strcpy(j->id, "j1");
    j->prog.argv = job_argv;
    j->prog.argc = 1;
}

static msgpack_sbuffer encode_job(const q_job *j)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb;

    msgpack_sbuffer_init(&sb);
    if (q_job_encode(j, &sb, err, sizeof err) != 0)
        fail_msg("q_job_encode: %s", err);
    return sb;
}

/* ---- comparisons ----------------------------------------------------------- */

static void assert_prog_equal(const q_prog *a, const q_prog *b)
{
    assert_int_equal(a->argc, b->argc);
    for (size_t i = 0; i < a->argc; i++)
        assert_string_equal(a->argv[i], b->argv[i]);
    assert_null(b->argv[b->argc]);
    assert_int_equal(a->nfiles, b->nfiles);
    for (size_t i = 0; i < a->nfiles; i++) {
        assert_string_equal(a->files[i].name, b->files[i].name);
        tc_assert_bytes(a->files[i].data, a->files[i].len, b->files[i].data, b->files[i].len);
    }
    assert_int_equal(a->limits_present, b->limits_present);
    for (unsigned i = 0; i < Q_LIM_COUNT; i++)
        if (a->limits_present & (1u << i))
            assert_true(a->limits[i] == b->limits[i]);
}

static void assert_job_equal(const q_job *a, const q_job *b)
{
    assert_true(b->has_id);
    assert_string_equal(a->id, b->id);
    assert_prog_equal(&a->prog, &b->prog);
    assert_int_equal(a->has_stdin, b->has_stdin);
    tc_assert_bytes(a->stdin_data, a->stdin_len, b->stdin_data, b->stdin_len);
    assert_int_equal(a->nenv, b->nenv);
    assert_int_equal(a->env == NULL, b->env == NULL);
    for (size_t i = 0; i < a->nenv; i++)
        assert_string_equal(a->env[i], b->env[i]);
    assert_int_equal(a->network, b->network);
    assert_int_equal(a->has_interactor, b->has_interactor);
    if (a->has_interactor)
        assert_prog_equal(&a->interactor, &b->interactor);
    assert_true(a->transcript_bytes == b->transcript_bytes);
}

/* ---- round trips ----------------------------------------------------------- */

static void test_job_roundtrip(void **state)
{
    char err[Q_ERR_LEN] = "";
    q_job in, out;
    msgpack_sbuffer sb;
    const char *lo, *hi;

    (void)state;
    full_job(&in);
    sb = encode_job(&in);
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &out, err, sizeof err), 0);
    assert_job_equal(&in, &out);
    /* File contents and stdin borrow the input buffer (job.h). */
    lo = sb.data;
    hi = sb.data + sb.size;
    assert_true((const char *)out.prog.files[1].data >= lo &&
                (const char *)out.prog.files[1].data < hi);
    assert_true((const char *)out.stdin_data >= lo && (const char *)out.stdin_data < hi);
    q_job_free(&out);
    msgpack_sbuffer_destroy(&sb);
}

static void test_job_defaults(void **state)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb = tc_mp("{id: 'j1', argv: ['a'], colour: 'blue', 7: 8}");
    q_job j;

    (void)state;
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &j, err, sizeof err), 0);
    assert_string_equal(j.id, "j1");
    assert_int_equal(j.prog.argc, 1);
    assert_string_equal(j.prog.argv[0], "a");
    assert_null(j.prog.argv[1]);
    assert_int_equal(j.prog.nfiles, 0);
    assert_int_equal(j.prog.limits_present, 0);
    assert_false(j.has_stdin);
    assert_null(j.env);
    assert_false(j.network);
    assert_false(j.has_interactor);
    assert_true(j.transcript_bytes == 0);
    q_job_free(&j);
    q_job_free(&j); /* zeroed: a second free is harmless */
    msgpack_sbuffer_destroy(&sb);
}

/* What Python's None and JavaScript's null become is an absent field, in
 * every map; unknown keys are ignored in every map, limits included. */
static void test_job_nil_absent_unknown_ignored(void **state)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb = tc_mp("{id: 'j1', argv: ['a'], stdin: nil, limits: {cpu_ms: 5, wall_ms: nil, gpus: 1},"
                               " env: nil, files: nil, network: nil, transcript_bytes: nil,"
                               " interactor: {argv: ['i'], files: nil, limits: {memory: 1}}}");
    q_job j;

    (void)state;
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &j, err, sizeof err), 0);
    assert_false(j.has_stdin);
    assert_null(j.env);
    assert_int_equal(j.prog.nfiles, 0);
    assert_int_equal(j.prog.limits_present, 1u << Q_LIM_CPU_MS);
    assert_true(j.prog.limits[Q_LIM_CPU_MS] == 5);
    assert_true(j.has_interactor);
    assert_int_equal(j.interactor.limits_present, 0);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&sb);
}

/* {id: 'f', argv: ['a'], limits: {KEY: v}} with v a double. */
static msgpack_sbuffer float_limit_job(const char *key, double v)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    msgpack_pack_str_with_body(&pk, "id", 2);
    msgpack_pack_str_with_body(&pk, "f", 1);
    msgpack_pack_str_with_body(&pk, "argv", 4);
    msgpack_pack_array(&pk, 1);
    msgpack_pack_str_with_body(&pk, "a", 1);
    msgpack_pack_str_with_body(&pk, "limits", 6);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, key, strlen(key));
    msgpack_pack_double(&pk, v);
    return sb;
}

static void test_job_float_limits(void **state)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb = float_limit_job("cpu_ms", 2.5 * 1000);
    q_job j;

    (void)state;
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &j, err, sizeof err), 0);
    assert_true(j.prog.limits[Q_LIM_CPU_MS] == 2500);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&sb);
    const struct { const char *key; double v; } bad[] = {
        { "cpu_ms", 2.5 }, { "memory_bytes", -1.0 }, { "wall_ms", 1e30 }, { "processes", 0.0 / 0.0 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        sb = float_limit_job(bad[i].key, bad[i].v);
        snprintf(want, sizeof want, "limits.%s: not a non-negative integer", bad[i].key);
        tc_expect_job_error(bad[i].key, sb.data, sb.size, NULL, want, "f");
        msgpack_sbuffer_destroy(&sb);
    }
}

static void pack_cstr(msgpack_packer *pk, const char *v)
{
    msgpack_pack_str_with_body(pk, v, strlen(v));
}

/* {id: 'e', argv: ['a', arg x nargs], env: {K: env} (when env),
 *  interactor: {argv: [arg x ninter]} (when ninter)}. */
static msgpack_sbuffer exec_job(const char *arg, int nargs, const char *env, int ninter)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2 + (env != NULL) + (ninter > 0));
    pack_cstr(&pk, "id");
    pack_cstr(&pk, "e");
    pack_cstr(&pk, "argv");
    msgpack_pack_array(&pk, 1 + (size_t)nargs);
    pack_cstr(&pk, "a");
    for (int i = 0; i < nargs; i++)
        pack_cstr(&pk, arg);
    if (env) {
        pack_cstr(&pk, "env");
        msgpack_pack_map(&pk, 1);
        pack_cstr(&pk, "K");
        pack_cstr(&pk, env);
    }
    if (ninter) {
        pack_cstr(&pk, "interactor");
        msgpack_pack_map(&pk, 1);
        pack_cstr(&pk, "argv");
        msgpack_pack_array(&pk, (size_t)ninter);
        for (int i = 0; i < ninter; i++)
            pack_cstr(&pk, arg);
    }
    return sb;
}

/* An argv or env execve could not take is the job's fault, named at once. */
static void test_job_exec_size(void **state)
{
    static char big[Q_EXEC_STRING_MAX + 1];
    msgpack_sbuffer sb;
    char err[Q_ERR_LEN] = "";
    q_job j;

    (void)state;
    memset(big, 'x', Q_EXEC_STRING_MAX);
    big[Q_EXEC_STRING_MAX] = '\0';
    sb = exec_job(big, 1, NULL, 0);
    tc_expect_job_error("one long argument", sb.data, sb.size, NULL,
                        "argv: a string of 131072 bytes exceeds the limit of 131071 per string", "e");
    msgpack_sbuffer_destroy(&sb);
    big[100000] = '\0';
    sb = exec_job(big, 3, NULL, 0);
    tc_expect_job_error("three arguments", sb.data, sb.size, NULL,
                        "argv and env: 301029 bytes (each string with its NUL) exceed the limit of 261120", "e");
    msgpack_sbuffer_destroy(&sb);
    sb = exec_job(big, 0, big, 3);
    tc_expect_job_error("the interactor's argv", sb.data, sb.size, NULL,
                        "interactor.argv and env: 301027 bytes (each string with its NUL) exceed the limit of 261120",
                        "e");
    msgpack_sbuffer_destroy(&sb);
    big[50000] = '\0';
    sb = exec_job(big, 2, big, 0);
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &j, err, sizeof err), 0);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&sb);
}

static void test_job_bin_accepted(void **state)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb = tc_mp("{b'id': b'j1', argv: [b'a'], files: {b'x': 'y'}, stdin: 'in',"
                               " env: {b'K': b'V'}, limits: {b'cpu_ms': 5}}");
    q_job j;

    (void)state;
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &j, err, sizeof err), 0);
    assert_string_equal(j.id, "j1");
    assert_string_equal(j.prog.files[0].name, "x");
    assert_string_equal(j.env[0], "K=V");
    assert_true(j.prog.limits[Q_LIM_CPU_MS] == 5);
    q_job_free(&j);
    msgpack_sbuffer_destroy(&sb);
}

/* ---- malformed jobs -------------------------------------------------------- */

static const struct tc_bad bad_jobs[] = {
    {"[1, 2]", "job: not a map", NULL},
    {"'id'", "job: not a map", NULL},
    {"{argv: ['a']}", "id: missing", NULL},
    {"{id: 5, argv: ['a']}", "id: not a string", NULL},
    {"{id: '', argv: ['a']}", "id: empty", NULL},
    {"{id: 'a b', argv: ['a']}", "id: \"a b\": byte 1 is not one of [A-Za-z0-9._:-]", NULL},
    {"{id: 'a/b', argv: ['a']}", "id: \"a/b\": byte 1 is not one of [A-Za-z0-9._:-]", NULL},
    {"{id: 'x\\x0ay', argv: ['a']}", "id: \"x\\x0ay\": byte 1 is not one of [A-Za-z0-9._:-]",
     NULL},
    {"{id: 'j1', id: 'j2', argv: ['a']}", "job: duplicate key \"id\"", NULL},
    {"{id: 'j1', argv: ['a'], argv: ['b']}", "job: duplicate key \"argv\"", "j1"},
    {"{id: 'j1'}", "argv: missing", "j1"},
    {"{id: 'j1', argv: []}", "argv: empty", "j1"},
    {"{id: 'j1', argv: 'a'}", "argv: not an array", "j1"},
    {"{id: 'j1', argv: ['a', 'b', 3]}", "argv[2]: not a string", "j1"},
    {"{id: 'j1', argv: ['a', nil]}", "argv[1]: not a string", "j1"},
    {"{id: 'j1', argv: ['a', 'b\\x00c']}", "argv[1]: contains a NUL byte", "j1"},
    {"{id: 'j1', argv: ['a'], files: ['x']}", "files: not a map", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'/abs': 'x'}}",
     "files[\"/abs\"]: absolute path escapes /box", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'../x': 'x'}}",
     "files[\"../x\"]: path escapes /box ('..' component)", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a/../b': 'x'}}",
     "files[\"a/../b\"]: path escapes /box ('..' component)", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a/..': 'x'}}",
     "files[\"a/..\"]: path escapes /box ('..' component)", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a//b': 'x'}}",
     "files[\"a//b\"]: empty path component", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a/': 'x'}}", "files[\"a/\"]: empty path component", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'.': 'x'}}", "files[\".\"]: '.' path component", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a/./b': 'x'}}",
     "files[\"a/./b\"]: '.' path component", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'': 'x'}}", "files[\"\"]: empty path", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a\\x00b': 'x'}}",
     "files[\"a\\x00b\"]: path contains a NUL byte", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a': 1}}", "files[\"a\"]: not bytes (str or bin)", "j1"},
    {"{id: 'j1', argv: ['a'], files: {1: 'x'}}", "files: key 0 not a string", "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a': 'x', 'a': 'y'}}", "files[\"a\"]: duplicate path",
     "j1"},
    {"{id: 'j1', argv: ['a'], files: {'a': 'x', 'a-b': 'z', 'a/b': 'y'}}",
     "files[\"a/b\"]: \"a\" is a file, not a directory", "j1"},
    {"{id: 'j1', argv: ['a'], stdin: 1}", "stdin: not bytes (str or bin)", "j1"},
    {"{id: 'j1', argv: ['a'], env: ['x']}", "env: not a map", "j1"},
    {"{id: 'j1', argv: ['a'], env: {'A=B': 'x'}}", "env[\"A=B\"]: key contains '='", "j1"},
    {"{id: 'j1', argv: ['a'], env: {'': 'x'}}", "env[\"\"]: empty key", "j1"},
    {"{id: 'j1', argv: ['a'], env: {'K\\x00': 'x'}}",
     "env[\"K\\x00\"]: key contains a NUL byte", "j1"},
    {"{id: 'j1', argv: ['a'], env: {1: 'x'}}", "env: key 0 not a string", "j1"},
    {"{id: 'j1', argv: ['a'], env: {'K': 1}}", "env[\"K\"]: value not a string", "j1"},
    {"{id: 'j1', argv: ['a'], env: {'K': 'a\\x00'}}",
     "env[\"K\"]: value contains a NUL byte", "j1"},
    {"{id: 'j1', argv: ['a'], env: {'K': 'a', 'L': 'b', 'K': 'c'}}",
     "env[\"K\"]: duplicate key", "j1"},
    {"{id: 'j1', argv: ['a'], limits: [1]}", "limits: not a map", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {cpu_ms: -1}}",
     "limits.cpu_ms: not a non-negative integer", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {wall_ms: '5'}}",
     "limits.wall_ms: not a non-negative integer", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {5: 1}}", "limits: key 0 not a string", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {cpu_ms: 1, cpu_ms: 2}}",
     "limits.cpu_ms: duplicate key", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {cpu_ms: 0}}", "limits.cpu_ms: 0, must be positive", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {memory_bytes: 0}}",
     "limits.memory_bytes: 0, must be positive", "j1"},
    {"{id: 'j1', argv: ['a'], interactor: {argv: ['i'], limits: {open_files: 0}}}",
     "interactor.limits.open_files: 0, must be positive", "j1"},
    {"{id: 'j1', argv: ['a'], stdin: 'x', interactor: {argv: ['i'], files: {input: 'y'}}}",
     "interactor.files[\"input\"]: the job's stdin is placed at \"input\" (give one or the other)", "j1"},
    {"{id: 'j1', argv: ['a'], stdin: '', interactor: {argv: ['i'], files: {'input/x': 'y'}}}",
     "interactor.files[\"input/x\"]: the job's stdin is placed at \"input\" (give one or the other)", "j1"},
    {"{id: 'j1', argv: ['a'], network: 1}", "network: not a boolean", "j1"},
    {"{id: 'j1', argv: ['a'], transcript_bytes: -1}",
     "transcript_bytes: not a non-negative integer", "j1"},
    {"{id: 'j1', argv: ['a'], interactor: ['x']}", "interactor: not a map", "j1"},
    {"{id: 'j1', argv: ['a'], interactor: {}}", "interactor.argv: missing", "j1"},
    {"{id: 'j1', argv: ['a'], interactor: {argv: ['i'], argv: ['j']}}",
     "interactor: duplicate key \"argv\"", "j1"},
    {"{id: 'j1', argv: ['a'], interactor: {argv: ['i', 2]}}",
     "interactor.argv[1]: not a string", "j1"},
    {"{id: 'j1', argv: ['a'], interactor: {argv: ['i'], files: {'../y': 'z'}}}",
     "interactor.files[\"../y\"]: path escapes /box ('..' component)", "j1"},
    {"{id: nil, argv: ['a']}", "id: missing", NULL},
    {"{id: 'j1', argv: nil}", "argv: missing", "j1"},
};

static void test_bad_jobs(void **state)
{
    msgpack_sbuffer sb;

    (void)state;
    for (size_t i = 0; i < sizeof bad_jobs / sizeof bad_jobs[0]; i++) {
        sb = tc_mp(bad_jobs[i].in);
        tc_expect_job_error(bad_jobs[i].in, sb.data, sb.size, NULL, bad_jobs[i].err,
                            bad_jobs[i].id);
        msgpack_sbuffer_destroy(&sb);
    }
}

static void test_bad_job_lengths(void **state)
{
    char id[Q_ID_MAX + 2], path[Q_PATH_MAX + 2], in[4096], want[Q_ERR_LEN], dir[4 * 200 + 1];
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb;
    q_job j;

    (void)state;
    memset(id, 'i', sizeof id - 1);
    id[sizeof id - 1] = '\0';
    (void)snprintf(in, sizeof in, "{id: '%s', argv: ['a']}", id);
    sb = tc_mp(in);
    tc_expect_job_error("129-byte id", sb.data, sb.size, NULL,
                        "id: 129 bytes exceeds the 128-byte limit", NULL);
    msgpack_sbuffer_destroy(&sb);

    id[Q_ID_MAX] = '\0'; /* exactly 128: fine */
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = '\0'; /* 256 bytes */
    (void)snprintf(in, sizeof in, "{id: '%s', argv: ['a'], files: {'%s': ''}}", id, path);
    (void)snprintf(want, sizeof want, "files[\"%.24s...\"]: path over 255 bytes", path);
    sb = tc_mp(in);
    tc_expect_job_error("256-byte path", sb.data, sb.size, NULL, want, id);
    msgpack_sbuffer_destroy(&sb);

    /* The longest line there is: two escaped paths, still one whole line. */
    for (int i = 0; i < 200; i++)
        memcpy(dir + 4 * i, "\\x01", 4);
    dir[4 * 200] = '\0';
    (void)snprintf(in, sizeof in, "{id: 'j', argv: ['a'], interactor: {argv: ['b'], "
                   "files: {'%s\\x01': '', '%s\\x01/x': ''}}}", dir, dir);
    sb = tc_mp(in);
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &j, err, sizeof err), -1);
    assert_true(strlen(err) < sizeof err - 1);
    assert_non_null(strstr(err, "...\" is a file, not a directory"));
    q_job_free(&j);
    msgpack_sbuffer_destroy(&sb);
}

static void test_bad_job_counts(void **state)
{
    q_bounds b;
    msgpack_sbuffer sb;

    (void)state;
    q_bounds_default(&b);
    b.max_argv = 2;
    b.max_files = 1;
    b.max_env = 1;
    sb = tc_mp("{id: 'j1', argv: ['a', 'b', 'c']}");
    tc_expect_job_error("max_argv", sb.data, sb.size, &b, "argv: 3 elements exceeds the limit of 2",
                        "j1");
    msgpack_sbuffer_destroy(&sb);
    sb = tc_mp("{id: 'j1', argv: ['a'], interactor: {argv: ['a'], files: {x: '', y: ''}}}");
    tc_expect_job_error("max_files", sb.data, sb.size, &b,
                        "interactor.files: 2 entries exceeds the limit of 1",
                        "j1");
    msgpack_sbuffer_destroy(&sb);
    sb = tc_mp("{id: 'j1', argv: ['a'], env: {A: '', B: ''}}");
    tc_expect_job_error("max_env", sb.data, sb.size, &b, "env: 2 entries exceeds the limit of 1",
                        "j1");
    msgpack_sbuffer_destroy(&sb);
}

/* ---- the id of a refused job ----------------------------------------------- */

static void test_id_kept_on_bad_job(void **state)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb = tc_mp("{argv: [1], id: 'job-7'}");
    q_job j;

    (void)state;
    assert_int_equal(q_job_decode(sb.data, sb.size, NULL, &j, err, sizeof err), -1);
    assert_string_equal(err, "argv[0]: not a string");
    assert_true(j.has_id);
    assert_string_equal(j.id, "job-7");
    q_job_free(&j);
    assert_false(j.has_id);
    msgpack_sbuffer_destroy(&sb);
}

/* Regression: bytes the prescan refuses were dead-lettered even when the id
 * came whole before the refused object; the contract answers a bad job
 * under its id whenever the id can be read. The id is looked for only in
 * the top-level map's entries before the refused object, by the decoder's
 * id rule (valid, and given once). */
static void test_id_on_prescan_failure(void **state)
{
    /* {"id": "bad2", "argv": <array header claiming 4294967295 elements>} */
    static const char bad2[] = "\x82\xa2id\xa4" "bad2" "\xa4" "argv\xdd\xff\xff\xff\xff";
    static const char *const bad2_err =
        "job: array count 4294967295 at byte 14 exceeds the 0 remaining bytes";
    static const struct {
        const char *label, *in;
        size_t len;
        const char *err, *id;
    } cases[] = {
#define CASE(label, in, err, id) {label, in, sizeof in - 1, err, id}
        CASE("id after the bad field", "\x82\xa4" "argv\xdd\xff\xff\xff\xff\xa2id\xa4" "bad2",
             "job: array count 4294967295 at byte 6 exceeds the 8 remaining bytes", NULL),
        CASE("duplicate id", "\x83\xa2id\xa2j1\xa2id\xa2j2\xa4" "argv\xdd\xff\xff\xff\xff",
             "job: array count 4294967295 at byte 18 exceeds the 0 remaining bytes", NULL),
        CASE("second id's value refused", "\x82\xa2id\xa2j1\xa2id\xdb\x7f\xff\xff\xff",
             "job: str of 2147483647 bytes at byte 10 exceeds the 0 remaining bytes", NULL),
        CASE("id's own value refused", "\x81\xa2id\xa5j1",
             "job: str of 5 bytes at byte 4 exceeds the 2 remaining bytes", NULL),
        CASE("id as bin, key as bin", "\x82\xc4\x02id\xc4\x02j1\xa4" "argv\xdd\xff\xff\xff\xff",
             "job: array count 4294967295 at byte 14 exceeds the 0 remaining bytes", "j1"),
        CASE("id not valid", "\x82\xa2id\xa3" "a b\xa4" "argv\xdd\xff\xff\xff\xff",
             "job: array count 4294967295 at byte 13 exceeds the 0 remaining bytes", NULL),
        CASE("id not a string", "\x82\xa2id\x05\xa4" "argv\xdd\xff\xff\xff\xff",
             "job: array count 4294967295 at byte 10 exceeds the 0 remaining bytes", NULL),
        CASE("trailing bytes", "\x82\xa2id\xa2j1\xa4" "argv\x91\xa1x\xc0",
             "job: trailing bytes after the object (byte 15 of 16)", "j1"),
        CASE("not a map", "\x93\xa2id\xa2j1\xdd\xff\xff\xff\xff",
             "job: array count 4294967295 at byte 7 exceeds the 0 remaining bytes", NULL),
        CASE("map refused at its header", "\x84\xa2id\xa2j1",
             "job: map count 4 (8 keys and values) at byte 0 exceeds the 6 remaining bytes",
             NULL),
        CASE("not msgpack", "\xc1\xa2id\xa2j1", "job: not msgpack (type byte 0xc1 at byte 0)",
             NULL),
#undef CASE
    };
    static const char two_args[] = "\x82\xa2id\xa2j1\xa4" "argv\x92\xa1x\xa1y";
    struct mallinfo2 before, after;
    unsigned char deep[64];
    q_bounds b;

    (void)state;
    before = mallinfo2();
    tc_expect_job_error("bad2", bad2, sizeof bad2 - 1, NULL, bad2_err, "bad2");
    after = mallinfo2(); /* the walk allocates nothing */
    assert_true(after.hblkhd <= before.hblkhd && after.uordblks <= before.uordblks);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        tc_expect_job_error(cases[i].label, cases[i].in, cases[i].len, NULL, cases[i].err,
                            cases[i].id);

    /* The walk applies the same bounds: refused by depth or object count
     * after the id, the id is read; the size limit comes first, so no id. */
    memcpy(deep, "\x82\xa2id\xa2j1\xa4" "argv", 12);
    memset(deep + 12, 0x91, sizeof deep - 13);
    deep[sizeof deep - 1] = 0xc0;
    tc_expect_job_error("too deep", deep, sizeof deep, NULL,
                        "job: nesting deeper than 16 at byte 27", "j1");
    q_bounds_default(&b);
    b.max_objects = 5;
    tc_expect_job_error("too many objects", two_args, sizeof two_args - 1, &b,
                        "job: more than 5 objects (at byte 12)", "j1");
    b.max_objects = 1000;
    b.max_job_bytes = sizeof two_args - 2;
    tc_expect_job_error("too big", two_args, sizeof two_args - 1, &b,
                        "job: 17 bytes exceeds the 16-byte limit", NULL);
}

/* ---- encoding errors ------------------------------------------------------- */

static void test_job_encode_rejects(void **state)
{
    char err[Q_ERR_LEN] = "";
    char *env[] = {"NOEQUALS", NULL};
    q_file bad_file = {"../x", "", 0};
    msgpack_sbuffer sb;
    q_job j;

    (void)state;
    msgpack_sbuffer_init(&sb);
    assert_int_equal(msgpack_sbuffer_write(&sb, "keep", 4), 0);
    minimal_job(&j);
    j.prog.files = &bad_file;
    j.prog.nfiles = 1;
    assert_int_equal(q_job_encode(&j, &sb, err, sizeof err), -1);
    assert_string_equal(err, "files[\"../x\"]: path escapes /box ('..' component)");
    assert_int_equal(sb.size, 4);

    minimal_job(&j);
    j.env = env;
    j.nenv = 1;
    assert_int_equal(q_job_encode(&j, &sb, err, sizeof err), -1);
    assert_string_equal(err, "env[0]: not a \"NAME=value\" string");

    minimal_job(&j);
    j.id[0] = '\0';
    assert_int_equal(q_job_encode(&j, &sb, err, sizeof err), -1);
    assert_string_equal(err, "id: empty");

    minimal_job(&j);
    j.prog.argc = 0;
    assert_int_equal(q_job_encode(&j, &sb, err, sizeof err), -1);
    assert_string_equal(err, "argv: empty");

    minimal_job(&j);
    j.prog.argc = 2;
    j.prog.argv = iact_argv + 1; /* "input.txt", NULL */
    assert_int_equal(q_job_encode(&j, &sb, err, sizeof err), -1);
    assert_string_equal(err, "argv[1]: NULL");

    minimal_job(&j);
    j.has_stdin = true;
    j.stdin_len = 3;
    assert_int_equal(q_job_encode(&j, &sb, err, sizeof err), -1);
    assert_string_equal(err, "stdin: NULL with 3 bytes");
    assert_int_equal(sb.size, 4);
    msgpack_sbuffer_destroy(&sb);
}

/* ---- seed corpus ----------------------------------------------------------- */

static int write_job_corpus(const char *dir)
{
    static const char *const notations[] = {
        "{id: 'j1', argv: ['./a.out']}",
        "{id: 'c.hello', argv: ['/usr/bin/gcc', 'main.c'], files: {'main.c': 'int main(){}'},"
        " limits: {cpu_ms: 1000, memory_bytes: 268435456}, network: false}",
        "{id: 'env:1', argv: ['sh', '-c', 'echo $X'], env: {X: 'y', LANG: 'C'},"
        " stdin: b'\\x00\\xff', transcript_bytes: 4096, colour: [1, {a: nil}]}",
    };
    char name[32];
    msgpack_sbuffer sb;
    q_job j;
    int rc = 0;

    full_job(&j);
    sb = encode_job(&j);
    rc |= tc_write_file(dir, "full", &sb);
    msgpack_sbuffer_destroy(&sb);
    for (size_t i = 0; i < sizeof notations / sizeof notations[0]; i++) {
        sb = tc_mp(notations[i]);
        (void)snprintf(name, sizeof name, "seed-%zu", i + 1);
        rc |= tc_write_file(dir, name, &sb);
        msgpack_sbuffer_destroy(&sb);
    }
    return rc;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_roundtrip),
        cmocka_unit_test(test_job_defaults),
        cmocka_unit_test(test_job_bin_accepted),
        cmocka_unit_test(test_job_nil_absent_unknown_ignored),
        cmocka_unit_test(test_job_float_limits),
        cmocka_unit_test(test_job_exec_size),
        cmocka_unit_test(test_bad_jobs),
        cmocka_unit_test(test_bad_job_lengths),
        cmocka_unit_test(test_bad_job_counts),
        cmocka_unit_test(test_id_kept_on_bad_job),
        cmocka_unit_test(test_id_on_prescan_failure),
        cmocka_unit_test(test_job_encode_rejects),
    };
    const char *dir = getenv("GRADEQ_WRITE_CORPUS");

    if (dir)
        return write_job_corpus(dir) < 0 ? 1 : 0;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
