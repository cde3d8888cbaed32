/* test_sandbox_collect.c -- what a run leaves in /box, handed back
 * (sbx_spec.collect), against a program that chose every name and type:
 * a whiteout device (0:0, which anyone may make) and a fifo are skipped,
 * never a sandbox error; names in the refusal are shown escaped; a refused
 * tree leaks no descriptor of the caller's; `only` takes the one name asked
 * for (a file, or a directory's files) and nothing else, a link or a fifo
 * of that name never followed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/sandbox.h"
#include "tests/lib/sandbox_fixtures.h"

static void run_only(const char *cmd, const char *only, sbx_collect *c, sbx_result *r)
{
    const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    *c = (sbx_collect){ .max_files = 64, .max_bytes = 1 << 20, .max_depth = 4, .only = only };
    sbx_spec s = { .argv = argv, .collect = c };
    sbx_limits_default(&s.limits);
    assert_int_equal(sbx_run(sx_box, &s, r), 0);
}

static void run_sh(const char *cmd, sbx_collect *c, sbx_result *r)
{
    run_only(cmd, NULL, c, r);
}

static bool took(const sbx_collect *c, const char *name)
{
    for (size_t i = 0; i < c->nfiles; i++)
        if (strcmp(c->files[i].name, name) == 0)
            return true;
    return false;
}

static void devices_and_fifos_are_skipped(void **state)
{
    (void)state;
    sbx_collect c;
    sbx_result r;
    run_sh("mknod wo c 0 0 && mkfifo ff && echo hi > f && ls -l wo | cut -c1", &c, &r);
    sx_assert_status(&r, SBX_OK);
    /* The attack ran: a character device sits in /box. */
    assert_true(r.stdout_len >= 1 && r.stdout_buf[0] == 'c');
    assert_string_equal(c.refused, "");
    assert_int_equal(c.nfiles, 1);
    assert_true(took(&c, "f"));
    sbx_result_free(&r);
    sbx_collect_free(&c);
}

static void names_in_refusals_are_escaped(void **state)
{
    (void)state;
    sbx_collect c;
    sbx_result r;
    run_sh("d=$(printf 'x\\033[31m\\nforged'); mkdir -p \"$d/1/2/3/4/5\"", &c, &r);
    sx_assert_status(&r, SBX_OK);
    assert_true(c.refused[0] != 0);
    for (const char *p = c.refused; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            fail_msg("a program's byte 0x%02x in the refusal: %s", (unsigned char)*p, c.refused);
    sbx_result_free(&r);
    sbx_collect_free(&c);
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    assert_non_null(d);
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void refused_trees_leak_no_fd(void **state)
{
    (void)state;
    int before = open_fds();
    for (int i = 0; i < 5; i++) {
        sbx_collect c;
        sbx_result r;
        run_sh("mkdir -p a/b/c/d/e/f", &c, &r);
        sx_assert_status(&r, SBX_OK);
        assert_true(strstr(c.refused, "nested too deep") != NULL);
        sbx_result_free(&r);
        sbx_collect_free(&c);
    }
    assert_int_equal(open_fds(), before);
}

static void only_the_name_asked_for(void **state)
{
    (void)state;
    sbx_collect c;
    sbx_result r;
    run_only("echo 42 > tout; echo no > other; mkdir d; echo no > d/tout", "tout", &c, &r);
    sx_assert_status(&r, SBX_OK);
    assert_int_equal(c.nfiles, 1);
    assert_true(took(&c, "tout"));
    assert_int_equal(c.files[0].len, 3);
    sbx_result_free(&r);
    sbx_collect_free(&c);
    run_only("mkdir -p feedback/x; echo m > feedback/judgemessage.txt; echo s > feedback/x/score.txt; echo no > f",
             "feedback", &c, &r);
    assert_int_equal(c.nfiles, 2);
    assert_true(took(&c, "feedback/judgemessage.txt") && took(&c, "feedback/x/score.txt"));
    /* Each file handed back is numbered (sbx_file.content_id), apart. */
    assert_true(c.files[0].content_id && c.files[1].content_id && c.files[0].content_id != c.files[1].content_id);
    sbx_result_free(&r);
    sbx_collect_free(&c);
    /* Not there, a link to a file outside /box, a fifo: nothing, no error. */
    static const char *const cmds[] = { "echo no > other", "ln -s /etc/passwd tout", "mkfifo tout" };
    for (size_t i = 0; i < 3; i++) {
        run_only(cmds[i], "tout", &c, &r);
        sx_assert_status(&r, SBX_OK);
        assert_int_equal(c.nfiles, 0);
        assert_string_equal(c.refused, "");
        sbx_result_free(&r);
        sbx_collect_free(&c);
    }
    /* Over the bound: refused, said why. */
    run_only("head -c 2000000 /dev/zero > tout", "tout", &c, &r);
    assert_int_equal(c.nfiles, 0);
    assert_non_null(strstr(c.refused, "more bytes than allowed"));
    sbx_result_free(&r);
    sbx_collect_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(devices_and_fifos_are_skipped, sx_test_setup),
        cmocka_unit_test_setup(names_in_refusals_are_escaped, sx_test_setup),
        cmocka_unit_test_setup(refused_trees_leak_no_fd, sx_test_setup),
        cmocka_unit_test_setup(only_the_name_asked_for, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
