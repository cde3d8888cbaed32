/* test_grade_files.c -- a test's files over the base (the job's, or what
 * the compile step left): a base file at the test file's path, under it or
 * in the way of its directories is displaced, the rest kept; paths that
 * only share a prefix do not clash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "worker/engine/grade_files.h"

static void clash_rule(void **state)
{
    (void)state;
    assert_true(wk_path_clash("a", "a"));
    assert_true(wk_path_clash("a", "a/b"));
    assert_true(wk_path_clash("a/b/c", "a/b"));
    assert_false(wk_path_clash("a", "ab"));
    assert_false(wk_path_clash("a/b", "a/c"));
    assert_false(wk_path_clash("ab/c", "a"));
}

static bool has(const sbx_file *f, size_t n, const char *name, const char *data)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return !data || (f[i].len == strlen(data) && memcmp(f[i].data, data, f[i].len) == 0);
    return false;
}

static void test_files_win(void **state)
{
    (void)state;
    const sbx_file base[] = {
        { "main", "bin", 3, true },  { "data", "old", 3, false },  { "d/x", "1", 1, false },
        { "d/y/z", "2", 1, false },  { "dd", "3", 1, false },      { "e", "4", 1, false },
        { "data.txt", "5", 1, false },
    };
    q_file tf[] = { { "data", "new", 3 }, { "d", "file", 4 }, { "e/f", "dir", 3 } };
    q_prog t = { .files = tf, .nfiles = 3 };
    wk_base_files b;
    sbx_file out[16];
    assert_int_equal(wk_base_files_init(&b, base, 7), 0);
    for (int round = 0; round < 2; round++) { /* the scratch is reset per test */
        size_t n = wk_test_files(&b, &t, out);
        assert_int_equal(n, 3 + 3);
        assert_true(has(out, n, "main", "bin"));
        assert_true(has(out, n, "dd", "3"));
        assert_true(has(out, n, "data.txt", "5"));
        assert_true(has(out, n, "data", "new"));
        assert_true(has(out, n, "d", "file"));
        assert_true(has(out, n, "e/f", "dir"));
        assert_false(has(out, n, "d/x", NULL));
        assert_false(has(out, n, "e", NULL));
    }
    q_prog none = { 0 };
    assert_int_equal(wk_test_files(&b, &none, out), 7);
    wk_base_files_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clash_rule),
        cmocka_unit_test(test_files_win),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
