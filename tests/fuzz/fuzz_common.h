/* fuzz_common.h -- what the problem readers' fuzz targets share: a
 * package in memory (fixed files around the one the fuzzer writes), read
 * whole, and the checks every refusal must pass (one line, no byte a
 * terminal would take as control). Header-only: each target
 * is one translation unit. */
#ifndef GRADEQ_TESTS_FUZZ_COMMON_H
#define GRADEQ_TESTS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "worker/problem/material.h"
#include "worker/problem/problem.h"

/* A refusal is one line of printable ASCII: whatever of the material it
 * names is escaped. */
static inline void fz_check_message(const char *err, size_t errlen)
{
    const char *end = memchr(err, 0, errlen);
    if (!end || end == err)
        __builtin_trap();
    for (const char *c = err; c < end; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
            __builtin_trap();
}

/* Reads the package files[0..n) whole as a problem, checking what the
 * reader promises: a refusal is a clean line, a problem has 1..1000
 * tests, each named, its groups' tests and dependencies in range. */
static inline void fz_read_package(const q_file *files, size_t n)
{
    char err[512] = "";
    wk_mat *m;
    wk_problem p;
    if (wk_mat_open_mem(files, n, "fuzz", NULL, &m, err, sizeof err) < 0) {
        fz_check_message(err, sizeof err);
        return;
    }
    memset(&p, 0, sizeof p);
    if (wk_problem_read(m, &p, err, sizeof err) < 0) {
        fz_check_message(err, sizeof err);
        return;
    }
    if (p.ntests == 0 || p.ntests > Q_TESTS_MAX)
        __builtin_trap();
    for (size_t i = 0; i < p.ntests; i++)
        if (!p.tests[i].name || !p.tests[i].name[0])
            __builtin_trap();
    for (size_t g = 0; g < p.ngroups; g++) {
        for (size_t k = 0; k < p.groups[g].ntests; k++)
            if (p.groups[g].tests[k] >= p.ntests)
                __builtin_trap();
        for (size_t k = 0; k < p.groups[g].ndepends; k++)
            if (p.groups[g].depends_on[k] >= g)
                __builtin_trap();
    }
    wk_problem_free(&p);
}

#endif
