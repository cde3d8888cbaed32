/* files.h -- whole files and temporary directories in tests and benchmarks. */
#ifndef GRADEQ_TESTS_FILES_H
#define GRADEQ_TESTS_FILES_H

#include <stddef.h>

/* The whole file, malloc'd with a NUL after it; NULL when unreadable. */
char *tl_read_file(const char *path, size_t *len);
/* The same for the test program NAME of $GRADEQ_PROGS (default build/progs). */
char *tl_read_prog(const char *name, size_t *len);

/* A new directory $TMPDIR/PREFIX + six random characters (mkdtemp) in buf;
 * NULL with errno on failure or when it would not fit. */
char *tl_mkdtemp(char *buf, size_t len, const char *prefix);
/* The same under PARENT instead of $TMPDIR. */
char *tl_mkdtemp_in(char *buf, size_t len, const char *parent, const char *prefix);

#endif
