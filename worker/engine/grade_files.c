/* grade_files.c -- a test's files over the base files (grade_files.h).
 *
 * The base is placed in /box before the test's files, and the sandbox
 * refuses a path placed twice or a file in the way of a directory. The base
 * may hold anything the compile step chose to leave, so a clash with a
 * test's file is resolved here, the test's file winning, and never reaches
 * the sandbox as its failure. Paths are at most Q_PATH_MAX bytes (the
 * job's rule, and collect's).
 */
#include <stdlib.h>
#include <string.h>

#include "worker/engine/grade_files.h"

bool wk_path_clash(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    return (!a[i] && (!b[i] || b[i] == '/')) || (!b[i] && a[i] == '/');
}

static int by_name(const void *x, const void *y, void *files)
{
    const sbx_file *f = files;
    return strcmp(f[*(const size_t *)x].name, f[*(const size_t *)y].name);
}

void wk_base_files_free(wk_base_files *b)
{
    free(b->order);
    free(b->drop);
    memset(b, 0, sizeof *b);
}

int wk_base_files_init(wk_base_files *b, const sbx_file *files, size_t n)
{
    *b = (wk_base_files){ files, n, malloc((n + 1) * sizeof *b->order), calloc(n + 1, 1) };
    if (!b->order || !b->drop) {
        wk_base_files_free(b);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        b->order[i] = i;
    qsort_r(b->order, n, sizeof *b->order, by_name, (void *)files);
    return 0;
}

/* Position in the sorted base of the first name not below key[0..klen). */
static size_t lower_bound(const wk_base_files *b, const char *key, size_t klen)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *s = b->files[b->order[mid]].name;
        if (strncmp(s, key, klen) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Marks the base file named exactly key[0..klen). */
static void drop_exact(wk_base_files *b, const char *key, size_t klen)
{
    size_t k = lower_bound(b, key, klen);
    if (k < b->n) {
        const char *s = b->files[b->order[k]].name;
        if (strncmp(s, key, klen) == 0 && !s[klen])
            b->drop[b->order[k]] = 1;
    }
}

size_t wk_test_files(wk_base_files *b, const q_prog *t, sbx_file *out)
{
    char dir[Q_PATH_MAX + 2];
    memset(b->drop, 0, b->n);
    for (size_t i = 0; i < t->nfiles && b->n; i++) {
        const char *name = t->files[i].name;
        size_t len = strlen(name);
        drop_exact(b, name, len);
        for (size_t k = 0; k < len; k++) /* base files where it needs a directory */
            if (name[k] == '/')
                drop_exact(b, name, k);
        if (len + 1 >= sizeof dir)
            continue;
        memcpy(dir, name, len);
        dir[len] = '/';
        for (size_t k = lower_bound(b, dir, len + 1); /* base files under it, a directory there */
             k < b->n && strncmp(b->files[b->order[k]].name, dir, len + 1) == 0; k++)
            b->drop[b->order[k]] = 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++)
        if (!b->drop[i])
            out[n++] = b->files[i];
    for (size_t i = 0; i < t->nfiles; i++)
        out[n++] = (sbx_file){ t->files[i].name, t->files[i].data, t->files[i].len, true };
    return n;
}
