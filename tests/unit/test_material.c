/* test_material.c -- problem material read safely (worker/problem/
 * material.c, beneath.c) and a folder of tests read through it
 * (testdir.c).
 *
 * A hostile folder built here holds a marker file outside it reached by a
 * symbolic link (as a file, as a directory on the way, dangling), a hard
 * link, a fifo, a device: each is refused with its rule, the marker's
 * bytes never come back, and every case runs twice, once through openat2
 * and once through the O_NOFOLLOW walk. Files in memory obey the same
 * path rule; the bytes budget and listings are bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/lib/files.h"
#include "worker/problem/beneath.h"
#include "worker/problem/material.h"
#include "worker/problem/testdir.h"

#define MARKER "MARKER-material-c0ffee"

typedef struct fixture {
    char top[256];   /* holds root/ and outside/ */
    char root[300];
    char outside[300];
} fixture;

static void put(const char *dir, const char *name, const char *text)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void in(const char *dir, const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", dir, name);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    char p[700], q[700];
    assert_non_null(tl_mkdtemp(f->top, sizeof f->top, "gradeq-material-"));
    in(f->top, "root", f->root, sizeof f->root);
    in(f->top, "outside", f->outside, sizeof f->outside);
    assert_int_equal(mkdir(f->root, 0755), 0);
    assert_int_equal(mkdir(f->outside, 0700), 0);
    put(f->outside, "secret", MARKER "\n");
    in(f->outside, "secret", q, sizeof q);
    assert_int_equal(chmod(q, 0600), 0);
    put(f->root, "a.txt", "A\n");
    in(f->root, "sub", p, sizeof p);
    assert_int_equal(mkdir(p, 0755), 0);
    put(f->root, "sub/b.txt", "B\n");
    in(f->root, "link", p, sizeof p);
    assert_int_equal(symlink(q, p), 0);
    in(f->root, "dlink", p, sizeof p);
    assert_int_equal(symlink(f->outside, p), 0);
    in(f->root, "sub/up", p, sizeof p);
    assert_int_equal(symlink("../../outside", p), 0);
    in(f->root, "dangling", p, sizeof p);
    assert_int_equal(symlink("/nonexistent/x", p), 0);
    in(f->root, "hard", p, sizeof p);
    assert_int_equal(link(q, p), 0);
    in(f->root, "fifo", p, sizeof p);
    assert_int_equal(mkfifo(p, 0644), 0);
    in(f->root, "dev", p, sizeof p);
    if (mknod(p, S_IFCHR | 0644, makedev(1, 3)) < 0) /* /dev/null's numbers; needs CAP_MKNOD */
        print_message("mknod: not allowed here, the device case is skipped\n");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->top);
    assert_int_equal(system(cmd), 0);
    free(f);
    wk_beneath_set_mode(WK_BENEATH_AUTO);
    return 0;
}

/* Reads rel: the return code, and err holds the refusal. */
static int try_read(wk_mat *m, const char *rel, char *err, size_t errlen)
{
    const void *d = NULL;
    size_t n = 0;
    err[0] = 0;
    int rc = wk_mat_read(m, rel, &d, &n, err, errlen);
    if (rc == 0)
        assert_null(memmem(d, n, MARKER, strlen(MARKER)));
    assert_null(strstr(err, MARKER));
    return rc;
}

static void refused(wk_mat *m, const char *rel, const char *rule)
{
    char err[512], q[WK_MAT_QUOTE_MAX];
    assert_int_equal(try_read(m, rel, err, sizeof err), -1);
    assert_null(strchr(err, '\033'));
    if (!strstr(err, rule) || !strstr(err, wk_mat_quote(q, sizeof q, rel)))
        fail_msg("%s: got \"%s\", want the path and \"%s\"", rel, err, rule);
}

