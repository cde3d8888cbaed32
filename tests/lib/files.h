/* files.h -- reading a whole file in tests and benchmarks. */
#ifndef GRADEQ_TESTS_FILES_H
#define GRADEQ_TESTS_FILES_H

#include <stddef.h>

/* The whole file, malloc'd with a NUL after it; NULL when unreadable. */
char *tl_read_file(const char *path, size_t *len);
/* The same for the test program NAME of $GRADEQ_PROGS (default build/progs). */
char *tl_read_prog(const char *name, size_t *len);

#endif
