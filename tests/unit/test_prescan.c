/* test_prescan.c -- malformed bytes, and the prescan under the decoders.
 *
 * Inputs that are not msgpack, or are truncated, followed by trailing bytes,
 * nested too deep, or headed by a count or length far beyond the bytes that
 * follow, must be refused by q_job_decode with the exact "job: " line
 * before msgpack-c allocates for them; then q_prescan's bounds directly, and
 * Q_DEPTH_MAX against msgpack-c's own stack.
 */
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
#include "tests/lib/codec_fixtures.h"

/* ---- malformed bytes ------------------------------------------------------- */

static void test_not_msgpack(void **state)
{
    (void)state;
    tc_expect_job_error("0xc1", "\xc1", 1, NULL, "job: not msgpack (type byte 0xc1 at byte 0)",
                        NULL);
    tc_expect_job_error("empty", "", 0, NULL, "job: not msgpack (truncated at byte 0 of 0)", NULL);
    tc_expect_job_error("short uint16", "\xcd\x01", 2, NULL,
                        "job: not msgpack (truncated at byte 0 of 2)", NULL);
    /* JSON: '{' is a positive fixint, so one object and then trailing bytes. */
    tc_expect_job_error("json", "{\"id\": \"j1\"}", 12, NULL,
                        "job: trailing bytes after the object (byte 1 of 12)", NULL);
}

static void test_truncated(void **state)
{
    char err[Q_ERR_LEN], want[Q_ERR_LEN];
    q_job j;
    msgpack_sbuffer sb = tc_mp("{id: 'j1', argv: ['a'], files: {f: 'xyz'}, network: true}");

    (void)state;
    /* The last byte is `true`: without it the map lacks a value. */
    (void)snprintf(want, sizeof want, "job: not msgpack (truncated at byte %zu of %zu)",
                   sb.size - 1, sb.size - 1);
    /* id, argv and files came whole before the cut: the id is still read. */
    tc_expect_job_error("last byte cut", sb.data, sb.size - 1, NULL, want, "j1");
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
    msgpack_sbuffer sb = tc_mp("{id: 'j1', argv: ['a']}");
    size_t n = sb.size;

    (void)state;
    assert_int_equal(msgpack_sbuffer_write(&sb, "\xc0", 1), 0);
    (void)snprintf(want, sizeof want, "job: trailing bytes after the object (byte %zu of %zu)",
                   n, n + 1);
    tc_expect_job_error("trailing nil", sb.data, sb.size, NULL, want, "j1");
    msgpack_sbuffer_destroy(&sb);
}

static void test_deep_nesting(void **state)
{
    unsigned char deep[1001];

    (void)state;
    memset(deep, 0x91, 1000); /* [[[[...nil...]]]] */
    deep[1000] = 0xc0;
    tc_expect_job_error("arrays", deep, sizeof deep, NULL, "job: nesting deeper than 16 at byte 16",
                        NULL);
    memset(deep, 0x81, 1000); /* {{{{...}}}}: a map key that is a map */
    tc_expect_job_error("maps", deep, sizeof deep, NULL, "job: nesting deeper than 16 at byte 16",
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
        tc_expect_job_error(wants[i], headers[i], 5, NULL, wants[i], NULL);
        assert_true(seconds_since(&t0) < 0.1);
        after = mallinfo2();
        assert_true(after.hblkhd <= before.hblkhd && after.uordblks <= before.uordblks);
    }
    tc_expect_job_error("inside a job", inner, sizeof inner - 1, NULL,
                        "job: array count 4294967295 at byte 12 exceeds the 2 remaining bytes",
                        "j1");
    /* 3 entries fit in 5 bytes as a count, but 6 keys and values do not. */
    tc_expect_job_error("small map", "\x83\x01\x02\x03\x04\x05", 6, NULL,
                        "job: map count 3 (6 keys and values) at byte 0 exceeds the 5 remaining "
                        "bytes", NULL);
}

static void test_huge_length_header(void **state)
{
    (void)state;
    tc_expect_job_error("str32", "\xdb\x7f\xff\xff\xff" "abc", 8, NULL,
                        "job: str of 2147483647 bytes at byte 0 exceeds the 3 remaining bytes",
                        NULL);
    tc_expect_job_error("bin32", "\x91\xc6\xff\xff\xff\xff", 6, NULL,
                        "job: bin of 4294967295 bytes at byte 1 exceeds the 0 remaining bytes",
                        NULL);
    tc_expect_job_error("ext32", "\xc9\x00\x00\x00\x09\x01" "abc", 9, NULL,
                        "job: ext of 9 bytes at byte 0 exceeds the 3 remaining bytes", NULL);
    tc_expect_job_error("fixstr", "\xa5" "abc", 4, NULL,
                        "job: str of 5 bytes at byte 0 exceeds the 3 remaining bytes", NULL);
}

static void test_job_too_big(void **state)
{
    size_t len = 70000000;
    char *big = calloc(len, 1);

    (void)state;
    assert_non_null(big);
    tc_expect_job_error("70 MB", big, len, NULL,
                        "job: 70000000 bytes exceeds the 67108864-byte limit", NULL);
    free(big);
}

static void test_prescan_bounds(void **state)
{
    char err[Q_ERR_LEN] = "";
    q_bounds b;
    msgpack_sbuffer sb = tc_mp("{id: 'j1', argv: ['a', 'b', 'c', 'd', 'e', 'f']}");

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_msgpack),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_trailing_bytes),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_huge_count_header),
        cmocka_unit_test(test_huge_length_header),
        cmocka_unit_test(test_job_too_big),
        cmocka_unit_test(test_prescan_bounds),
        cmocka_unit_test(test_depth_limit_matches_msgpack),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
