/* readfile.c -- whole files and streams into memory, each capped before it
 * is allocated (readfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/common/readfile.h"

int wk_read_file(const char *path, uint64_t max, char **buf, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a fifo must not block the open */
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        snprintf(err, errlen, "%s: %s", path, S_ISREG(st.st_mode) ? "file too large" : "not a regular file");
        close(fd);
        return -1;
    }
    char *p = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (p && got < (size_t)st.st_size) {
        ssize_t n = read(fd, p + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!p || got != (size_t)st.st_size) {
        snprintf(err, errlen, "%s: %s", path, p ? "short read" : "out of memory");
        free(p);
        return -1;
    }
    *buf = p;
    *len = got;
    return 0;
}

int wk_read_stream(int fd, const char *name, uint64_t max, char **buf, size_t *len, char *err, size_t errlen)
{
    size_t size = 0, got = 0;
    char *p = NULL;
    for (;;) {
        if (got == size) {
            if (size > max) {
                free(p);
                return snprintf(err, errlen, "%s: more than %" PRIu64 " bytes", name, max), -1;
            }
            size_t next = size ? size * 2 : 65536;
            char *np = realloc(p, next + 1);
            if (!np) {
                free(p);
                return snprintf(err, errlen, "%s: out of memory", name), -1;
            }
            p = np;
            size = next;
        }
        ssize_t n = read(fd, p + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(p);
            return snprintf(err, errlen, "%s: %s", name, strerror(e)), -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    if (got > max) {
        free(p);
        return snprintf(err, errlen, "%s: more than %" PRIu64 " bytes", name, max), -1;
    }
    *buf = p;
    *len = got;
    return 0;
}
