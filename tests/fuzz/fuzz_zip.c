/* fuzz_zip.c -- libFuzzer target for archives (zip.c, inflate by zlib):
 * the input is a zip; what it holds, when it is read, is then read as a
 * problem package whole (any kind the reader finds). Members are bounded
 * at 64 MiB together, so a bomb must be refused, never inflated. */
#include "tests/fuzz/fuzz_common.h"
#include "worker/problem/zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    wk_zip z;
    if (wk_zip_read(data, size, "fuzz.zip", 64u << 20, &z, err, sizeof err) < 0) {
        fz_check_message(err, sizeof err);
        if (z.files)
            __builtin_trap();
        return 0;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < z.n; i++)
        total += z.files[i].len;
    if (total > (64u << 20))
        __builtin_trap();
    fz_read_package(z.files, z.n);
    wk_zip_free(&z);
    return 0;
}
