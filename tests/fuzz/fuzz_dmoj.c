/* fuzz_dmoj.c -- libFuzzer target for a DMOJ problem's init.yml (dmoj.c
 * over yaml.c): the fuzzer writes init.yml, beside fixed test files and a
 * bridged checker's source. */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const q_file files[] = {
        { "init.yml", data, size },
        { "1.in", "1 2\n", 4 },   { "1.out", "3\n", 2 },      { "2.in", "5 6\n", 4 },
        { "2.out", "11\n", 3 },   { "check.cpp", "int main(){}", 12 }, { "testlib.h", "", 0 },
    };
    fz_read_package(files, sizeof files / sizeof files[0]);
    return 0;
}
