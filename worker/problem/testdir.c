/* testdir.c -- a folder of tests in the layouts people already have:
 * NAME.in with NAME.out or NAME.ans (DMOJ, CMS), or Polygon's NN with
 * NN.a; sorted naturally (2 before 10). The name of a test is NAME (or NN),
 * and a name found in both layouts is refused rather than run twice.
 *
 * Bounded: at most Q_TESTS_MAX tests, each file read with a cap checked
 * before it is allocated, WK_TESTDIR_BYTES over the whole folder. Only
 * regular files are read, and nothing is opened that could block (a fifo).
 * Names are the job's names of tests: printable ASCII, or refused. An
 * interactive problem's tests may have inputs alone.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "worker/common/readfile.h"
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
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int cmp_test(const void *x, const void *y)
{
    return wk_natural_cmp(((const q_test *)x)->name, ((const q_test *)y)->name);
}

/* Without opening it: a fifo would block an open for good. */
static bool exists(const char *dir, const char *name)
{
    char p[4096];
    struct stat st;
    return snprintf(p, sizeof p, "%s/%s", dir, name) < (int)sizeof p && stat(p, &st) == 0;
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

static int read_in(const char *dir, const char *name, uint64_t *budget, const void **data, size_t *len, char *err,
                   size_t errlen)
{
    char p[4096];
    char *buf;
    if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p)
        return snprintf(err, errlen, "%s/%s: path too long", dir, name), -1;
    if (wk_read_file(p, *budget, &buf, len, err, errlen) < 0)
        return -1;
    *budget -= *len;
    *data = buf;
    return 0;
}

/* The answer file of test `base` whose input is `in`, or NULL. */
static const char *answer_of(const char *dir, const char *in, char *out, size_t size)
{
    size_t n = strlen(in);
    if (has_suffix(in, ".in")) {
        static const char *const sufs[] = { ".out", ".ans" };
        for (size_t k = 0; k < 2; k++)
            if (snprintf(out, size, "%.*s%s", (int)(n - 3), in, sufs[k]) < (int)size && exists(dir, out))
                return out;
        return NULL;
    }
    return snprintf(out, size, "%s.a", in) < (int)size && exists(dir, out) ? out : NULL;
}

void wk_testdir_free(q_test *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].name);
        free((void *)t[i].stdin_data);
        free((void *)t[i].expected);
    }
    free(t);
}

int wk_testdir_load(const char *dir, bool need_answers, q_test **out, size_t *nout, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return snprintf(err, errlen, "%s: %s", dir, strerror(errno)), -1;
    q_test *t = calloc(Q_TESTS_MAX, sizeof *t);
    size_t n = 0;
    uint64_t budget = WK_TESTDIR_BYTES;
    int rc = t ? 0 : fail(err, errlen, "out of memory");
    struct dirent *e;
    char ans[512];
    while (rc == 0 && (e = readdir(d))) {
        const char *in = e->d_name;
        bool dmoj = has_suffix(in, ".in"), polygon = all_digits(in);
        const char *a = dmoj || polygon ? answer_of(dir, in, ans, sizeof ans) : NULL;
        if (!a && (need_answers || !(dmoj || polygon)))
            continue;
        if (bad_byte(in) != (size_t)-1) { /* shown only escaped: it could be a terminal's escape */
            rc = fail(err, errlen, "%s: a test file name whose byte %zu is not printable ASCII", dir, bad_byte(in));
            break;
        }
        if (n == Q_TESTS_MAX) {
            rc = fail(err, errlen, "%s: more than %d tests", dir, Q_TESTS_MAX);
            break;
        }
        size_t nl = strlen(in) - (dmoj ? 3 : 0);
        if (nl > Q_TEST_NAME_MAX) {
            rc = fail(err, errlen, "%s: a test name over %d bytes", dir, Q_TEST_NAME_MAX);
            break;
        }
        q_test *x = &t[n++];
        x->name = strndup(in, nl);
        x->named = true;
        if (!x->name)
            rc = fail(err, errlen, "out of memory");
        else if (read_in(dir, in, &budget, &x->stdin_data, &x->stdin_len, err, errlen) < 0 ||
                 (a && read_in(dir, a, &budget, &x->expected, &x->expected_len, err, errlen) < 0))
            rc = -1;
    }
    closedir(d);
    if (rc == 0 && n == 0)
        rc = fail(err, errlen, "%s: no tests (NAME.in with NAME.out or NAME.ans, or NN with NN.a)", dir);
    if (rc < 0) {
        if (t)
            wk_testdir_free(t, n);
        return -1;
    }
    qsort(t, n, sizeof *t, cmp_test);
    for (size_t i = 1; i < n; i++) {
        if (strcmp(t[i - 1].name, t[i].name) == 0) { /* printable: checked above */
            fail(err, errlen, "%s: test %s is there in both layouts (%s.in and %s): keep one", dir, t[i].name,
                 t[i].name, t[i].name);
            wk_testdir_free(t, n);
            return -1;
        }
    }
    *out = t;
    *nout = n;
    return 0;
}
