/* job_files.c -- the files map of a job or of its interactor: path rules
 * and the checks across paths.
 *
 * DESIGN. Each path is checked alone as it is read (q_path_problem), then the
 * paths are checked together once all are read: sorted, a duplicate sits
 * next to its twin, and the paths under "a/" follow the first path not
 * below "a/", so a file that another path uses as a directory is found by
 * one binary search per path, O(n log n) whatever the paths hold.
 *
 * Invariants: contents are not copied (they borrow the input); names are
 * copied NUL-terminated; pg->nfiles counts the entries filled in, so a
 * failure at any point leaves pg releasable by q_job_free.
 */
#include <stdlib.h>
#include <string.h>

#include "queue/codec_util.h"
#include "queue/job_decode.h"

const char *q_path_problem(const char *p, size_t n)
{
    size_t start = 0;

    if (n == 0)
        return "empty path";
    if (n > Q_PATH_MAX)
        return "path over 255 bytes";
    if (memchr(p, '\0', n))
        return "path contains a NUL byte";
    if (p[0] == '/')
        return "absolute path escapes /box";
    for (size_t i = 0; i <= n; i++) {
        if (i < n && p[i] != '/')
            continue;
        if (i == start)
            return "empty path component";
        if (i - start == 1 && p[start] == '.')
            return "'.' path component";
        if (i - start == 2 && p[start] == '.' && p[start + 1] == '.')
            return "path escapes /box ('..' component)";
        start = i + 1;
    }
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Index of the first of the n sorted strings not below key. */
static size_t lower_bound(char *const *s, size_t n, const char *key)
{
    size_t lo = 0, hi = n, mid;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (strcmp(s[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A path must not be given twice, nor be a file and a directory of another
 * file. s is sorted, so the paths under "a/" follow the first one not
 * below "a/"; the lookup is O(log n) per path whatever the paths hold. */
static int check_paths(char *const *s, size_t n, const char *pre, q_job_dec *d)
{
    char q[Q_QUOTE_LEN], qdir[Q_QUOTE_LEN], dir[Q_PATH_MAX + 2];
    size_t dn, k;

    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(s[i - 1], s[i]) == 0)
            return DFAIL(d, "%sfiles[%s]: duplicate path", pre, q_quote(q, s[i], strlen(s[i])));
        dn = strlen(s[i]);
        memcpy(dir, s[i], dn);
        memcpy(dir + dn, "/", 2);
        k = lower_bound(s, n, dir);
        if (k < n && strncmp(s[k], dir, dn + 1) == 0)
            return DFAIL(d, "%sfiles[%s]: %s is a file, not a directory", pre,
                         q_quote(q, s[k], strlen(s[k])), q_quote(qdir, s[i], dn));
    }
    return 0;
}

static int check_files_paths(const q_prog *pg, const char *pre, q_job_dec *d)
{
    char **names = malloc(pg->nfiles * sizeof *names);
    int rc;

    if (!names)
        return q_job_oom(d, pre, "files");
    for (size_t i = 0; i < pg->nfiles; i++)
        names[i] = pg->files[i].name;
    qsort(names, pg->nfiles, sizeof *names, cmp_str);
    rc = check_paths(names, pg->nfiles, pre, d);
    free(names);
    return rc;
}

int q_job_decode_files(const msgpack_object *o, const char *pre, q_prog *pg, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    const msgpack_object_kv *kv;
    const char *why, *p, *data;
    size_t n;

    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "%sfiles: not a map", pre);
    if (o->via.map.size > d->b->max_files)
        return DFAIL(d, "%sfiles: %u entries exceeds the limit of %zu", pre,
                     (unsigned)o->via.map.size, d->b->max_files);
    if (o->via.map.size == 0)
        return 0;
    pg->files = calloc(o->via.map.size, sizeof *pg->files);
    if (!pg->files)
        return q_job_oom(d, pre, "files");
    for (size_t i = 0; i < o->via.map.size; i++) {
        kv = &o->via.map.ptr[i];
        if (!q_bytes(&kv->key, &p, &n))
            return DFAIL(d, "%sfiles: key %zu not a string", pre, i);
        why = q_path_problem(p, n);
        if (why)
            return DFAIL(d, "%sfiles[%s]: %s", pre, q_quote(q, p, n), why);
        if (!q_bytes(&kv->val, &data, &pg->files[i].len))
            return DFAIL(d, "%sfiles[%s]: not bytes (str or bin)", pre, q_quote(q, p, n));
        pg->files[i].data = data;
        pg->files[i].name = q_dup_bytes(p, n);
        if (!pg->files[i].name)
            return q_job_oom(d, pre, "files");
        pg->nfiles = i + 1;
    }
    return check_files_paths(pg, pre, d);
}
