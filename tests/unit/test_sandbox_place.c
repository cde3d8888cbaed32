/* test_sandbox_place.c -- files placed for a run stay in /box for the next
 * run that places the same ones, and that run sees them exactly as
 * placed whatever the run before did to their names: unlinked, renamed,
 * replaced, linked, their directory swapped. A run that places other
 * files sees none of the kept ones. A file the caller numbered is not
 * read again to compare. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sandbox/sandbox.h"
#include "tests/lib/sandbox_fixtures.h"

static const char data[] = "the original bytes\n";
static const char deep[] = "deep original\n";
static const char twin[] = "THE ORIGINAL TWIN\n\n"; /* data's size and mode */
static const sbx_file files[] = {
    { "data", data, sizeof data - 1, false },
    { "d/e/deep", deep, sizeof deep - 1, true },
    { "d/twin", twin, sizeof twin - 1, false },
};

/* Runs sh -c cmd in the shared box with files[0..n); its stdout in out
 * (NUL-terminated, at most len - 1 bytes). */
static void sh_files(const char *cmd, const sbx_file *f, size_t n, char *out, size_t len)
{
    const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    sbx_spec s = { .argv = argv, .files = f, .nfiles = n };
    sbx_limits_default(&s.limits);
    sbx_result r;
    assert_int_equal(sbx_run(sx_box, &s, &r), 0);
    sx_assert_status(&r, SBX_OK);
    size_t k = r.stdout_len < len - 1 ? r.stdout_len : len - 1;
    memcpy(out, r.stdout_buf, k);
    out[k] = 0;
    sbx_result_free(&r);
}

static void sh(const char *cmd, char *out, size_t len)
{
    sh_files(cmd, files, 3, out, len);
}

/* What a run of the same files sees: both files whole, root's, with their
 * modes and one link each, and nothing else in /box. */
#define LOOK "cat data d/e/deep d/twin; stat -c '%u %a %h %s %n' data d/e/deep d/twin d d/e; " \
             "find . | sort | tr '\\n' ' '"
static const char want[] = "the original bytes\ndeep original\nTHE ORIGINAL TWIN\n\n"
                           "0 644 1 19 data\n0 755 1 14 d/e/deep\n0 644 1 19 d/twin\n"
                           "UID 755 3 80 d\nUID 755 2 60 d/e\n"
                           ". ./d ./d/e ./d/e/deep ./d/twin ./data ";

static void looks_placed(void)
{
    char out[1024], w[sizeof want + 64];
    sh(LOOK, out, sizeof out);
    /* The directories are the slot's uid's: named by number. */
    snprintf(w, sizeof w, "%s", want);
    char uid[16];
    snprintf(uid, sizeof uid, "%u", sx_slot_uid());
    char *at;
    while ((at = strstr(w, "UID"))) {
        memmove(at + strlen(uid), at + 3, strlen(at + 3) + 1);
        memcpy(at, uid, strlen(uid));
    }
    assert_string_equal(out, w);
}

/* The second run of the same files finds the first's in place: the same
 * inodes (a fresh placement makes new ones). */
static void same_files_are_kept(void **state)
{
    (void)state;
    char a[256], b[256];
    sh("stat -c %i data d/e/deep d/twin d d/e", a, sizeof a);
    sh("stat -c %i data d/e/deep d/twin d d/e", b, sizeof b);
    assert_string_equal(a, b);
    looks_placed();
}

/* Each attack on the kept names, then a run of the same files. */
static void kept_files_survive_what_a_run_does_to_names(void **state)
{
    (void)state;
    static const char *const attacks[] = {
        "rm data; echo evil > data",
        "mv data x; echo evil > data",
        "mv data x; ln -s /etc/passwd data",
        "ln data hard 2>/dev/null; ln d/e/deep d/hard 2>/dev/null; true",
        "mv data d/e/; mv d/e/deep data",
        "mv data tmp; mv d/e/deep data; mv tmp d/e/deep",
        "mv d x; mkdir -p d/e; echo evil > d/e/deep; chmod 755 d/e/deep",
        "chmod 0 d/e; chmod 700 d; touch d/new",
        "rm -rf d; mkdir d; ln -s /etc d/e",
        "mv data .data; mv .data data",
        "mv data x; mv d/twin data; mv x d/twin",
        "rm -rf ./* ./.??* 2>/dev/null; true",
    };
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        char out[256];
        sh(attacks[i], out, sizeof out);
        looks_placed();
    }
}

/* A run that places other files, or the same name with other bytes or
 * another mode, sees only its own. */