static void disk_cases(fixture *f)
{
    wk_mat *m;
    char err[512];
    const void *d;
    size_t n;
    assert_int_equal(wk_mat_open_dir(f->root, NULL, &m, err, sizeof err), 0);
    assert_int_equal(wk_mat_read(m, "a.txt", &d, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_memory_equal(d, "A\n", 2);
    assert_int_equal(wk_mat_read(m, "sub/b.txt", &d, &n, err, sizeof err), 0);
    assert_memory_equal(d, "B\n", 2);
    assert_int_equal(try_read(m, "none", err, sizeof err), 1);
    assert_int_equal(try_read(m, "a.txt/x", err, sizeof err), 1);
    refused(m, "link", "symbolic link");
    refused(m, "dlink/secret", "symbolic link");
    refused(m, "sub/up/secret", "symbolic link");
    refused(m, "dangling", "symbolic link");
    refused(m, "hard", "other hard links");
    refused(m, "fifo", "not a regular file (a fifo)");
    refused(m, "sub", "not a regular file (a directory)");
    if (wk_mat_kind_of(m, "dev") != WK_MAT_NONE)
        refused(m, "dev", "not a regular file (a device)");
    refused(m, "../outside/secret", "'..' component");
    refused(m, "/etc/passwd", "absolute path");
    refused(m, "sub//b.txt", "empty path component");
    refused(m, "./a.txt", "'.' component");
    refused(m, "a\033[2J", "not printable ASCII");
    assert_int_equal(wk_mat_kind_of(m, "link"), WK_MAT_LINK);
    assert_int_equal(wk_mat_kind_of(m, "dlink/secret"), WK_MAT_LINK);
    assert_int_equal(wk_mat_kind_of(m, "sub"), WK_MAT_DIR);
    assert_int_equal(wk_mat_kind_of(m, "a.txt"), WK_MAT_FILE);
    assert_int_equal(wk_mat_kind_of(m, "fifo"), WK_MAT_OTHER);

    const char *const *names;
    assert_int_equal(wk_mat_list(m, "", &names, &n, err, sizeof err), 0);
    assert_true(n >= 8);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(names[i - 1], names[i]) < 0);
    assert_int_equal(wk_mat_list(m, "sub", &names, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "b.txt");
    assert_string_equal(names[1], "up");
    assert_int_equal(wk_mat_list(m, "dlink", &names, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "symbolic link"));
    assert_int_equal(wk_mat_list(m, "sub/up", &names, &n, err, sizeof err), -1);
    assert_int_equal(wk_mat_list(m, "nothere", &names, &n, err, sizeof err), 1);

    /* What was read, once each, in order: what a client would ship. */
    assert_int_equal(wk_mat_read(m, "a.txt", &d, &n, err, sizeof err), 0);
    const q_file *r = wk_mat_files_read(m, &n);
    assert_int_equal(n, 2);
    assert_string_equal(r[0].name, "a.txt");
    assert_string_equal(r[1].name, "sub/b.txt");
    wk_mat_close(m);

    /* The operator may allow hard links; links stay refused. */
    wk_mat_opts o = { .allow_hardlinks = true };
    assert_int_equal(wk_mat_open_dir(f->root, &o, &m, err, sizeof err), 0);
    assert_int_equal(wk_mat_read(m, "hard", &d, &n, err, sizeof err), 0);
    refused(m, "link", "symbolic link");
    wk_mat_close(m);

    /* The bytes of one material together are bounded, before allocating. */
    o = (wk_mat_opts){ .max_bytes = 3 };
    assert_int_equal(wk_mat_open_dir(f->root, &o, &m, err, sizeof err), 0);
    assert_int_equal(wk_mat_read(m, "a.txt", &d, &n, err, sizeof err), 0);
    refused(m, "sub/b.txt", "past the bytes");
    wk_mat_close(m);
}

static void on_disk_openat2(void **state)
{
    wk_beneath_set_mode(WK_BENEATH_OPENAT2);
    disk_cases(*state);
    assert_int_equal(wk_beneath_mode_now(), WK_BENEATH_OPENAT2);
}

static void on_disk_walk(void **state)
{
    wk_beneath_set_mode(WK_BENEATH_WALK);
    disk_cases(*state);
    assert_int_equal(wk_beneath_mode_now(), WK_BENEATH_WALK);
}

/* A link swapped in for a directory between two reads is still refused:
 * each open resolves the whole path again. */
static void swapped_directory(void **state)
{
    fixture *f = *state;
    char err[512], p[700], q[700];
    wk_mat *m;
    const void *d;
    size_t n;
    for (int mode = WK_BENEATH_OPENAT2; mode <= WK_BENEATH_WALK; mode++) {
        wk_beneath_set_mode((wk_beneath_mode)mode);
        in(f->root, "swap", p, sizeof p);
        assert_int_equal(mkdir(p, 0755), 0);
        put(f->root, "swap/secret", "harmless\n");
        assert_int_equal(wk_mat_open_dir(f->root, NULL, &m, err, sizeof err), 0);
        assert_int_equal(wk_mat_read(m, "swap/secret", &d, &n, err, sizeof err), 0);
        in(f->root, "swap/secret", q, sizeof q);
        assert_int_equal(unlink(q), 0);
        assert_int_equal(rmdir(p), 0);
        assert_int_equal(symlink(f->outside, p), 0);
        const void *d2;
        assert_int_equal(wk_mat_read(m, "swap/secret", &d2, &n, err, sizeof err), 0);
        assert_ptr_equal(d2, d); /* served from what was read */
        refused(m, "swap/other", "symbolic link");
        wk_mat_close(m);
        assert_int_equal(unlink(p), 0);
    }
}

static void in_memory(void **state)
{
    (void)state;
    char err[512];
    wk_mat *m;
    const void *d;
    size_t n;
    q_file files[] = {
        { "tests/2", "two", 3 }, { "tests/10", "ten", 3 }, { "tests/2.a", "TWO", 3 }, { "tests/10.a", "TEN", 3 },
        { "problem.xml", "<problem/>", 10 }, { "tests.x", "", 0 }, { "files/a/b", "b", 1 },
    };
    assert_int_equal(wk_mat_open_mem(files, 7, "job", NULL, &m, err, sizeof err), 0);
    assert_int_equal(wk_mat_read(m, "tests/10.a", &d, &n, err, sizeof err), 0);
    assert_memory_equal(d, "TEN", 3);
    assert_int_equal(wk_mat_read(m, "tests", &d, &n, err, sizeof err), 1);
    assert_int_equal(wk_mat_kind_of(m, "tests"), WK_MAT_DIR);
    assert_int_equal(wk_mat_kind_of(m, "files/a"), WK_MAT_DIR);
    assert_int_equal(wk_mat_kind_of(m, "tests/2"), WK_MAT_FILE);
    assert_int_equal(wk_mat_kind_of(m, "test"), WK_MAT_NONE);
    const char *const *names;
    assert_int_equal(wk_mat_list(m, "", &names, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(names[0], "files");
    assert_string_equal(names[1], "problem.xml");
    assert_string_equal(names[2], "tests");
    assert_string_equal(names[3], "tests.x");
    assert_int_equal(wk_mat_list(m, "tests", &names, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(names[0], "10");
    assert_string_equal(names[3], "2.a");
    assert_int_equal(wk_mat_list(m, "files", &names, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "a");
    refused(m, "../x", "'..' component");
    wk_mat_close(m);

    q_file twice[] = { { "a", "1", 1 }, { "a", "2", 1 } };
    assert_int_equal(wk_mat_open_mem(twice, 2, "job", NULL, &m, err, sizeof err), -1);
    assert_string_equal(err, "job/a: there twice");
    q_file under[] = { { "a", "1", 1 }, { "a/b", "2", 1 } };
    assert_int_equal(wk_mat_open_mem(under, 2, "job", NULL, &m, err, sizeof err), -1);
    assert_string_equal(err, "job/a/b: under a path that is a file");
    q_file esc[] = { { "a\033b", "1", 1 } };
    assert_int_equal(wk_mat_open_mem(esc, 1, "job", NULL, &m, err, sizeof err), -1);
    assert_null(strchr(err, '\033'));
    assert_non_null(strstr(err, "a\\x1bb"));
}

static void testdir_layouts(void **state)
{
    fixture *f = *state;
    char dir[400], err[512];
    snprintf(dir, sizeof dir, "%s/t", f->top);
    assert_int_equal(mkdir(dir, 0755), 0);
    put(dir, "10.in", "ten");
    put(dir, "10.out", "TEN");
    put(dir, "2.in", "two");
    put(dir, "2.ans", "TWO");
    put(dir, "sample.in", "s");
    put(dir, "sample.out", "S");
    put(dir, "orphan.in", "no answer");
    put(dir, "07", "seven");
    put(dir, "07.a", "SEVEN");
    put(dir, "README", "not a test");
    q_test *t;
    size_t n;
    wk_mat *m;
    assert_int_equal(wk_mat_open_dir(dir, NULL, &m, err, sizeof err), 0);
    assert_int_equal(wk_testdir_read(m, "", true, &t, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(t[0].name, "2");
    assert_string_equal(t[1].name, "07");
    assert_string_equal(t[2].name, "10");
    assert_string_equal(t[3].name, "sample");
    assert_memory_equal(t[1].stdin_data, "seven", 5);
    assert_memory_equal(t[1].expected, "SEVEN", 5);
    assert_memory_equal(t[0].expected, "TWO", 3);
    wk_testdir_free(t, n);
    /* An interactor judges: an input alone is a test, with no answer. */
    assert_int_equal(wk_testdir_read(m, "", false, &t, &n, err, sizeof err), 0);
    assert_int_equal(n, 5);
    assert_string_equal(t[3].name, "orphan");
    assert_null(t[3].expected);
    assert_memory_equal(t[3].stdin_data, "no answer", 9);
    assert_non_null(t[4].expected);
    wk_testdir_free(t, n);
    wk_mat_close(m);

    char empty[420];
    snprintf(empty, sizeof empty, "%s/empty", f->top);
    assert_int_equal(mkdir(empty, 0755), 0);
    assert_int_equal(wk_mat_open_dir(empty, NULL, &m, err, sizeof err), 0);
    assert_int_equal(wk_testdir_read(m, "", true, &t, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "no tests"));
    wk_mat_close(m);
    put(dir, "2", "two again"); /* 2.in and 2 both: which is meant? */
    put(dir, "2.a", "TWO");
    assert_int_equal(wk_mat_open_dir(dir, NULL, &m, err, sizeof err), 0);
    assert_int_equal(wk_testdir_read(m, "", true, &t, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "test 2 is there in both layouts"));
    wk_mat_close(m);
}

/* The defect this layer closes: an answer (or an input) that is a link
 * to a file outside the folder was read and shown in the verdict. */
static void testdir_links_refused(void **state)
{
    fixture *f = *state;
    char dir[400], err[512], p[500], secret[400];
    snprintf(dir, sizeof dir, "%s/tl", f->top);
    snprintf(secret, sizeof secret, "%s/secret", f->outside);
    assert_int_equal(mkdir(dir, 0755), 0);
    put(dir, "01", "1 2\n");
    in(dir, "01.a", p, sizeof p);
    assert_int_equal(symlink(secret, p), 0);
    for (int mode = WK_BENEATH_OPENAT2; mode <= WK_BENEATH_WALK; mode++) {
        wk_beneath_set_mode((wk_beneath_mode)mode);
        q_test *t;
        size_t n;
        wk_mat *m;
        assert_int_equal(wk_mat_open_dir(dir, NULL, &m, err, sizeof err), 0);
        assert_int_equal(wk_testdir_read(m, "", true, &t, &n, err, sizeof err), -1);
        assert_non_null(strstr(err, "01.a: a symbolic link"));
        assert_null(strstr(err, MARKER));
        wk_mat_close(m);
    }
    assert_int_equal(unlink(p), 0);
    assert_int_equal(link(secret, p), 0);
    q_test *t;
    size_t n;
    wk_mat *m;
    assert_int_equal(wk_mat_open_dir(dir, NULL, &m, err, sizeof err), 0);
    assert_int_equal(wk_testdir_read(m, "", true, &t, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "01.a: a file with other hard links"));
    wk_mat_close(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(on_disk_openat2, setup, teardown),
        cmocka_unit_test_setup_teardown(on_disk_walk, setup, teardown),
        cmocka_unit_test_setup_teardown(swapped_directory, setup, teardown),
        cmocka_unit_test(in_memory),
        cmocka_unit_test_setup_teardown(testdir_layouts, setup, teardown),
        cmocka_unit_test_setup_teardown(testdir_links_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
