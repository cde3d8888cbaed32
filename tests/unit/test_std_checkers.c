/* test_std_checkers.c -- testlib's standard checkers answered by ours
 * (worker/engine/std_checkers.c): for each, an output testlib's checker
 * accepts, one it rejects (WA or PE, both WRONG_ANSWER here), and an
 * answer file it fails on (the judge's fault, CHECKER_ERROR), with the
 * rules testlib reads numbers by: strict integers (no leading zero, no
 * "-0", in range), decimal doubles, its doubleCompare, and no extra
 * output after an accepted verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "worker/engine/std_checkers.h"

#define OK WK_CHECK_ACCEPTED
#define WA WK_CHECK_REJECTED
#define FAIL WK_CHECK_FAILED

static void is(q_std_checker k, const char *out, const char *ans, int want)
{
    char msg[WK_CHECK_MSG_LEN];
    int got = wk_check_std(k, out, strlen(out), ans, strlen(ans), msg);
    if (got != want)
        fail_msg("%s: output \"%s\", answer \"%s\": verdict %d, want %d (%s)", q_std_checker_name(k), out, ans, got,
                 want, msg);
    for (const char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            fail_msg("%s: a message byte 0x%02x", q_std_checker_name(k), (unsigned char)*c);
}

static void wcmp(void **state)
{
    (void)state;
    is(Q_STD_WCMP, "a  b\n\nc", "a b c\n", OK);
    is(Q_STD_WCMP, "a b", "a b c", WA);
    is(Q_STD_WCMP, "a b c d", "a b c", WA);
    is(Q_STD_WCMP, "A b c", "a b c", WA);
    is(Q_STD_WCMP, "", "", OK);
}

static void ncmp(void **state)
{
    (void)state;
    is(Q_STD_NCMP, "1 -2\n9223372036854775807", "1 -2 9223372036854775807", OK);
    is(Q_STD_NCMP, "-9223372036854775808", "-9223372036854775808", OK);
    is(Q_STD_NCMP, "1 2", "1 3", WA);
    is(Q_STD_NCMP, "01", "1", WA);    /* testlib: not an integer */
    is(Q_STD_NCMP, "-0", "0", WA);
    is(Q_STD_NCMP, "+1", "1", WA);
    is(Q_STD_NCMP, "9223372036854775808", "1", WA); /* past int64 */
    is(Q_STD_NCMP, "1 2", "1 2 3", WA);
    is(Q_STD_NCMP, "1 2 3", "1 2", WA);
    is(Q_STD_NCMP, "1 x", "1 2 3", WA);
    is(Q_STD_NCMP, "1", "x", FAIL);
    is(Q_STD_NCMP, "1 2", "1 2 junk", FAIL); /* the answer's extra part read too */
}

static void uncmp(void **state)
{
    (void)state;
    is(Q_STD_UNCMP, "3 1 2", "1 2 3", OK);
    is(Q_STD_UNCMP, "3 1 1", "1 2 3", WA);
    is(Q_STD_UNCMP, "1 2", "1 2 3", WA);
    is(Q_STD_UNCMP, "1 a", "1 2", WA);
    is(Q_STD_UNCMP, "1 2", "1 b", FAIL);
}

static void icmp_hcmp(void **state)
{
    (void)state;
    is(Q_STD_ICMP, " 2147483647 \n", "2147483647", OK);
    is(Q_STD_ICMP, "2147483648", "1", WA);
    is(Q_STD_ICMP, "5 6", "5", WA); /* extra information */
    is(Q_STD_ICMP, "", "5", WA);
    is(Q_STD_ICMP, "5", "2147483648", FAIL);
    is(Q_STD_HCMP, "123456789012345678901234567890", "123456789012345678901234567890", OK);
    is(Q_STD_HCMP, "-00", "0", WA);
    is(Q_STD_HCMP, "12", "13", WA);
    is(Q_STD_HCMP, "12", "012", FAIL);
    is(Q_STD_HCMP, "12", "12 13", FAIL);
}

static void lines(void **state)
{
    (void)state;
    is(Q_STD_FCMP, "a b\r\nc\n", "a b\nc\n", OK);
    is(Q_STD_FCMP, "a b\nc\n\n\n", "a b\nc\n", OK);   /* blank lines left: fine */
    is(Q_STD_FCMP, "a b \nc\n", "a b\nc\n", WA);      /* a trailing blank is a difference */
    is(Q_STD_FCMP, "a b\n", "a b\nc\n", WA);
    is(Q_STD_FCMP, "a b\nc\nd\n", "a b\nc\n", WA);    /* extra information */
    is(Q_STD_LCMP, "a   b \nc\n", "a b\nc\n", OK);
    is(Q_STD_LCMP, "a b c\n", "a b\nc\n", WA);
}

static void doubles(void **state)
{
    (void)state;
    is(Q_STD_RCMP6, "1.0000009 2e3", "1 2000", OK);       /* absolute */
    is(Q_STD_RCMP6, "1000000.9", "1000000", OK);          /* relative */
    is(Q_STD_RCMP6, "1.00001", "1", WA);
    is(Q_STD_RCMP6, "nan", "1", WA);
    is(Q_STD_RCMP6, "0x1p0", "1", WA);
    is(Q_STD_RCMP6, "1", "x", FAIL);
    is(Q_STD_RCMP6, "1 2", "1", WA);                       /* extra information */
    is(Q_STD_RCMP4, "1.00009", "1", OK);
    is(Q_STD_RCMP9, "1.000000002", "1", WA);
    is(Q_STD_RCMP, "1.0000014", "1", OK);
    is(Q_STD_RCMP, "1000000.9", "1000000", WA);            /* absolute only */
    is(Q_STD_ACMP, "1.0000014", "1", OK); /* as rcmp: 1.5e-6 absolute */
    is(Q_STD_ACMP, "1.000002", "1", WA);
    is(Q_STD_DCMP, "1000000.9", "1000000", OK);
    is(Q_STD_RNCMP, "1.00001 2", "1 2", OK);
    is(Q_STD_RNCMP, "1.0001 2", "1 2", WA);
}

static void yesno(void **state)
{
    (void)state;
    is(Q_STD_YESNO, "yEs\n", "YES", OK);
    is(Q_STD_YESNO, "no", "YES", WA);
    is(Q_STD_YESNO, "maybe", "YES", WA);
    is(Q_STD_YESNO, "YES YES", "YES", WA);
    is(Q_STD_YESNO, "YES", "perhaps", FAIL);
    is(Q_STD_NYESNO, "yes no YES", "YES NO yes", OK);
    is(Q_STD_NYESNO, "yes yes", "YES NO", WA);
    is(Q_STD_NYESNO, "yes", "YES NO", WA);
    is(Q_STD_NYESNO, "yes", "what", FAIL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wcmp),  cmocka_unit_test(ncmp),    cmocka_unit_test(uncmp), cmocka_unit_test(icmp_hcmp),
        cmocka_unit_test(lines), cmocka_unit_test(doubles), cmocka_unit_test(yesno),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
