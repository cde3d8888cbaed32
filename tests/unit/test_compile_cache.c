/* test_compile_cache.c -- the worker's compile cache: a hit returns copies
 * of exactly what was kept; any difference in what the compiler would see
 * (a byte of a file, its mode, an argument, an environment variable, a
 * limit) is a miss; the least recently used entry goes first when the
 * bytes run out; a cache of 0 bytes keeps nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "worker/engine/compile_cache.h"

static const char *argv_cc[] = { "gcc", "-o", "main", "main.c", NULL };
static const char *argv_o2[] = { "gcc", "-O2", "-o", "main", "main.c", NULL };
static const char *env_a[] = { "LANG=C", NULL };

static sbx_spec spec(const sbx_file *files, size_t n, const char **argv)
{
    sbx_spec s = { .argv = argv, .files = files, .nfiles = n };
    sbx_limits_default(&s.limits);
    return s;
}

static void put_one(wk_compile_cache *c, const sbx_spec *s, const char *bin, size_t len)
{
    sbx_file out[] = { { "main.c", s->files[0].data, s->files[0].len, false }, { "main", bin, len, true } };
    sbx_collect col = { .files = out, .nfiles = 2, .bytes = s->files[0].len + len };
    q_graded rec = { .status = "OK", .has_exit_code = true, .stdout_buf = "", .stderr_buf = "warning: x",
                     .stderr_len = 10, .wall_us = 1234 };
    wk_cc_put(c, s, &col, &rec);
}

static bool get(wk_compile_cache *c, const sbx_spec *s, sbx_collect *col, q_graded *rec)
{
    bool hit = wk_cc_get(c, s, col, rec);
    if (!hit)
        return false;
    free((void *)rec->stdout_buf);
    free((void *)rec->stderr_buf);
    return true;
}

static void test_hit_and_miss(void **state)
{
    (void)state;
    wk_compile_cache *c = wk_cc_new(1 << 20);
    assert_non_null(c);
    sbx_file src[] = { { "main.c", "int main(){}", 12, false } };
    sbx_spec s = spec(src, 1, argv_cc);
    sbx_collect col = { 0 };
    q_graded rec;
    assert_false(get(c, &s, &col, &rec));
    put_one(c, &s, "\x7f" "ELF-binary", 11);
    assert_true(wk_cc_get(c, &s, &col, &rec));
    assert_int_equal(col.nfiles, 2);
    assert_string_equal(col.files[1].name, "main");
    assert_memory_equal(col.files[1].data, "\x7f" "ELF-binary", 11);
    assert_true(col.files[1].executable);
    assert_false(col.files[0].executable);
    assert_string_equal(rec.status, "OK");
    assert_memory_equal(rec.stderr_buf, "warning: x", 10);
    assert_int_equal(rec.wall_us, 1234);
    free((void *)rec.stdout_buf);
    free((void *)rec.stderr_buf);
    sbx_collect_free(&col);

    sbx_file other[] = { { "main.c", "int main(){ }", 13, false } };
    sbx_spec d = spec(other, 1, argv_cc);
    assert_false(get(c, &d, &col, &rec));                 /* a byte of the source */
    sbx_file mode[] = { { "main.c", "int main(){}", 12, true } };
    d = spec(mode, 1, argv_cc);
    assert_false(get(c, &d, &col, &rec));                 /* its mode */
    d = spec(src, 1, argv_o2);
    assert_false(get(c, &d, &col, &rec));                 /* an argument */
    d = spec(src, 1, argv_cc);
    d.env = env_a;
    assert_false(get(c, &d, &col, &rec));                 /* the environment */
    static const char *env_none[] = { NULL };
    d = spec(src, 1, argv_cc);
    d.env = env_none;
    assert_false(get(c, &d, &col, &rec));                 /* an empty environment, not the default */
    d = spec(src, 1, argv_cc);
    d.limits.memory_bytes++;
    assert_false(get(c, &d, &col, &rec));                 /* a limit */
    uint64_t hits, misses;
    wk_cc_stats(c, &hits, &misses);
    assert_int_equal(hits, 1);
    assert_int_equal(misses, 7);
    wk_cc_free(c);
}

