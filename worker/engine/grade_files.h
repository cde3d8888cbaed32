/* grade_files.h -- the files of one test: what every test starts from (the
 * job's files, or what the compile step left) with the test's own on top
 * (grade_files.c). */
#ifndef GRADEQ_WORKER_GRADE_FILES_H
#define GRADEQ_WORKER_GRADE_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "queue/job.h"
#include "sandbox/sandbox.h"

/* True when paths a and b cannot both be placed in one /box: equal, or one
 * a directory of the other ("a" and "a/b"). */
bool wk_path_clash(const char *a, const char *b);

/* The base files, sorted by name once, so that each test's files find what
 * they displace by binary search. */
typedef struct wk_base_files {
    const sbx_file *files;
    size_t n;
    size_t *order;        /* indices of files by name */
    unsigned char *drop;  /* scratch: one byte per base file */
} wk_base_files;

int wk_base_files_init(wk_base_files *b, const sbx_file *files, size_t n);
void wk_base_files_free(wk_base_files *b);

/* Fills out (room for b->n + t->nfiles) with the base files that none of
 * t's files clashes with, then t's files: a test's own file wins over one
 * of the job's or one the compile step left at its path or in its way.
 * Returns how many. O((n + k) log n) for k files of the test. */
size_t wk_test_files(wk_base_files *b, const q_prog *t, sbx_file *out);

#endif
