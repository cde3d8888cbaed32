/* test_zip.c -- archives read by our own code into memory (worker/
 * problem/zip.c): an honest one whole, stored and deflated, and each lie
 * an upload can tell refused before anything is inflated or kept:
 * escaping names, links, bombs by ratio and by overlap, the total size,
 * the member count, a CRC, encryption, methods, sizes that lie. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tests/lib/zip_writer.h"
#include "worker/problem/material.h"
#include "worker/problem/zip.h"

static int read_zip(const tl_zip_member *m, size_t n, uint64_t max, wk_zip *z, char *err)
{
    size_t len;
    unsigned char *b = tl_zip_build(m, n, &len);
    int rc = wk_zip_read(b, len, "p.zip", max, z, err, 256);
    free(b);
    return rc;
}

static void honest(void **state)
{
    (void)state;
    char *big = malloc(100000), err[256];
    memset(big, '7', 100000);
    tl_zip_member m[] = {
        { "problem.xml", "<problem/>", 10, true, S_IFREG | 0644 },
        { "tests/", "", 0, false, S_IFDIR | 0755 },
        { "tests/01", "1 2\n", 4, false, 0 },
        { "tests/01.a", big, 100000, true, S_IFREG | 0644 },
        { "empty", "", 0, true, 0 },
    };
    wk_zip z;
    assert_int_equal(read_zip(m, 5, 1 << 20, &z, err), 0);
    assert_int_equal(z.n, 4);
    wk_mat *mat;
    assert_int_equal(wk_mat_open_mem(z.files, z.n, "p.zip", NULL, &mat, err, sizeof err), 0);
    const void *d;
    size_t len;
    assert_int_equal(wk_mat_read(mat, "tests/01.a", &d, &len, err, sizeof err), 0);
    assert_int_equal(len, 100000);
    assert_memory_equal(d, big, 100000);
    assert_int_equal(wk_mat_read(mat, "tests/01", &d, &len, err, sizeof err), 0);
    assert_memory_equal(d, "1 2\n", 4);
    assert_int_equal(wk_mat_read(mat, "empty", &d, &len, err, sizeof err), 0);
    assert_int_equal(len, 0);
    wk_mat_close(mat);
    wk_zip_free(&z);
    free(big);
}

static void refused(const tl_zip_member *m, size_t n, uint64_t max, const char *want)
{
    wk_zip z;
    char err[256];
    if (read_zip(m, n, max, &z, err) != -1)
        fail_msg("%s: read, want \"%s\"", n ? m[0].name : "(none)", want);
    assert_null(z.files);
    if (!strstr(err, want))
        fail_msg("got \"%s\", want \"%s\"", err, want);
}

static void lies(void **state)
{
    (void)state;
    char *zeros = calloc(1, 4 << 20);
    tl_zip_member ok = { "a", "x", 1, false, 0 };
    tl_zip_member m[3];

    m[0] = (tl_zip_member){ "../../etc/cron.d/x", "x", 1 };
    refused(m, 1, 1 << 20, "p.zip: ../../etc/cron.d/x: a '..' component");
    m[0] = (tl_zip_member){ "/etc/passwd", "x", 1 };
    refused(m, 1, 1 << 20, "an absolute path");
    m[0] = (tl_zip_member){ "a\\..\\b", "x", 1 };
    refused(m, 1, 1 << 20, "a backslash");
    m[0] = (tl_zip_member){ "a\033]0;x\007", "x", 1 };
    refused(m, 1, 1 << 20, "a\\x1b]0;x\\x07: byte 1 of the path is not printable ASCII");
    m[0] = (tl_zip_member){ "tests/01.a", "/etc/shadow", 11, false, S_IFLNK | 0777 };
    refused(m, 1, 1 << 20, "tests/01.a: a symbolic link");
    m[0] = (tl_zip_member){ "dev", "", 0, false, S_IFCHR | 0644 };
    refused(m, 1, 1 << 20, "neither a file nor a folder");
    m[0] = (tl_zip_member){ "a", "x", 1, false, 0, 0, false, 1 };
    refused(m, 1, 1 << 20, "encrypted");
    m[0] = (tl_zip_member){ "a", "x", 1, false, 0, 0, false, 0, 12 };
    refused(m, 1, 1 << 20, "method 12");
    m[0] = (tl_zip_member){ "a", "x", 1, false, 0, 0, true };
    refused(m, 1, 1 << 20, "its CRC does not match");
    /* 4 MiB of zeros deflate to about 4 KiB (near deflate's best, 1032:1):
     * a test of zeros is data, and past the budget it is refused by size. */
    m[0] = (tl_zip_member){ "zeros", zeros, 4 << 20, true };
    wk_zip z;
    char err[256];
    assert_int_equal(read_zip(m, 1, 64 << 20, &z, err), 0);
    wk_zip_free(&z);
    refused(m, 1, 1 << 20, "zeros: the members together would pass 1048576 bytes");
    /* A member that claims more than deflate could give from its bytes:
     * refused before inflating. */
    m[0] = (tl_zip_member){ "a", "xyz", 3, true, 0, 4000000 };
    refused(m, 1, 64 << 20, "would inflate 4000000 bytes from 5 (over 1100:1, a bomb)");
    /* A member that inflates past what it declares: stops there. */
    m[0] = (tl_zip_member){ "a", zeros, 5000, true, 0, 10 };
    refused(m, 1, 64 << 20, "inflates past its declared size");
    /* The members together past the material's budget. */
    m[0] = (tl_zip_member){ "a", zeros, 600, false };
    m[1] = (tl_zip_member){ "b", zeros, 600, false };
    refused(m, 2, 1000, "b: the members together would pass 1000 bytes");
    /* Two members sharing one member's bytes: the overlap bomb. */
    m[0] = (tl_zip_member){ "a", zeros, 1000, true };
    m[1] = (tl_zip_member){ "a", zeros, 1000, true, 0, 0, false, 0, 0, 1 };
    refused(m, 2, 1 << 20, "a: its bytes overlap another member's (a zip bomb)");
    m[1] = (tl_zip_member){ "b", zeros, 1000, true, 0, 0, false, 0, 0, 1 };
    refused(m, 2, 1 << 20, "b: its local header names another member");
    assert_int_equal(read_zip(m, 0, 1 << 20, &z, err), 0); /* empty, but a zip */
    assert_int_equal(z.n, 0);
    wk_zip_free(&z);
    free(zeros);

    size_t len;
    unsigned char *b = tl_zip_build(&ok, 1, &len);
    assert_int_equal(wk_zip_read(b, len - 1, "p.zip", 1 << 20, &z, err, sizeof err), -1);
    assert_string_equal(err, "p.zip: not a zip archive (no end record)");
    assert_int_equal(wk_zip_read("PK\x05\x06", 4, "p.zip", 1 << 20, &z, err, sizeof err), -1);
    free(b);
}

static void member_count(void **state)
{
    (void)state;
    size_t n = WK_ZIP_MEMBERS + 1;
    tl_zip_member *m = calloc(n, sizeof *m);
    char (*names)[16] = calloc(n, 16);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], 16, "t/%zu", i);
        m[i] = (tl_zip_member){ names[i], "", 0 };
    }
    refused(m, n, 1 << 20, "16385 members (at most 16384)");
    wk_zip z;
    char err[256];
    assert_int_equal(read_zip(m, n - 1, 1 << 20, &z, err), 0);
    assert_int_equal(z.n, n - 1);
    wk_zip_free(&z);
    free(m);
    free(names);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(honest),
        cmocka_unit_test(lies),
        cmocka_unit_test(member_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
