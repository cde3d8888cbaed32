/* host_file.h -- a file on the host's own disk that every box sees, for the
 * tests of what a run can do to the host's page cache and disks: made under
 * /usr/local/share (reached in the box through the read-only /usr bind),
 * rewritten to leave it dirty, dropped from the page cache, counted page by
 * page, removed (at exit at the latest, when a failed test skipped it).
 * Root only. */
#ifndef GRADEQ_TESTS_HOST_FILE_H
#define GRADEQ_TESTS_HOST_FILE_H

#include <stddef.h>

typedef struct tl_host_file {
    char path[128];
    size_t bytes;
} tl_host_file;

/* Makes a new file of `bytes` bytes, written through and clean. -1 with
 * errno on failure. */
int tl_host_file_make(tl_host_file *f, size_t bytes);
/* Rewrites it whole, leaving every page dirty in the page cache. */
int tl_host_file_dirty(const tl_host_file *f);
/* Writes it back (fsync): clean, so that a rewrite after is dirty since
 * then (the kernel writes back what has been dirty 30 s on its own). */
int tl_host_file_sync(const tl_host_file *f);
/* Writes it back and drops it from the page cache. */
int tl_host_file_evict(const tl_host_file *f);
/* How many of its pages are in the page cache (dirty: dirty ones); -1 with
 * errno when that cannot be read. */
long tl_host_file_pages(const tl_host_file *f, int dirty);
void tl_host_file_remove(tl_host_file *f);

#endif
