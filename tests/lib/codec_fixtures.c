/* codec_fixtures.c -- helpers shared by the codec tests: msgpack from a
 * compact notation, the check that a job is refused with an exact line, byte
 * comparison and seed-file writing. See codec_fixtures.h.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queue/job.h"
#include "tests/lib/codec_fixtures.h"

/* ---- tc_mp: msgpack from a compact notation (codec_fixtures.h) ------------- */

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

msgpack_sbuffer tc_mp(const char *notation)
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

/* ---- checks ---------------------------------------------------------------- */

void tc_assert_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
    assert_int_equal(alen, blen);
    if (alen)
        assert_memory_equal(a, b, alen);
}

void tc_expect_job_error(const char *label, const void *buf, size_t len, const q_bounds *b,
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

/* ---- seed corpus ----------------------------------------------------------- */

int tc_write_file(const char *dir, const char *name, const msgpack_sbuffer *sb)
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
