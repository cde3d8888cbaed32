/* test_codec.c -- the job and result codecs and the prescan under them.
 *
 * Round trips of a full job and a full result, then every kind of malformed
 * input with the exact error line it must produce. Malformed jobs are
 * written in a compact notation (see mp()) so each case is one table row.
 *
 * With GRADEQ_WRITE_CORPUS=<dir> (and/or GRADEQ_WRITE_RESULT_CORPUS=<dir>)
 * the binary instead writes seed inputs for the fuzzers and exits: the seeds
 * come from the encoder itself, so they stay valid as the codec evolves.
 */
#include <ctype.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "queue/job.h"
#include "queue/prescan.h"
#include "queue/result.h"

/* ---- mp: msgpack from a compact notation ---------------------------------
 *   {k v k v}  map       [v v]  array      'text'  str     b'text'  bin
 *   12  -5     integers  true false nil    bare words are str
 * Commas and colons are whitespace, so {id: 'j1', argv: ['a']} reads well.
 * Inside quotes: \xNN, \' and \\ escapes. */

static void mp_value(const char **s, msgpack_packer *pk);

static void mp_skip(const char **s)
{
    while (**s == ' ' || **s == ',' || **s == ':')
        (*s)++;
}

static void mp_container(const char **s, msgpack_packer *pk)
{
    char close = **s == '{' ? '}' : ']';
    msgpack_sbuffer body;
    msgpack_packer bpk;
    size_t n = 0;

    msgpack_sbuffer_init(&body);
    msgpack_packer_init(&bpk, &body, msgpack_sbuffer_write);
    for ((*s)++, mp_skip(s); **s != close; mp_skip(s), n++) {
        if (**s == '\0')
            fail_msg("unclosed %c", close);
        mp_value(s, &bpk);
    }
    (*s)++;
    if (close == '}') {
        assert_int_equal(n % 2, 0);
        assert_int_equal(msgpack_pack_map(pk, n / 2), 0);
    } else {
        assert_int_equal(msgpack_pack_array(pk, n), 0);
    }
    assert_int_equal(pk->callback(pk->data, body.data, body.size), 0);
    msgpack_sbuffer_destroy(&body);
}

static void mp_quoted(const char **s, msgpack_packer *pk, bool bin)
{
    char buf[1024];
    size_t n = 0;
    unsigned x;

    for ((*s)++; **s != '\''; n++) {
        assert_true(**s != '\0' && n < sizeof buf);
        if (**s == '\\' && (*s)[1] == 'x') {
            assert_int_equal(sscanf(*s + 2, "%2x", &x), 1);
            buf[n] = (char)x;
            *s += 4;
        } else {
            if (**s == '\\')
                (*s)++;
            buf[n] = *(*s)++;
        }
    }
    (*s)++;
    if (bin)
        assert_int_equal(msgpack_pack_bin_with_body(pk, buf, n), 0);
    else
        assert_int_equal(msgpack_pack_str_with_body(pk, buf, n), 0);
}

static void mp_word(const char **s, msgpack_packer *pk);

static void mp_value(const char **s, msgpack_packer *pk)
{
    const char *w;
    char *end;

    mp_skip(s);
    w = *s;
    if (*w == '{' || *w == '[') {
        mp_container(s, pk);
    } else if (*w == '\'' || (w[0] == 'b' && w[1] == '\'')) {
        *s += *w == 'b';
        mp_quoted(s, pk, *w == 'b');
    } else if (*w == '-') {
        assert_int_equal(msgpack_pack_int64(pk, strtoll(w, &end, 10)), 0);
        *s = end;
    } else if (isdigit((unsigned char)*w)) {
        assert_int_equal(msgpack_pack_uint64(pk, strtoull(w, &end, 10)), 0);
        *s = end;
    } else {
        mp_word(s, pk);
    }
}

