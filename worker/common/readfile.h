/* readfile.h -- whole files and streams into memory, capped. */
#ifndef GRADEQ_WORKER_READFILE_H
#define GRADEQ_WORKER_READFILE_H

#include <stddef.h>
#include <stdint.h>

/* Reads fd to its end, at most max bytes (a pipe, a terminal, a FIFO);
 * name is for messages; *buf is malloc'd. */
int wk_read_stream(int fd, const char *name, uint64_t max, char **buf, size_t *len, char *err, size_t errlen);
/* Reads a whole regular file of at most max bytes (a FIFO or a device is
 * refused without blocking). */
int wk_read_file(const char *path, uint64_t max, char **buf, size_t *len, char *err, size_t errlen);

#endif
