/* fuzz_polygon.c -- libFuzzer target for a Polygon package's problem.xml
 * (polygon.c over xml.c): the fuzzer writes problem.xml, beside fixed
 * tests, a checker, resources and solutions it may name. Any input is
 * read or refused without a crash, a leak or undefined behaviour, and
 * every refusal is one clean line (fuzz_common.h). */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const q_file files[] = {
        { "problem.xml", data, size },
        { "tests/01", "1 2\n", 4 },         { "tests/01.a", "3\n", 2 },
        { "tests/02", "5 6\n", 4 },         { "tests/03", "7 8\n", 4 },
        { "tests/03.a", "15\n", 3 },        { "files/check.cpp", "int main(){}", 12 },
        { "files/testlib.h", "", 0 },       { "files/gen.cpp", "int main(){}", 12 },
        { "solutions/main.cpp", "int main(){}", 12 },
    };
    fz_read_package(files, sizeof files / sizeof files[0]);
    return 0;
}