static void test_lru_and_bound(void **state)
{
    (void)state;
    static char big[40000];
    memset(big, 'x', sizeof big);
    wk_compile_cache *c = wk_cc_new(100000); /* two entries of ~40 KB fit, not three */
    sbx_file a[] = { { "main.c", "a", 1, false } }, b[] = { { "main.c", "b", 1, false } },
             d[] = { { "main.c", "d", 1, false } };
    sbx_spec sa = spec(a, 1, argv_cc), sb = spec(b, 1, argv_cc), sd = spec(d, 1, argv_cc);
    sbx_collect col;
    q_graded rec;
    put_one(c, &sa, big, sizeof big);
    put_one(c, &sb, big, sizeof big);
    assert_true(get(c, &sa, &col, &rec)); /* a is now the most recent */
    sbx_collect_free(&col);
    put_one(c, &sd, big, sizeof big);      /* b goes */
    assert_false(get(c, &sb, &col, &rec));
    assert_true(get(c, &sa, &col, &rec));
    sbx_collect_free(&col);
    assert_true(get(c, &sd, &col, &rec));
    sbx_collect_free(&col);
    static char huge[200000];
    sbx_file h[] = { { "main.c", "h", 1, false } };
    sbx_spec sh = spec(h, 1, argv_cc);
    put_one(c, &sh, huge, sizeof huge);    /* larger than the cache: not kept, nothing dropped */
    assert_false(get(c, &sh, &col, &rec));
    assert_true(get(c, &sa, &col, &rec));
    sbx_collect_free(&col);
    wk_cc_free(c);

    c = wk_cc_new(0);
    put_one(c, &sa, "x", 1);
    assert_false(get(c, &sa, &col, &rec));
    wk_cc_free(c);
}

/* Entries of many empty files with long names: their names count against
 * the bound, so the oldest go. */
static void test_names_count(void **state)
{
    (void)state;
    enum { FILES = 1000, ENTRIES = 20 };
    static char names[FILES][201];
    static sbx_file out[FILES];
    for (int i = 0; i < FILES; i++) {
        memset(names[i], 'n', 200);
        snprintf(names[i], 8, "%07d", i);
        names[i][7] = 'n';
        out[i] = (sbx_file){ names[i], "", 0, false };
    }
    wk_compile_cache *c = wk_cc_new(1 << 20); /* about four such entries */
    char src[ENTRIES][2];
    sbx_file f[ENTRIES][1];
    q_graded rec = { .status = "OK", .stdout_buf = "", .stderr_buf = "" };
    for (int k = 0; k < ENTRIES; k++) {
        src[k][0] = (char)('a' + k);
        f[k][0] = (sbx_file){ "main.c", src[k], 1, false };
        sbx_spec s = spec(f[k], 1, argv_cc);
        sbx_collect col = { .files = out, .nfiles = FILES };
        wk_cc_put(c, &s, &col, &rec);
    }
    sbx_collect col;
    q_graded got;
    sbx_spec first = spec(f[0], 1, argv_cc), last = spec(f[ENTRIES - 1], 1, argv_cc);
    assert_false(get(c, &first, &col, &got));
    assert_true(get(c, &last, &col, &got));
    sbx_collect_free(&col);
    wk_cc_free(c);
}

/* Tiny entries: their number is bounded too, the oldest going first. */
static void test_entries_bounded(void **state)
{
    (void)state;
    wk_compile_cache *c = wk_cc_new(1ull << 30);
    static unsigned src[WK_CC_ENTRIES_MAX + 1];
    q_graded rec = { .status = "OK", .stdout_buf = "", .stderr_buf = "" };
    sbx_collect none = { 0 };
    for (unsigned k = 0; k <= WK_CC_ENTRIES_MAX; k++) {
        src[k] = k;
        sbx_file f[] = { { "main.c", &src[k], sizeof src[k], false } };
        sbx_spec s = spec(f, 1, argv_cc);
        wk_cc_put(c, &s, &none, &rec);
    }
    sbx_collect col;
    q_graded got;
    sbx_file f0[] = { { "main.c", &src[0], sizeof src[0], false } },
             f1[] = { { "main.c", &src[1], sizeof src[1], false } };
    sbx_spec s0 = spec(f0, 1, argv_cc), s1 = spec(f1, 1, argv_cc);
    assert_false(get(c, &s0, &col, &got));
    assert_true(get(c, &s1, &col, &got));
    sbx_collect_free(&col);
    wk_cc_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_hit_and_miss), cmocka_unit_test(test_lru_and_bound),
                                        cmocka_unit_test(test_names_count), cmocka_unit_test(test_entries_bounded) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
