/* testdir.h -- the tests of a folder (testdir.c): NAME.in with NAME.out or
 * NAME.ans, or Polygon's NN with NN.a, in natural order. */
#ifndef GRADEQ_WORKER_TESTDIR_H
#define GRADEQ_WORKER_TESTDIR_H

#include <stdbool.h>

#include "queue/grade.h"
#include "worker/problem/material.h"

/* Reads the tests of folder sub of m ("" its root) into *out (names
 * malloc'd, named true; stdin and expected borrowed from m, which must
 * outlive them). Without need_answers (an interactor judges), an input
 * alone (NAME.in, NN) is a test too, its expected NULL. Returns 0, or -1
 * with err filled (no tests is an error). */
int wk_testdir_read(wk_mat *m, const char *sub, bool need_answers, q_test **out, size_t *n, char *err,
                    size_t errlen);
void wk_testdir_free(q_test *t, size_t n);

/* Orders names as people do: digit runs by value ("2" before "10"). */
int wk_natural_cmp(const char *a, const char *b);

#endif
