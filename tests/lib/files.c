/* files.c -- reading a whole file (a test program to place in /box). */
#include <stdio.h>
#include <stdlib.h>

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
