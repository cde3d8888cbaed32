/* material.c -- problem material read safely (material.h).
 *
 * A file on disk is opened twice, both times beneath the root with no
 * link followed: first as O_PATH, which opens nothing for reading, so a
 * device or a fifo is refused before any driver sees an open; then for
 * reading, and the two must be the same regular file (a swap between the
 * two opens is refused, not read). Its size is checked against what is
 * left of the material's budget before anything is allocated, and the
 * read stops at that size.
 *
 * Files read are kept in a hash set by name (the same file asked twice is
 * served once, and the list of files read is a client's shipment); files
 * in memory are found by binary search over a sorted copy of their list.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/common/text.h"
#include "worker/problem/beneath.h"
#include "worker/problem/material.h"

struct wk_mat {
    int root;              /* -1: in memory */
    q_file *mem;           /* sorted by name (borrowed names and data) */
    size_t nmem;
    bool allow_hardlinks;
    uint64_t left;         /* bytes the reads may still take */
    char name[WK_MAT_QUOTE_MAX];
    q_file *read;          /* files read, in order (names owned) */
    size_t nread, capread;
    size_t *set;           /* hash set of indices into read, +1; 0 empty */
    size_t setcap;
    void **owned;          /* buffers handed out */
    size_t nowned, capowned;
};

const char *wk_mat_quote(char *out, size_t size, const char *p)
{
    size_t o = 0;
    for (; *p && o + 5 < size; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c < 0x7f && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
    }
    if (size)
        out[o < size ? o : size - 1] = 0;
    return out;
}