/* A bare word: true, false, nil, or a str. */
static void mp_word(const char **s, msgpack_packer *pk)
{
    const char *w = *s;

    while (isalnum((unsigned char)**s) || **s == '_' || **s == '.')
        (*s)++;
    if (*s == w)
        fail_msg("bad notation at \"%s\"", w);
    if (*s - w == 4 && !memcmp(w, "true", 4))
        assert_int_equal(msgpack_pack_true(pk), 0);
    else if (*s - w == 5 && !memcmp(w, "false", 5))
        assert_int_equal(msgpack_pack_false(pk), 0);
    else if (*s - w == 3 && !memcmp(w, "nil", 3))
        assert_int_equal(msgpack_pack_nil(pk), 0);
    else
        assert_int_equal(msgpack_pack_str_with_body(pk, w, (size_t)(*s - w)), 0);
}

/* The caller destroys the buffer. */
static msgpack_sbuffer mp(const char *notation)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    const char *s = notation;

    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    mp_value(&s, &pk);
    mp_skip(&s);
    assert_int_equal(*s, '\0');
    return sb;
}

/* ---- fixtures -------------------------------------------------------------- */

static const char file_a[] = "int main(void) { return 0; }\n";
static const char file_bin[] = "\x00\xff\xfe\x80 binary \x00";
static const char stdin_bytes[] = "3 4\n\x00\xc3\x28";
static const char stdout_bytes[] = "\x00\xff\xfe\xc3\x28 ok \xed\xa0\x80\x00";

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

static void assert_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
    assert_int_equal(alen, blen);
    if (alen)
        assert_memory_equal(a, b, alen);
}