static void other_files_see_none_of_the_kept(void **state)
{
    (void)state;
    char out[512];
    sh("true", out, sizeof out);
    static const char other[] = "other bytes here\n"; /* not data's length */
    static const char same_len[] = "THE ORIGINAL BYTES\n";
    sbx_file f[] = { { "data", same_len, sizeof same_len - 1, false }, { "d/x", other, sizeof other - 1, false } };
    sh_files("cat data d/x; find . | sort | tr '\\n' ' '", f, 2, out, sizeof out);
    assert_string_equal(out, "THE ORIGINAL BYTES\nother bytes here\n. ./d ./d/x ./data ");
    sh("true", out, sizeof out);
    sbx_file g[] = { { "data", data, sizeof data - 1, true } };
    sh_files("stat -c '%a %s' data; find . | sort | tr '\\n' ' '", g, 1, out, sizeof out);
    assert_string_equal(out, "755 19\n. ./data ");
    sh_files("find . | sort | tr '\\n' ' '", NULL, 0, out, sizeof out);
    assert_string_equal(out, ". ");
    looks_placed();
}

/* A file the caller numbered is compared by its number: placed again
 * under the same one, the kept file is not read (so bytes that broke the
 * caller's promise are not seen: the proof that it was not read); under
 * another number, or none, it is compared as before. */
static void numbered_files_are_not_read_again(void **state)
{
    (void)state;
    char out[256];
    uint64_t id = sbx_content_id(), other = sbx_content_id();
    assert_true(id != 0 && other != id);
    sbx_file f = { "data", data, sizeof data - 1, false, id };
    sh_files("cat data", &f, 1, out, sizeof out);
    assert_string_equal(out, data);
    f.data = twin; /* data's size: only a read could tell */
    sh_files("cat data", &f, 1, out, sizeof out);
    assert_string_equal(out, data);
    f.content_id = other;
    sh_files("cat data", &f, 1, out, sizeof out);
    assert_string_equal(out, twin);
    f.content_id = 0;
    f.data = data;
    sh_files("cat data", &f, 1, out, sizeof out);
    assert_string_equal(out, data);
}

/* Numbered, the kept files still survive every attack on their names:
 * what the wipe did not keep is placed anew from the caller's bytes. */
static void numbered_files_survive_what_a_run_does_to_names(void **state)
{
    (void)state;
    sbx_file f[3];
    memcpy(f, files, sizeof f);
    for (int i = 0; i < 3; i++)
        f[i].content_id = sbx_content_id();
    static const char *const attacks[] = {
        "rm data; echo evil > data",
        "mv data x; echo evil.............. > data",
        "mv data tmp; mv d/e/deep data; mv tmp d/e/deep",
        "mv data x; mv d/twin data; mv x d/twin",
        "rm -rf d; mkdir d; ln -s /etc d/e",
    };
    char out[1024];
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        sh_files(attacks[i], f, 3, out, sizeof out);
        sh_files("cat data d/e/deep d/twin", f, 3, out, sizeof out);
        assert_string_equal(out, "the original bytes\ndeep original\nTHE ORIGINAL TWIN\n\n");
    }
    looks_placed();
}

/* A kept file's times are the run's own, as a file placed for it has
 * them: each of the three is no earlier than the moment the run was asked
 * for, read from the clock file times come from (the coarse one, which
 * may lag the precise one by a tick). The run between sleeps so that the
 * times of its own placement are clearly earlier. (Compared with the
 * moment the run looked, "within the last half second", the check failed
 * where starting the run took longer.) */
static void kept_files_have_the_runs_times(void **state)
{
    (void)state;
    char out[512];
    sh("true", out, sizeof out);
    sh("cat data >/dev/null; sleep 1.2", out, sizeof out);
    struct timespec t0;
    assert_int_equal(clock_gettime(CLOCK_REALTIME_COARSE, &t0), 0);
    sh("stat -c '%.9X %.9Y %.9Z %n' data d/e/deep d/twin d d/e", out, sizeof out);
    static const char *const kind[] = { "access", "modification", "change" };
    int n = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"), n++) {
        long long s[3], ns[3];
        char name[64];
        if (sscanf(line, "%lld.%lld %lld.%lld %lld.%lld %63s", &s[0], &ns[0], &s[1], &ns[1], &s[2], &ns[2], name) != 7)
            fail_msg("stat said \"%s\"", line);
        for (int i = 0; i < 3; i++)
            if (s[i] < t0.tv_sec || (s[i] == t0.tv_sec && ns[i] < t0.tv_nsec))
                fail_msg("%s: its %s time %lld.%09lld is before the run (%lld.%09lld)", name, kind[i], s[i],
                         ns[i], (long long)t0.tv_sec, (long long)t0.tv_nsec);
    }
    assert_int_equal(n, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(same_files_are_kept, sx_test_setup),
        cmocka_unit_test_setup(kept_files_survive_what_a_run_does_to_names, sx_test_setup),
        cmocka_unit_test_setup(other_files_see_none_of_the_kept, sx_test_setup),
        cmocka_unit_test_setup(kept_files_have_the_runs_times, sx_test_setup),
        cmocka_unit_test_setup(numbered_files_are_not_read_again, sx_test_setup),
        cmocka_unit_test_setup(numbered_files_survive_what_a_run_does_to_names, sx_test_setup),
    };
    return cmocka_run_group_tests(tests, sx_group_setup, sx_group_teardown);
}
