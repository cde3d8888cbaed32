/* fuzz_kattis.c -- libFuzzer target for a Kattis package's problem.yaml
 * (kattis.c over yaml.c and numbers.c): the fuzzer writes problem.yaml,
 * beside fixed sample and secret data and an output validator. */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const q_file files[] = {
        { "problem.yaml", data, size },
        { "data/sample/1.in", "1 2\n", 4 },           { "data/sample/1.ans", "3\n", 2 },
        { "data/secret/a.in", "5 6\n", 4 },           { "data/secret/a.ans", "11\n", 3 },
        { "data/secret/g/b.in", "7 8\n", 4 },         { "data/secret/g/b.ans", "15\n", 3 },
        { "output_validators/v/validate.cpp", "int main(){}", 12 },
        { "output_validators/v/validate.h", "", 0 },  { ".timelimit", "2\n", 2 },
    };
    fz_read_package(files, sizeof files / sizeof files[0]);
    return 0;
}