static void assert_prog_equal(const q_prog *a, const q_prog *b)
{
    assert_int_equal(a->argc, b->argc);
    for (size_t i = 0; i < a->argc; i++)
        assert_string_equal(a->argv[i], b->argv[i]);
    assert_null(b->argv[b->argc]);
    assert_int_equal(a->nfiles, b->nfiles);
    for (size_t i = 0; i < a->nfiles; i++) {
        assert_string_equal(a->files[i].name, b->files[i].name);
        assert_bytes(a->files[i].data, a->files[i].len, b->files[i].data, b->files[i].len);
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
    assert_bytes(a->stdin_data, a->stdin_len, b->stdin_data, b->stdin_len);
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

static void assert_proc_equal(const q_proc_result *a, const q_proc_result *b)
{
    assert_string_equal(a->status, b->status);
    assert_int_equal(a->has_exit_code, b->has_exit_code);
    if (a->has_exit_code)
        assert_true(a->exit_code == b->exit_code);
    assert_int_equal(a->has_signal, b->has_signal);
    if (a->has_signal)
        assert_true(a->signal == b->signal);
    assert_bytes(a->stderr_buf, a->stderr_len, b->stderr_buf, b->stderr_len);
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
    assert_bytes(a->stdout_buf, a->stdout_len, b->stdout_buf, b->stdout_len);
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
    assert_bytes(a->transcript, a->transcript_len, b->transcript, b->transcript_len);
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
    msgpack_sbuffer sb = mp("{id: 'j1', argv: ['a'], colour: 'blue', 7: 8}");
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

static void test_job_bin_accepted(void **state)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb = mp("{b'id': b'j1', argv: [b'a'], files: {b'x': 'y'}, stdin: 'in',"
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

/* ---- malformed jobs -------------------------------------------------------- */

struct bad {
    const char *in;  /* mp notation */
    const char *err; /* the exact line */
    const char *id;  /* the id still reported, or NULL */
};

static const struct bad bad_jobs[] = {
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
    {"{id: 'j1', argv: ['a'], limits: {open_files: nil}}",
     "limits.open_files: not a non-negative integer", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {cpu: 1}}", "limits[\"cpu\"]: unknown limit", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {5: 1}}", "limits: key 0 not a string", "j1"},
    {"{id: 'j1', argv: ['a'], limits: {cpu_ms: 1, cpu_ms: 2}}",
     "limits.cpu_ms: duplicate key", "j1"},
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
    {"{id: 'j1', argv: ['a'], interactor: {argv: ['i'], limits: {memory: 1}}}",
     "interactor.limits[\"memory\"]: unknown limit", "j1"},
};

/* label names the case in a failure message. */
static void expect_job_error(const char *label, const void *buf, size_t len, const q_bounds *b,
                             const char *want, const char *id)
{
    char err[Q_ERR_LEN] = "";
    q_job j;
    int rc = q_job_decode(buf, len, b, &j, err, sizeof err);

    if (rc != -1 || strcmp(err, want) != 0)
        fail_msg("%s: got rc %d \"%s\", want \"%s\"", label, rc, err, want);
    assert_int_equal(j.has_id, id != NULL);
    if (id)
        assert_string_equal(j.id, id);
    assert_null(j.prog.argv);
    assert_null(j.env);
    q_job_free(&j);
}

static void test_bad_jobs(void **state)
{
    msgpack_sbuffer sb;

    (void)state;
    for (size_t i = 0; i < sizeof bad_jobs / sizeof bad_jobs[0]; i++) {
        sb = mp(bad_jobs[i].in);
        expect_job_error(bad_jobs[i].in, sb.data, sb.size, NULL, bad_jobs[i].err, bad_jobs[i].id);
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
    sb = mp(in);
    expect_job_error("129-byte id", sb.data, sb.size, NULL,
                     "id: 129 bytes exceeds the 128-byte limit", NULL);
    msgpack_sbuffer_destroy(&sb);

    id[Q_ID_MAX] = '\0'; /* exactly 128: fine */
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = '\0'; /* 256 bytes */
    (void)snprintf(in, sizeof in, "{id: '%s', argv: ['a'], files: {'%s': ''}}", id, path);
    (void)snprintf(want, sizeof want, "files[\"%.24s...\"]: path over 255 bytes", path);
    sb = mp(in);
    expect_job_error("256-byte path", sb.data, sb.size, NULL, want, id);
    msgpack_sbuffer_destroy(&sb);

    /* The longest line there is: two escaped paths, still one whole line. */
    for (int i = 0; i < 200; i++)
        memcpy(dir + 4 * i, "\\x01", 4);
    dir[4 * 200] = '\0';
    (void)snprintf(in, sizeof in, "{id: 'j', argv: ['a'], interactor: {argv: ['b'], "
                   "files: {'%s\\x01': '', '%s\\x01/x': ''}}}", dir, dir);
    sb = mp(in);
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
    sb = mp("{id: 'j1', argv: ['a', 'b', 'c']}");
    expect_job_error("max_argv", sb.data, sb.size, &b, "argv: 3 elements exceeds the limit of 2",
                     "j1");
    msgpack_sbuffer_destroy(&sb);
    sb = mp("{id: 'j1', argv: ['a'], interactor: {argv: ['a'], files: {x: '', y: ''}}}");
    expect_job_error("max_files", sb.data, sb.size, &b,
                     "interactor.files: 2 entries exceeds the limit of 1",
                     "j1");
    msgpack_sbuffer_destroy(&sb);
    sb = mp("{id: 'j1', argv: ['a'], env: {A: '', B: ''}}");
    expect_job_error("max_env", sb.data, sb.size, &b, "env: 2 entries exceeds the limit of 1",
                     "j1");
    msgpack_sbuffer_destroy(&sb);
}

/* ---- malformed bytes ------------------------------------------------------- */

static void test_not_msgpack(void **state)
{
    (void)state;
    expect_job_error("0xc1", "\xc1", 1, NULL, "job: not msgpack (type byte 0xc1 at byte 0)", NULL);
    expect_job_error("empty", "", 0, NULL, "job: not msgpack (truncated at byte 0 of 0)", NULL);
    expect_job_error("short uint16", "\xcd\x01", 2, NULL,
                     "job: not msgpack (truncated at byte 0 of 2)", NULL);
    /* JSON: '{' is a positive fixint, so one object and then trailing bytes. */
    expect_job_error("json", "{\"id\": \"j1\"}", 12, NULL,
                     "job: trailing bytes after the object (byte 1 of 12)", NULL);
}

static void test_truncated(void **state)
{
    char err[Q_ERR_LEN], want[Q_ERR_LEN];
    q_job j;
    msgpack_sbuffer sb = mp("{id: 'j1', argv: ['a'], files: {f: 'xyz'}, network: true}");

    (void)state;
    /* The last byte is `true`: without it the map lacks a value. */
    (void)snprintf(want, sizeof want, "job: not msgpack (truncated at byte %zu of %zu)",
                   sb.size - 1, sb.size - 1);
    /* id, argv and files came whole before the cut: the id is still read. */
    expect_job_error("last byte cut", sb.data, sb.size - 1, NULL, want, "j1");
    /* Every shorter prefix fails too, with a job: line. */
    for (size_t n = 0; n < sb.size; n++) {
        assert_int_equal(q_job_decode(sb.data, n, NULL, &j, err, sizeof err), -1);
        assert_memory_equal(err, "job: ", 5);
        q_job_free(&j);
    }
    msgpack_sbuffer_destroy(&sb);
}

static void test_trailing_bytes(void **state)
{
    char want[Q_ERR_LEN];
    msgpack_sbuffer sb = mp("{id: 'j1', argv: ['a']}");
    size_t n = sb.size;

    (void)state;
    assert_int_equal(msgpack_sbuffer_write(&sb, "\xc0", 1), 0);
    (void)snprintf(want, sizeof want, "job: trailing bytes after the object (byte %zu of %zu)",
                   n, n + 1);
    expect_job_error("trailing nil", sb.data, sb.size, NULL, want, "j1");
    msgpack_sbuffer_destroy(&sb);
}

static void test_deep_nesting(void **state)
{
    unsigned char deep[1001];

    (void)state;
    memset(deep, 0x91, 1000); /* [[[[...nil...]]]] */
    deep[1000] = 0xc0;
    expect_job_error("arrays", deep, sizeof deep, NULL, "job: nesting deeper than 16 at byte 16",
                     NULL);
    memset(deep, 0x81, 1000); /* {{{{...}}}}: a map key that is a map */
    expect_job_error("maps", deep, sizeof deep, NULL, "job: nesting deeper than 16 at byte 16",
                     NULL);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;

    assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t1), 0);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* A 5-byte header claiming 4 billion elements would make msgpack-c ask for
 * ~100 GB; the prescan must refuse it without allocating anything. */
static void test_huge_count_header(void **state)
{
    static const char *const headers[] = {"\xdd\xff\xff\xff\xff", "\xdf\xff\xff\xff\xff"};
    static const char *const wants[] = {
        "job: array count 4294967295 at byte 0 exceeds the 0 remaining bytes",
        "job: map count 4294967295 (8589934590 keys and values) at byte 0 exceeds the 0 "
        "remaining bytes",
    };
    static const char inner[] = "\x82\xa2id\xa2j1\xa4" "argv\xdd\xff\xff\xff\xff\xa1x";
    struct timespec t0;
    struct mallinfo2 before, after;

    (void)state;
    for (int i = 0; i < 2; i++) {
        before = mallinfo2();
        assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t0), 0);
        expect_job_error(wants[i], headers[i], 5, NULL, wants[i], NULL);
        assert_true(seconds_since(&t0) < 0.1);
        after = mallinfo2();
        assert_true(after.hblkhd <= before.hblkhd && after.uordblks <= before.uordblks);
    }
    expect_job_error("inside a job", inner, sizeof inner - 1, NULL,
                     "job: array count 4294967295 at byte 12 exceeds the 2 remaining bytes",
                     "j1");
    /* 3 entries fit in 5 bytes as a count, but 6 keys and values do not. */
    expect_job_error("small map", "\x83\x01\x02\x03\x04\x05", 6, NULL,
                     "job: map count 3 (6 keys and values) at byte 0 exceeds the 5 remaining "
                     "bytes", NULL);
}

static void test_huge_length_header(void **state)
{
    (void)state;
    expect_job_error("str32", "\xdb\x7f\xff\xff\xff" "abc", 8, NULL,
                     "job: str of 2147483647 bytes at byte 0 exceeds the 3 remaining bytes",
                     NULL);
    expect_job_error("bin32", "\x91\xc6\xff\xff\xff\xff", 6, NULL,
                     "job: bin of 4294967295 bytes at byte 1 exceeds the 0 remaining bytes",
                     NULL);
    expect_job_error("ext32", "\xc9\x00\x00\x00\x09\x01" "abc", 9, NULL,
                     "job: ext of 9 bytes at byte 0 exceeds the 3 remaining bytes", NULL);
    expect_job_error("fixstr", "\xa5" "abc", 4, NULL,
                     "job: str of 5 bytes at byte 0 exceeds the 3 remaining bytes", NULL);
}

static void test_job_too_big(void **state)
{
    size_t len = 70000000;
    char *big = calloc(len, 1);

    (void)state;
    assert_non_null(big);
    expect_job_error("70 MB", big, len, NULL, "job: 70000000 bytes exceeds the 67108864-byte limit",
                     NULL);
    free(big);
}

static void test_prescan_bounds(void **state)
{
    char err[Q_ERR_LEN] = "";
    q_bounds b;
    msgpack_sbuffer sb = mp("{id: 'j1', argv: ['a', 'b', 'c', 'd', 'e', 'f']}");

    (void)state;
    q_bounds_default(&b);
    assert_int_equal(q_prescan(sb.data, sb.size, &b, err, sizeof err), 0);
    b.max_objects = 10;
    assert_int_equal(q_prescan(sb.data, sb.size, &b, err, sizeof err), -1);
    assert_string_equal(err, "more than 10 objects (at byte 12)");
    b.max_objects = 11; /* the map, 2 keys, 2 values, 6 elements */
    assert_int_equal(q_prescan(sb.data, sb.size, &b, err, sizeof err), 0);
    b.max_depth = 1;
    assert_int_equal(q_prescan(sb.data, sb.size, &b, err, sizeof err), -1);
    assert_string_equal(err, "nesting deeper than 1 at byte 12");
    b.max_objects = 0;
    assert_int_equal(q_prescan(sb.data, sb.size, &b, err, sizeof err), -1);
    assert_string_equal(err, "more than 0 objects (at byte 0)");
    b.max_depth = Q_DEPTH_MAX + 1;
    assert_int_equal(q_prescan(sb.data, sb.size, &b, err, sizeof err), -1);
    assert_string_equal(err, "bounds: max_depth 33 exceeds 32");
    msgpack_sbuffer_destroy(&sb);
}

/* Q_DEPTH_MAX is exactly what msgpack-c's fixed stack takes: the deepest
 * input the prescan can let through unpacks, one level more does not. */
static void test_depth_limit_matches_msgpack(void **state)
{
    char err[Q_ERR_LEN] = "";
    unsigned char deep[Q_DEPTH_MAX + 1];
    msgpack_unpacked up;
    size_t off = 0;
    q_bounds b;

    (void)state;
    q_bounds_default(&b);
    b.max_depth = Q_DEPTH_MAX;
    memset(deep, 0x91, Q_DEPTH_MAX - 1);
    deep[Q_DEPTH_MAX - 1] = 0x90; /* the innermost is empty, and still counts */
    if (q_unpack(deep, Q_DEPTH_MAX, &b, &up, err, sizeof err) != 0)
        fail_msg("%s", err);
    msgpack_unpacked_destroy(&up);

    memset(deep, 0x91, Q_DEPTH_MAX);
    deep[Q_DEPTH_MAX] = 0x90;
    assert_int_equal(q_prescan(deep, sizeof deep, &b, err, sizeof err), -1);
    assert_string_equal(err, "nesting deeper than 32 at byte 32");
    msgpack_unpacked_init(&up);
    assert_int_equal(msgpack_unpack_next(&up, (const char *)deep, sizeof deep, &off),
                     MSGPACK_UNPACK_NOMEM_ERROR);
    msgpack_unpacked_destroy(&up);
}

static void test_id_kept_on_bad_job(void **state)
{
    char err[Q_ERR_LEN] = "";
    msgpack_sbuffer sb = mp("{argv: [1], id: 'job-7'}");
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
    expect_job_error("bad2", bad2, sizeof bad2 - 1, NULL, bad2_err, "bad2");
    after = mallinfo2(); /* the walk allocates nothing */
    assert_true(after.hblkhd <= before.hblkhd && after.uordblks <= before.uordblks);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_job_error(cases[i].label, cases[i].in, cases[i].len, NULL, cases[i].err,
                         cases[i].id);

    /* The walk applies the same bounds: refused by depth or object count
     * after the id, the id is read; the size limit comes first, so no id. */
    memcpy(deep, "\x82\xa2id\xa2j1\xa4" "argv", 12);
    memset(deep + 12, 0x91, sizeof deep - 13);
    deep[sizeof deep - 1] = 0xc0;
    expect_job_error("too deep", deep, sizeof deep, NULL, "job: nesting deeper than 16 at byte 27",
                     "j1");
    q_bounds_default(&b);
    b.max_objects = 5;
    expect_job_error("too many objects", two_args, sizeof two_args - 1, &b,
                     "job: more than 5 objects (at byte 12)", "j1");
    b.max_objects = 1000;
    b.max_job_bytes = sizeof two_args - 2;
    expect_job_error("too big", two_args, sizeof two_args - 1, &b,
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

static const struct bad bad_results[] = {
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
        sb = mp(bad_results[i].in);
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

static int write_file(const char *dir, const char *name, const msgpack_sbuffer *sb)
{
    char path[4096];
    FILE *f;
    int rc;

    (void)snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return -1;
    }
    rc = fwrite(sb->data, 1, sb->size, f) == sb->size ? 0 : -1;
    if (fclose(f) != 0 || rc < 0) {
        perror(path);
        return -1;
    }
    return 0;
}

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
    rc |= write_file(dir, "full", &sb);
    msgpack_sbuffer_destroy(&sb);
    for (size_t i = 0; i < sizeof notations / sizeof notations[0]; i++) {
        sb = mp(notations[i]);
        (void)snprintf(name, sizeof name, "seed-%zu", i + 1);
        rc |= write_file(dir, name, &sb);
        msgpack_sbuffer_destroy(&sb);
    }
    return rc;
}

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
        rc = write_file(dir, "full", &sb);
    msgpack_sbuffer_destroy(&sb);
    return rc;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_roundtrip),
        cmocka_unit_test(test_job_defaults),
        cmocka_unit_test(test_job_bin_accepted),
        cmocka_unit_test(test_result_roundtrip),
        cmocka_unit_test(test_result_refs_same_bytes),
        cmocka_unit_test(test_result_roundtrip_sparse),
        cmocka_unit_test(test_bad_jobs),
        cmocka_unit_test(test_bad_job_lengths),
        cmocka_unit_test(test_bad_job_counts),
        cmocka_unit_test(test_not_msgpack),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_trailing_bytes),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_huge_count_header),
        cmocka_unit_test(test_huge_length_header),
        cmocka_unit_test(test_job_too_big),
        cmocka_unit_test(test_prescan_bounds),
        cmocka_unit_test(test_depth_limit_matches_msgpack),
        cmocka_unit_test(test_id_kept_on_bad_job),
        cmocka_unit_test(test_id_on_prescan_failure),
        cmocka_unit_test(test_job_encode_rejects),
        cmocka_unit_test(test_result_encode_rejects),
        cmocka_unit_test(test_bad_results),
    };
    const char *job_dir = getenv("GRADEQ_WRITE_CORPUS");
    const char *result_dir = getenv("GRADEQ_WRITE_RESULT_CORPUS");

    if (job_dir || result_dir)
        return ((job_dir && write_job_corpus(job_dir) < 0) ||
                (result_dir && write_result_corpus(result_dir) < 0)) ? 1 : 0;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
