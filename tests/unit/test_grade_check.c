/* test_grade_check.c -- the built-in answer rules and natural order (a
 * folder of tests is read in test_material.c).
 *
 * Each rule is shown accepting exactly the differences it forgives and
 * refusing the first one it does not, with the message the student sees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "worker/engine/checker.h"
#include "worker/problem/testdir.h"

static bool check(q_check_kind k, double eps, const char *out, const char *ans, char *msg)
{
    return wk_check_text(k, eps, out, strlen(out), ans, strlen(ans), msg);
}

static void test_exact(void **state)
{
    (void)state;
    char msg[WK_CHECK_MSG_LEN];
    assert_true(check(Q_CHECK_EXACT, 0, "1 2\n", "1 2\n", msg));
    assert_false(check(Q_CHECK_EXACT, 0, "1 2 \n", "1 2\n", msg));
    assert_string_equal(msg, "byte 3 differs (output 5 bytes, expected 4)");
    assert_false(check(Q_CHECK_EXACT, 0, "1 2", "1 2\n", msg));
    /* A test without "expected" (NULL) against no output: equal, and no
     * NULL reaches memcmp (undefined even for 0 bytes; UBSan says so). */
    for (int k = Q_CHECK_LINES; k <= Q_CHECK_FLOAT; k++)
        assert_true(wk_check_text((q_check_kind)k, 0, NULL, 0, NULL, 0, msg));
}

static void test_lines(void **state)
{
    (void)state;
    char msg[WK_CHECK_MSG_LEN];
    assert_true(check(Q_CHECK_LINES, 0, "1 2  \t\r\n3\n\n\n", "1 2\n3", msg));
    assert_true(check(Q_CHECK_LINES, 0, "a", "a\n\n  \n", msg));
    assert_true(check(Q_CHECK_LINES, 0, "", "\n", msg));
    assert_false(check(Q_CHECK_LINES, 0, " 1 2\n", "1 2\n", msg)); /* leading blanks count */
    assert_string_equal(msg, "line 1: expected \"1 2\", got \" 1 2\"");
    assert_false(check(Q_CHECK_LINES, 0, "1  2\n", "1 2\n", msg)); /* so does inner spacing */
    assert_false(check(Q_CHECK_LINES, 0, "a\n", "a\nb\n", msg));
    assert_string_equal(msg, "line 2: expected \"b\", got nothing");
    assert_false(check(Q_CHECK_LINES, 0, "a\n\nc\n", "a\n", msg));
    assert_string_equal(msg, "line 2: expected nothing, got \"\"");
    assert_false(check(Q_CHECK_LINES, 0, "x\x1b[2Jyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n", "x\n", msg));
    assert_string_equal(msg, "line 1: expected \"x\", got \"x\\x1b[2Jyyyyyyyyyyyyyyyyyyy...\"");
}

static void test_tokens(void **state)
{
    (void)state;
    char msg[WK_CHECK_MSG_LEN];
    assert_true(check(Q_CHECK_TOKENS, 0, "  1\n\n2\t3  ", "1 2 3\n", msg));
    assert_false(check(Q_CHECK_TOKENS, 0, "1 2", "1 2 3", msg));
    assert_string_equal(msg, "token 3: expected \"3\", got nothing");
    assert_false(check(Q_CHECK_TOKENS, 0, "1 2 3 4", "1 2 3", msg));
    assert_string_equal(msg, "token 4: expected nothing, got \"4\"");
    assert_false(check(Q_CHECK_TOKENS, 0, "1.0", "1", msg)); /* tokens are bytes */
}

static void test_float(void **state)
{
    (void)state;
    char msg[WK_CHECK_MSG_LEN];
    assert_true(check(Q_CHECK_FLOAT, 1e-6, "3.1415930 2\n", "3.14159265 2", msg)); /* absolute */
    assert_true(check(Q_CHECK_FLOAT, 1e-6, "1000000.5", "1000000", msg));       /* relative */
    assert_true(check(Q_CHECK_FLOAT, 1e-6, "yes 1e3", "yes 1000", msg));
    assert_false(check(Q_CHECK_FLOAT, 1e-6, "3.1416", "3.14159265", msg));
    assert_string_equal(msg, "token 1: expected \"3.14159265\", got \"3.1416\"");
    assert_false(check(Q_CHECK_FLOAT, 1e-6, "nan", "nan0", msg)); /* no NaN is equal */
    assert_false(check(Q_CHECK_FLOAT, 1e9, "inf", "1", msg));
    assert_false(check(Q_CHECK_FLOAT, 1e-6, "1x", "1", msg));
    /* Only decimal spellings are numbers: strtod's others are not. */
    assert_false(check(Q_CHECK_FLOAT, 1e-6, "0x10", "16", msg));
    assert_false(check(Q_CHECK_FLOAT, 1e-6, "0x1p4", "16", msg));
    assert_false(check(Q_CHECK_FLOAT, 1e-6, "1e", "1", msg));
    assert_false(check(Q_CHECK_FLOAT, 1e-6, ".", "0", msg));
    assert_true(check(Q_CHECK_FLOAT, 1e-6, ".5 5. -0 +2 1E+2", "0.5 5 0 2 100", msg));
}

/* A checker's first stderr line is a msgpack str and reaches terminals:
 * valid UTF-8, no control (C0 or C1), never half a character. */
static void test_first_line(void **state)
{
    (void)state;
    char msg[WK_CHECK_MSG_LEN];
    const char in[] = "ok \xd0\xbf\xd1\x80 \xff\xc0\xaf \x1b[2J \xc2\x9b" "1m \xed\xa0\x80 end\r\nsecond";
    wk_first_line(msg, in, sizeof in - 1);
    assert_string_equal(msg, "ok \xd0\xbf\xd1\x80 ??? ?[2J ??1m ??? end");
    char longer[600];
    memset(longer, 'x', sizeof longer);
    for (size_t at = 250; at < 260; at++) { /* a 3-byte character across the cut */
        memset(longer, 'x', sizeof longer);
        memcpy(longer + at, "\xe2\x82\xac", 3);
        wk_first_line(msg, longer, sizeof longer);
        size_t n = strlen(msg);
        assert_true(n < WK_CHECK_MSG_LEN);
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)msg[i] == 0xe2)
                assert_true(i + 2 < n && (unsigned char)msg[i + 2] == 0xac);
    }
}

static void test_natural_order(void **state)
{
    (void)state;
    assert_true(wk_natural_cmp("2", "10") < 0);
    assert_true(wk_natural_cmp("test9", "test10") < 0);
    assert_true(wk_natural_cmp("02", "2") < 0); /* equal values: the bytes decide */
    assert_true(wk_natural_cmp("2", "02") > 0);
    assert_true(wk_natural_cmp("a10b2", "a10b10") < 0);
    assert_true(wk_natural_cmp("b", "a") > 0);
    assert_int_equal(wk_natural_cmp("x1", "x1"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),  cmocka_unit_test(test_lines),         cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_float),  cmocka_unit_test(test_natural_order),
        cmocka_unit_test(test_first_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
