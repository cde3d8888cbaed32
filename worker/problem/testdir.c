/* testdir.c -- a folder of tests in the layouts people already have:
 * NAME.in with NAME.out or NAME.ans (DMOJ, CMS), or Polygon's NN with
 * NN.a; sorted naturally (2 before 10). The name of a test is NAME (or NN),
 * and a name found in both layouts is refused rather than run twice.
 *
 * Read through the material layer (material.h): no link followed, only
 * regular files with no other hard links, the bytes of the whole
 * material bounded; an answer is found in the folder's listing, so
 * nothing is opened but the files of a test. At most Q_TESTS_MAX tests.
 * Names are the job's names of tests: printable ASCII, or refused. An
 * interactive problem's tests may have inputs alone.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/text.h"
#include "worker/problem/testdir.h"

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n > k && strcmp(s + n - k, suf) == 0;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* Natural order: runs of digits compare as numbers; names equal so ("02",
 * "2") by their bytes, so the order is total. */
int wk_natural_cmp(const char *a, const char *b)
{
    const char *a0 = a, *b0 = b;
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            size_t na = 0, nb = 0;
            while (isdigit((unsigned char)a[na]))
                na++;
            while (isdigit((unsigned char)b[nb]))
                nb++;
            if (na != nb)
                return na < nb ? -1 : 1;
            int c = memcmp(a, b, na);
            if (c)
                return c;
            a += na;
            b += nb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : strcmp(a0, b0);
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    wk_vformat_safe(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int cmp_test(const void *x, const void *y)
{
    return wk_natural_cmp(((const q_test *)x)->name, ((const q_test *)y)->name);
}

/* Whether name is among the sorted names (the folder's listing: nothing
 * is opened to find an answer). */
static bool listed(const char *const *names, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(names[mid], name);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* A name fit for a test (the job's rule: printable ASCII): else the index
 * of its first other byte. */
static size_t bad_byte(const char *s)
{
    for (size_t i = 0; s[i]; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return i;
    return (size_t)-1;
}

/* The answer file of the test whose input is `in`, or NULL. */
static const char *answer_of(const char *const *names, size_t n, const char *in, char *out, size_t size)
{
    size_t len = strlen(in);
    if (has_suffix(in, ".in")) {
        static const char *const sufs[] = { ".out", ".ans" };
        for (size_t k = 0; k < 2; k++)
            if (snprintf(out, size, "%.*s%s", (int)(len - 3), in, sufs[k]) < (int)size && listed(names, n, out))
                return out;
        return NULL;
    }
    return snprintf(out, size, "%s.a", in) < (int)size && listed(names, n, out) ? out : NULL;
}

/* Reads sub/name of m. */
static int read_one(wk_mat *m, const char *sub, const char *name, const void **data, size_t *len, char *err,
                    size_t errlen)
{
    char p[Q_PATH_MAX + 2];
    if (snprintf(p, sizeof p, "%s%s%s", sub, *sub ? "/" : "", name) >= (int)sizeof p)
        return fail(err, errlen, "%s: a test file's path over %d bytes", wk_mat_name(m), Q_PATH_MAX);
    int rc = wk_mat_read(m, p, data, len, err, errlen);
    if (rc > 0)
        return fail(err, errlen, "%s/%s: vanished while read", wk_mat_name(m), p);
    return rc;
}

void wk_testdir_free(q_test *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(t[i].name);
    free(t);
}

int wk_testdir_read(wk_mat *m, const char *sub, bool need_answers, q_test **out, size_t *nout, char *err,
                    size_t errlen)
{
    const char *const *names;
    size_t nnames;
    int rc = wk_mat_list(m, sub, &names, &nnames, err, errlen);
    if (rc > 0)
        return fail(err, errlen, "%s%s%s: no such folder", wk_mat_name(m), *sub ? "/" : "", sub);
    if (rc < 0)
        return -1;
    q_test *t = calloc(Q_TESTS_MAX, sizeof *t);
    size_t n = 0;
    rc = t ? 0 : fail(err, errlen, "out of memory");
    char ans[Q_PATH_MAX + 8];
    for (size_t i = 0; rc == 0 && i < nnames; i++) {
        const char *in = names[i];
        bool dmoj = has_suffix(in, ".in"), polygon = all_digits(in);
        const char *a = dmoj || polygon ? answer_of(names, nnames, in, ans, sizeof ans) : NULL;
        if (!a && (need_answers || !(dmoj || polygon)))
            continue;
        if (bad_byte(in) != (size_t)-1) { /* shown only escaped: it could be a terminal's escape */
            rc = fail(err, errlen, "%s: a test file name whose byte %zu is not printable ASCII", wk_mat_name(m),
                      bad_byte(in));
            break;
        }
        if (n == Q_TESTS_MAX) {
            rc = fail(err, errlen, "%s: more than %d tests", wk_mat_name(m), Q_TESTS_MAX);
            break;
        }
        size_t nl = strlen(in) - (dmoj ? 3 : 0);
        if (nl > Q_TEST_NAME_MAX) {
            rc = fail(err, errlen, "%s: a test name over %d bytes", wk_mat_name(m), Q_TEST_NAME_MAX);
            break;
        }
        q_test *x = &t[n++];
        x->name = strndup(in, nl);
        x->named = true;
        if (!x->name)
            rc = fail(err, errlen, "out of memory");
        else if (read_one(m, sub, in, &x->stdin_data, &x->stdin_len, err, errlen) < 0 ||
                 (a && read_one(m, sub, a, &x->expected, &x->expected_len, err, errlen) < 0))
            rc = -1;
    }
    if (rc == 0 && n == 0)
        rc = fail(err, errlen, "%s: no tests (NAME.in with NAME.out or NAME.ans, or NN with NN.a)", wk_mat_name(m));
    if (rc < 0) {
        if (t)
            wk_testdir_free(t, n);
        return -1;
    }
    qsort(t, n, sizeof *t, cmp_test);
    for (size_t i = 1; i < n; i++) {
        if (strcmp(t[i - 1].name, t[i].name) == 0) { /* printable: checked above */
            fail(err, errlen, "%s: test %s is there in both layouts (%s.in and %s): keep one", wk_mat_name(m),
                 t[i].name, t[i].name, t[i].name);
            wk_testdir_free(t, n);
            return -1;
        }
    }
    *out = t;
    *nout = n;
    return 0;
}
