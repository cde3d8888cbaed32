/* files.c -- reading a whole file (a test program to place in /box). */
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/files.h"

char *tl_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *p = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)n + 1)) &&
        fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p) {
        p[n] = 0;
        *len = (size_t)n;
    }
    return p;
}

char *tl_read_prog(const char *name, size_t *len)
{
    const char *dir = getenv("GRADEQ_PROGS") ? getenv("GRADEQ_PROGS") : "build/progs";
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tl_read_file(path, len);
}

char *tl_mkdtemp(char *buf, size_t len, const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    return tl_mkdtemp_in(buf, len, tmp && tmp[0] ? tmp : "/tmp", prefix);
}

char *tl_mkdtemp_in(char *buf, size_t len, const char *parent, const char *prefix)
{
    int n = snprintf(buf, len, "%s/%s", parent, prefix);
    if (n < 0 || (size_t)n + 7 > len) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    /* mkdtemp's template: the name, then six X it replaces. */
    memset(buf + n, 'X', 6);
    buf[n + 6] = '\0';
    return mkdtemp(buf);
}