int wk_mat_path_check(const char *p, char *why, size_t whylen)
{
    size_t n = strlen(p);
    if (n == 0)
        return snprintf(why, whylen, "an empty path"), -1;
    if (n > Q_PATH_MAX)
        return snprintf(why, whylen, "a path over %d bytes", Q_PATH_MAX), -1;
    if (p[0] == '/')
        return snprintf(why, whylen, "an absolute path (material names paths relative to its root)"), -1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] > 0x7e || p[i] == '\\')
            return snprintf(why, whylen, "byte %zu of the path is not printable ASCII (or is a backslash)", i), -1;
    for (const char *c = p;;) {
        const char *e = strchr(c, '/');
        size_t k = e ? (size_t)(e - c) : strlen(c);
        if (k == 0)
            return snprintf(why, whylen, "an empty path component"), -1;
        if ((k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.'))
            return snprintf(why, whylen, "a '%.*s' component (paths stay beneath the root)", (int)k, c), -1;
        if (!e)
            return 0;
        c = e + 1;
    }
}

/* "NAME/rel: " then the rule, into err. Returns -1. */
static int refuse(const wk_mat *m, const char *rel, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int refuse(const wk_mat *m, const char *rel, char *err, size_t errlen, const char *fmt, ...)
{
    char q[WK_MAT_QUOTE_MAX];
    int k = snprintf(err, errlen, "%s%s%s: ", m->name, *rel ? "/" : "", wk_mat_quote(q, sizeof q, rel));
    if (k >= 0 && (size_t)k < errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(err + k, errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int own(wk_mat *m, void *p)
{
    if (m->nowned == m->capowned) {
        size_t cap = m->capowned ? 2 * m->capowned : 64;
        void **n = realloc(m->owned, cap * sizeof *n);
        if (!n)
            return -1;
        m->owned = n;
        m->capowned = cap;
    }
    m->owned[m->nowned++] = p;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const q_file *)a)->name, ((const q_file *)b)->name);
}

static wk_mat *new_mat(const wk_mat_opts *o, const char *name)
{
    wk_mat *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->root = -1;
    m->allow_hardlinks = o && o->allow_hardlinks;
    m->left = o && o->max_bytes ? o->max_bytes : WK_MAT_BYTES_DEFAULT;
    wk_mat_quote(m->name, sizeof m->name, name);
    return m;
}

int wk_mat_open_dir(const char *dir, const wk_mat_opts *opts, wk_mat **out, char *err, size_t errlen)
{
    char q[WK_MAT_QUOTE_MAX];
    *out = NULL;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return snprintf(err, errlen, "%s: %s", wk_mat_quote(q, sizeof q, dir), strerror(errno)), -1;
    wk_mat *m = new_mat(opts, dir);
    if (!m) {
        close(fd);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    m->root = fd;
    *out = m;
    return 0;
}

int wk_mat_open_held(const char *dir, const char *name, const wk_mat_opts *opts, wk_mat **out, char *err,
                     size_t errlen)
{
    char q[WK_MAT_QUOTE_MAX], why[128];
    *out = NULL;
    if (strchr(name, '/') || wk_mat_path_check(name, why, sizeof why) < 0)
        return snprintf(err, errlen, "%s: not the name of a problem", wk_mat_quote(q, sizeof q, name)), -1;
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return snprintf(err, errlen, "%s: %s", wk_mat_quote(q, sizeof q, dir), strerror(errno)), -1;
    int fd = wk_beneath_open(d, name, O_RDONLY | O_DIRECTORY);
    int e = errno;
    close(d);
    if (fd < 0)
        return snprintf(err, errlen, "problem %s: %s", wk_mat_quote(q, sizeof q, name),
                        e == ENOENT ? "no such problem here" : e == ELOOP || e == ENOTDIR ? "not a folder (a link?)"
                                                                                          : strerror(e)), -1;
    wk_mat *m = new_mat(opts, name);
    if (!m) {
        close(fd);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    m->root = fd;
    *out = m;
    return 0;
}

/* Whether a (sorted before b) is b's directory: "a" then "a/...". */
static bool dir_of(const char *a, const char *b)
{
    size_t n = strlen(a);
    return strncmp(a, b, n) == 0 && b[n] == '/';
}

int wk_mat_open_mem(const q_file *files, size_t n, const char *what, const wk_mat_opts *opts, wk_mat **out,
                    char *err, size_t errlen)
{
    char why[128];
    *out = NULL;
    wk_mat *m = new_mat(opts, what);
    if (!m || !(m->mem = malloc((n + 1) * sizeof *m->mem))) {
        free(m);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    m->nmem = n;
    memcpy(m->mem, files, n * sizeof *files);
    qsort(m->mem, n, sizeof *m->mem, by_name);
    for (size_t i = 0; i < n; i++) {
        const char *name = m->mem[i].name;
        if (wk_mat_path_check(name, why, sizeof why) < 0)
            refuse(m, name, err, errlen, "%s", why);
        else if (i > 0 && strcmp(m->mem[i - 1].name, name) == 0)
            refuse(m, name, err, errlen, "%s", "there twice");
        else if (i > 0 && dir_of(m->mem[i - 1].name, name))
            refuse(m, name, err, errlen, "%s", "under a path that is a file");
        else
            continue;
        wk_mat_close(m);
        return -1;
    }
    *out = m;
    return 0;
}

void wk_mat_close(wk_mat *m)
{
    if (!m)
        return;
    if (m->root >= 0)
        close(m->root);
    for (size_t i = 0; i < m->nowned; i++)
        free(m->owned[i]);
    for (size_t i = 0; i < m->nread; i++)
        free(m->read[i].name);
    free(m->owned);
    free(m->read);
    free(m->set);
    free(m->mem);
    free(m);
}

const char *wk_mat_name(const wk_mat *m)
{
    return m->name;
}

/* --- in memory ------------------------------------------------------------ */

/* Index of the first file whose name is not below key[0..klen). */
static size_t lower(const wk_mat *m, const char *key, size_t klen)
{
    size_t lo = 0, hi = m->nmem;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strncmp(m->mem[mid].name, key, klen) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const q_file *mem_find(const wk_mat *m, const char *rel)
{
    size_t k = lower(m, rel, strlen(rel) + 1);
    return k < m->nmem && strcmp(m->mem[k].name, rel) == 0 ? &m->mem[k] : NULL;
}

/* Whether some file lies under rel/ ("" : any file). */
static bool mem_is_dir(const wk_mat *m, const char *rel, size_t *first)
{
    char pre[Q_PATH_MAX + 2];
    size_t n = strlen(rel);
    if (n == 0)
        return *first = 0, true;
    if (n + 1 >= sizeof pre)
        return false;
    memcpy(pre, rel, n);
    pre[n] = '/';
    size_t k = lower(m, pre, n + 1);
    *first = k;
    return k < m->nmem && strncmp(m->mem[k].name, pre, n + 1) == 0;
}

/* --- on disk ---------------------------------------------------------------- */

static const char *kind_name(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a fifo" : S_ISSOCK(mode) ? "a socket"
         : S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : "not a file";
}

#define LINK_RULE "a symbolic link (material is read without following links)"

/* Opens rel for reading when it is a regular file beneath the root: 0 with
 * *fd and *st, 1 when absent, -1 refused. */
static int open_regular(wk_mat *m, const char *rel, int *fd, struct stat *st, char *err, size_t errlen)
{
    struct stat again;
    int p = wk_beneath_open(m->root, rel, O_PATH);
    if (p < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 1;
        return refuse(m, rel, err, errlen, "%s", errno == ELOOP ? LINK_RULE : strerror(errno));
    }
    int rc = fstat(p, st);
    close(p);
    if (rc < 0)
        return refuse(m, rel, err, errlen, "%s", strerror(errno));
    if (S_ISLNK(st->st_mode))
        return refuse(m, rel, err, errlen, "%s", LINK_RULE);
    if (!S_ISREG(st->st_mode))
        return refuse(m, rel, err, errlen, "not a regular file (%s)", kind_name(st->st_mode));
    if (st->st_nlink > 1 && !m->allow_hardlinks)
        return refuse(m, rel, err, errlen, "%s",
                      "a file with other hard links (one may be a file outside the material; "
                      "the operator may allow them)");
    *fd = wk_beneath_open(m->root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (*fd < 0)
        return refuse(m, rel, err, errlen, "%s", errno == ELOOP ? LINK_RULE : strerror(errno));
    if (fstat(*fd, &again) < 0 || again.st_dev != st->st_dev || again.st_ino != st->st_ino ||
        !S_ISREG(again.st_mode)) {
        close(*fd);
        return refuse(m, rel, err, errlen, "%s", "replaced while it was opened");
    }
    *st = again;
    return 0;
}

static int disk_read(wk_mat *m, const char *rel, const void **data, size_t *len, char *err, size_t errlen)
{
    int fd = -1;
    struct stat st;
    int rc = open_regular(m, rel, &fd, &st, err, errlen);
    if (rc != 0)
        return rc;
    if ((uint64_t)st.st_size > m->left) {
        close(fd);
        return refuse(m, rel, err, errlen, "%s", "past the bytes one problem's material may hold together");
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *buf = malloc(size + 1);
    while (buf && got < size) {
        ssize_t k = read(fd, buf + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (!buf || got != size || own(m, buf) < 0) {
        free(buf);
        return refuse(m, rel, err, errlen, "%s", buf ? "short read (the file changed)" : "out of memory");
    }
    buf[size] = 0;
    *data = buf;
    *len = size;
    return 0;
}

/* --- files read -------------------------------------------------------------- */

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of name in the set (its entry, or the empty slot it would take). */
static size_t *slot(const wk_mat *m, const char *name)
{
    size_t i = hash(name) & (m->setcap - 1);
    while (m->set[i] && strcmp(m->read[m->set[i] - 1].name, name) != 0)
        i = (i + 1) & (m->setcap - 1);
    return &m->set[i];
}

static int remember(wk_mat *m, const char *rel, const void *data, size_t len)
{
    if (m->nread == m->capread) {
        size_t cap = m->capread ? 2 * m->capread : 64;
        q_file *r = realloc(m->read, cap * sizeof *r);
        if (!r)
            return -1;
        m->read = r;
        m->capread = cap;
    }
    if (2 * (m->nread + 1) > m->setcap) {
        size_t cap = m->setcap ? 2 * m->setcap : 128;
        size_t *s = calloc(cap, sizeof *s);
        if (!s)
            return -1;
        free(m->set);
        m->set = s;
        m->setcap = cap;
        for (size_t i = 0; i < m->nread; i++)
            *slot(m, m->read[i].name) = i + 1;
    }
    char *name = strdup(rel);
    if (!name)
        return -1;
    m->read[m->nread] = (q_file){ name, data, len };
    *slot(m, name) = ++m->nread;
    return 0;
}

int wk_mat_read(wk_mat *m, const char *rel, const void **data, size_t *len, char *err, size_t errlen)
{
    char why[128];
    if (wk_mat_path_check(rel, why, sizeof why) < 0)
        return refuse(m, rel, err, errlen, "%s", why);
    if (m->setcap) {
        size_t k = *slot(m, rel);
        if (k) {
            *data = m->read[k - 1].data;
            *len = m->read[k - 1].len;
            return 0;
        }
    }
    if (m->root >= 0) {
        int rc = disk_read(m, rel, data, len, err, errlen);
        if (rc != 0)
            return rc;
    } else {
        const q_file *f = mem_find(m, rel);
        if (!f)
            return 1;
        if (f->len > m->left)
            return refuse(m, rel, err, errlen, "%s", "past the bytes one problem's material may hold together");
        *data = f->data ? f->data : "";
        *len = f->len;
    }
    m->left -= *len;
    if (remember(m, rel, *data, *len) < 0)
        return refuse(m, rel, err, errlen, "%s", "out of memory");
    return 0;
}

const q_file *wk_mat_files_read(const wk_mat *m, size_t *n)
{
    *n = m->nread;
    return m->read;
}

wk_mat_kind wk_mat_kind_of(wk_mat *m, const char *rel)
{
    char why[128];
    size_t first;
    if (*rel && wk_mat_path_check(rel, why, sizeof why) < 0)
        return WK_MAT_NONE;
    if (m->root < 0)
        return *rel && mem_find(m, rel) ? WK_MAT_FILE : mem_is_dir(m, rel, &first) ? WK_MAT_DIR : WK_MAT_NONE;
    int p = *rel ? wk_beneath_open(m->root, rel, O_PATH) : dup(m->root);
    struct stat st;
    if (p < 0)
        return errno == ELOOP ? WK_MAT_LINK : WK_MAT_NONE;
    int rc = fstat(p, &st);
    close(p);
    if (rc < 0)
        return WK_MAT_NONE;
    return S_ISREG(st.st_mode) ? WK_MAT_FILE : S_ISDIR(st.st_mode) ? WK_MAT_DIR : S_ISLNK(st.st_mode) ? WK_MAT_LINK
                                                                                                    : WK_MAT_OTHER;
}

/* --- listing ----------------------------------------------------------------- */

static int by_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Takes the names v[0..n) (pointing into the block `text`), sorted, into
 * m. -1: out of memory (both freed). */
static int hand_out(wk_mat *m, char **v, size_t n, char *text, const char *const **names, size_t *count)
{
    qsort(v, n, sizeof *v, by_str);
    if (own(m, v) < 0) {
        free(v);
        free(text);
        return -1;
    }
    if (own(m, text) < 0) {
        free(text);
        return -1; /* v is m's now */
    }
    *names = (const char *const *)v;
    *count = n;
    return 0;
}

static int mem_list(wk_mat *m, const char *rel, const char *const **names, size_t *count, char *err, size_t errlen)
{
    char pre[Q_PATH_MAX + 2];
    size_t first, plen = *rel ? strlen(rel) + 1 : 0;
    if (!mem_is_dir(m, rel, &first))
        return 1;
    memcpy(pre, rel, plen ? plen - 1 : 0);
    if (plen)
        pre[plen - 1] = '/';
    size_t last = first, bytes = 0;
    for (; last < m->nmem && strncmp(m->mem[last].name, pre, plen) == 0; last++)
        bytes += strlen(m->mem[last].name) + 1;
    char **v = malloc((last - first + 1) * sizeof *v), *text = malloc(bytes + 1), *t = text;
    if (!v || !text) {
        free(v);
        free(text);
        return refuse(m, rel, err, errlen, "%s", "out of memory");
    }
    size_t got = 0;
    for (size_t k = first; k < last; k++) { /* a directory's files are adjacent */
        const char *s = m->mem[k].name + plen;
        size_t c = strcspn(s, "/");
        if (got && strlen(v[got - 1]) == c && strncmp(v[got - 1], s, c) == 0)
            continue;
        memcpy(t, s, c);
        t[c] = 0;
        v[got++] = t;
        t += c + 1;
    }
    if (got > WK_MAT_DIR_MAX) {
        free(v);
        free(text);
        return refuse(m, rel, err, errlen, "more than %d entries", WK_MAT_DIR_MAX);
    }
    return hand_out(m, v, got, text, names, count) < 0 ? refuse(m, rel, err, errlen, "%s", "out of memory") : 0;
}

static int disk_list(wk_mat *m, const char *rel, const char *const **names, size_t *count, char *err, size_t errlen)
{
    int fd = *rel ? wk_beneath_open(m->root, rel, O_RDONLY | O_DIRECTORY) : openat(m->root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENOTDIR && wk_mat_kind_of(m, rel) == WK_MAT_LINK) /* openat2 says so of a final link */
            e = ELOOP;
        if (e == ENOENT || e == ENOTDIR)
            return 1;
        return refuse(m, rel, err, errlen, "%s", e == ELOOP ? LINK_RULE : strerror(e));
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return refuse(m, rel, err, errlen, "%s", strerror(errno));
    }
    size_t n = 0, cap = 64, bytes = 0, tcap = 4096;
    char **v = NULL;
    char *text = malloc(tcap);
    size_t *offs = malloc(cap * sizeof *offs);
    struct dirent *e;
    int rc = text && offs ? 0 : refuse(m, rel, err, errlen, "%s", "out of memory");
    while (rc == 0 && (errno = 0, e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t k = strlen(e->d_name) + 1;
        if (n == WK_MAT_DIR_MAX) {
            rc = refuse(m, rel, err, errlen, "more than %d entries", WK_MAT_DIR_MAX);
            break;
        }
        if (n == cap) {
            cap *= 2;
            size_t *o2 = realloc(offs, cap * sizeof *o2);
            if (!o2) {
                rc = refuse(m, rel, err, errlen, "%s", "out of memory");
                break;
            }
            offs = o2;
        }
        if (bytes + k > tcap) {
            tcap = 2 * tcap > bytes + k ? 2 * tcap : bytes + k;
            char *t2 = realloc(text, tcap);
            if (!t2) {
                rc = refuse(m, rel, err, errlen, "%s", "out of memory");
                break;
            }
            text = t2;
        }
        memcpy(text + bytes, e->d_name, k);
        offs[n++] = bytes;
        bytes += k;
    }
    if (rc == 0 && errno)
        rc = refuse(m, rel, err, errlen, "%s", strerror(errno));
    closedir(d);
    char **v2 = rc == 0 ? realloc(v, (n + 1) * sizeof *v2) : NULL;
    if (rc == 0 && !v2)
        rc = refuse(m, rel, err, errlen, "%s", "out of memory");
    if (rc < 0) {
        free(v2);
        free(text);
        free(offs);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        v2[i] = text + offs[i];
    free(offs);
    return hand_out(m, v2, n, text, names, count) < 0 ? refuse(m, rel, err, errlen, "%s", "out of memory") : 0;
}

int wk_mat_list(wk_mat *m, const char *rel, const char *const **names, size_t *n, char *err, size_t errlen)
{
    char why[128];
    if (*rel && wk_mat_path_check(rel, why, sizeof why) < 0)
        return refuse(m, rel, err, errlen, "%s", why);
    return m->root < 0 ? mem_list(m, rel, names, n, err, errlen) : disk_list(m, rel, names, n, err, errlen);
}
