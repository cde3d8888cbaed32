/* fuzz_testdir.c -- libFuzzer target for a folder of tests (testdir.c
 * over the material layer): the input is the folder itself, files
 * separated by a 0xff byte, each its name up to a newline and then its
 * bytes. Names the material refuses are refused; a folder read gives 1..
 * 1000 tests in natural order with printable names. */
#include <stdlib.h>

#include "tests/fuzz/fuzz_common.h"
#include "worker/problem/testdir.h"

#define FILES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    q_file files[FILES];
    char names[FILES][Q_PATH_MAX + 1];
    size_t n = 0;
    const uint8_t *p = data, *end = data + size;
    while (p < end && n < FILES) {
        const uint8_t *rec = memchr(p, 0xff, (size_t)(end - p));
        const uint8_t *stop = rec ? rec : end;
        const uint8_t *nl = memchr(p, '\n', (size_t)(stop - p));
        size_t nlen = nl ? (size_t)(nl - p) : (size_t)(stop - p);
        if (nlen > Q_PATH_MAX)
            nlen = Q_PATH_MAX;
        memcpy(names[n], p, nlen);
        names[n][nlen] = 0;
        const uint8_t *body = nl ? nl + 1 : stop;
        files[n] = (q_file){ names[n], body, (size_t)(stop - body) };
        n++;
        p = rec ? rec + 1 : end;
    }
    char err[512] = "";
    wk_mat *m;
    if (wk_mat_open_mem(files, n, "fuzz", NULL, &m, err, sizeof err) < 0) {
        fz_check_message(err, sizeof err);
        return 0;
    }
    q_test *t;
    size_t nt;
    if (wk_testdir_read(m, "", size & 1, &t, &nt, err, sizeof err) < 0) {
        fz_check_message(err, sizeof err);
    } else {
        if (nt == 0 || nt > Q_TESTS_MAX)
            __builtin_trap();
        for (size_t i = 0; i < nt; i++) {
            for (const char *c = t[i].name; *c; c++)
                if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
                    __builtin_trap();
            if (i && wk_natural_cmp(t[i - 1].name, t[i].name) >= 0)
                __builtin_trap();
        }
        wk_testdir_free(t, nt);
    }
    wk_mat_close(m);
    return 0;
}
