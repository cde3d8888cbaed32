/* place.c -- a run's files placed in /box, and kept there for the next run
 * that places the same ones.
 *
 * PLACEMENT. Each file is created exclusively, root's, mode 0644 or 0755
 * (see place_file), in directories that are the run's. Nothing is ever
 * opened that a placement did not make: the box holds nothing else when a
 * run starts.
 *
 * KEPT FILES. A grading places the same compile output for every test. So
 * (as root, where placed files are root's) what a run's spec placed stays
 * in /box after it, and the next run whose spec places a file of the same
 * name, mode and bytes (compared in full) finds it there; every other kept
 * entry is removed before that run starts. This is safe because the run
 * cannot change a kept file itself: root's, not writable by it, it can
 * change neither its bytes, nor its mode, owner, times, attributes or
 * flags. It can only unlink or rename its name (/box and the directories
 * are its own), or make a hard link to it. So the wipe after a run
 * (place_wipe) keeps an entry only at its own path, with its own inode,
 * owner, mode, size and a single link, and a kept directory only with its
 * own inode, emptied of all the run added and put back itself
 * (wipe_inode). Anything else goes as in a plain wipe, and a kept file
 * that went is placed anew by the next run that wants it. A file the
 * caller numbered (sbx_file.content_id) is compared by its number alone
 * when the kept one was placed or last found equal under that number: the
 * caller promised the bytes, and the run could not change them. Times are the
 * one thing reading can change (atime): each kept file and directory has
 * all three set to now as the next run starts, as a fresh placement would
 * have them. No fd or mapping of a kept file is held between runs: a run
 * that unlinks one frees its space as in a fresh box. What stays visible
 * is what the kernel keeps per inode: a kept file's inode number and
 * birth time are those of the earlier run's placement (docs/operations.md).
 *
 * THREADS. The set is the box's thread's, like the box's fds; dropped
 * (place_drop) whenever /box itself goes (box_stop).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define COMPARE_CHUNK (64 * 1024)
#define KEPT_DEPTH 16
#define MAX_PASSES 100000

typedef struct placed {
    char *name;  /* path under /box, without a trailing '/' */
    dev_t dev;
    ino_t ino;
    off_t size;
    uid_t uid;
    gid_t gid;
    mode_t mode; /* a file's: 0644 or 0755 */
    uint64_t content_id; /* the caller's number for its bytes, 0: none */
    bool dir;
    bool mark;   /* scratch: wanted by this run (place), seen (wipe) */
} placed;

struct place_set {
    placed *e;
    size_t n, cap;
    char *buf;   /* COMPARE_CHUNK bytes, for comparing a file's bytes */
};

uint64_t sbx_content_id(void)
{
    static atomic_uint_fast64_t last;
    return atomic_fetch_add(&last, 1) + 1;
}

void place_drop(sbx_box *b)
{
    place_set *k = b->placed;
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++)
        free(k->e[i].name);
    free(k->e);
    free(k->buf);
    free(k);
    b->placed = NULL;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(((const placed *)x)->name, ((const placed *)y)->name);
}

static placed *find(place_set *k, const char *name)
{
    placed key = { .name = (char *)name };
    return k && k->n ? bsearch(&key, k->e, k->n, sizeof *k->e, by_name) : NULL;
}

/* Records name[0..len) as placed (st: what fstat said). A record that
 * cannot be made is no error: an entry not in the set is wiped. */
static void record(place_set *k, const char *name, size_t len, const struct stat *st, uint64_t content_id)
{
    if (!k)
        return;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 16;
        placed *e = realloc(k->e, cap * sizeof *e);
        if (!e)
            return;
        k->e = e;
        k->cap = cap;
    }
    char *copy = strndup(name, len);
    if (copy)
        k->e[k->n++] = (placed){ copy, st->st_dev, st->st_ino, st->st_size, st->st_uid, st->st_gid,
                                 st->st_mode & 07777, content_id, S_ISDIR(st->st_mode), true };
}

/* Keeps the marked entries, sorted by name, each once. */
static void settle(place_set *k)
{
    size_t n = 0;
    for (size_t i = 0; i < k->n; i++) {
        if (k->e[i].mark)
            k->e[n++] = k->e[i];
        else
            free(k->e[i].name);
    }
    qsort(k->e, n, sizeof *k->e, by_name);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && strcmp(k->e[m - 1].name, k->e[i].name) == 0)
            free(k->e[i].name);
        else
            k->e[m++] = k->e[i];
    }
    k->n = m;
}

/* Creates the parents of `name` under /box (the slot's uid's, so that the
 * run may add files beside), then the file. The file stays root's, mode
 * 0644 or 0755: the run reads and executes it but cannot write it, nor
 * chmod it. Its pages are charged to the caller, who wrote them, not to the
 * run: written through a shared mapping they would be memory outside the
 * run's limit. (The run may still unlink it and make its own file of that
 * name, charged to itself.) Without root the file is the run's uid's and
 * the limit is RLIMIT_AS, which counts a mapping of it like any other.
 * The box holds only what was placed for this run when it starts, so
 * nothing is ever opened that a placement did not make: the file is
 * created exclusively, no link is followed, and a directory found is one
 * made for another file of the same spec. Paths come from the caller (the
 * worker has validated them); the walk keeps even a bad one inside /box.
 * What it makes is recorded in k (NULL: nothing is kept). */
static int place_file(sbx_box *b, const sbx_file *f, place_set *k, char *err, size_t errlen)
{
    char path[4096], shown[80];
    struct stat st;
    sbx_quote(shown, sizeof shown, f->name);
    if (snprintf(path, sizeof path, "%s", f->name) >= (int)sizeof path || !path[0] || path[0] == '/')
        return sbx_fail(err, errlen, "file name \"%s\" is not a relative path", shown);
    int dir = fcntl(b->box_fd, F_DUPFD_CLOEXEC, 3);
    if (dir < 0)
        return sbx_fail_errno(err, errlen, "dup");
    char *part = path, *slash;
    while ((slash = strchr(part, '/'))) {
        *slash = 0;
        if (strcmp(part, "..") == 0 || strcmp(part, ".") == 0 || !*part) {
            close(dir);
            return sbx_fail(err, errlen, "file name \"%s\" leaves /box", shown);
        }
        int sub = -1;
        if ((mkdirat(dir, part, 0755) == 0 && b->host->root &&
             fchownat(dir, part, b->uid, b->uid, AT_SYMLINK_NOFOLLOW) < 0) ||
            (sub = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
            int e = errno;
            close(dir);
            errno = e;
            return sbx_fail_errno(err, errlen, "creating a directory for \"%s\"", shown);
        }
        close(dir);
        dir = sub;
        if (k && fstat(dir, &st) == 0)
            record(k, f->name, (size_t)(slash - path), &st, 0);
        part = slash + 1;
    }
    if (!*part && part > path) {
        close(dir);
        return 0; /* "dir/": the directory alone */
    }
    if (!*part || strcmp(part, "..") == 0 || strcmp(part, ".") == 0) {
        close(dir);
        return sbx_fail(err, errlen, "file name \"%s\" is not a file", shown);
    }
    mode_t mode = f->executable ? 0755 : 0644;
    /* Open for writing only while no zygote is being cloned (box.c):
     * a zygote cloned now would hold this descriptor until it closes
     * what it inherited, and an exec of this file meanwhile, in another
     * box, fails with ETXTBSY. */
    box_fork_guard(true);
    int fd = openat(dir, part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    close(dir);
    int rc = fd < 0 ? -1 : run_write_all(fd, f->data, f->len);
    if (rc == 0)
        rc = fchmod(fd, mode); /* exactly, whatever the umask */
    if (rc == 0 && k && fstat(fd, &st) == 0)
        record(k, f->name, strlen(f->name), &st, f->content_id);
    int e = errno;
    if (fd >= 0)
        close(fd);
    box_fork_guard(false);
    errno = e;
    if (fd < 0)
        return sbx_fail_errno(err, errlen, "creating \"%s\" in /box", shown);
    return rc < 0 ? sbx_fail_errno(err, errlen, "writing \"%s\" in /box", shown) : 0;
}

/* Whether kept file p holds exactly f's bytes (by the caller's number
 * when both have the same, else compared); if so its times become now, as
 * a file placed now has them, and it takes f's number. */
static bool same_file(sbx_box *b, place_set *k, placed *p, const sbx_file *f)
{
    if (p->dir || p->mark || p->mode != (f->executable ? 0755 : 0644) || (uint64_t)p->size != f->len)
        return false;
    int fd = openat(b->box_fd, p->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return false;
    bool same = fstat(fd, &st) == 0 && st.st_ino == p->ino && st.st_dev == p->dev;
    bool known = f->content_id && f->content_id == p->content_id;
    for (size_t off = 0; same && !known && off < f->len;) {
        size_t want = f->len - off < COMPARE_CHUNK ? f->len - off : COMPARE_CHUNK;
        ssize_t n = pread(fd, k->buf, want, (off_t)off);
        same = n > 0 && memcmp(k->buf, (const char *)f->data + off, (size_t)n) == 0;
        off += n > 0 ? (size_t)n : 0;
    }
    same = same && futimens(fd, NULL) == 0;
    close(fd);
    if (same)
        p->content_id = f->content_id;
    return same;
}

/* Removes the kept entries this run does not want (children before their
 * directory: the names are sorted); a directory still holding a wanted
 * file stays, its times made now. */
static int drop_unwanted(sbx_box *b, place_set *k, char *err, size_t errlen)
{
    for (size_t i = k->n; i-- > 0;) {
        placed *p = &k->e[i];
        if (p->mark)
            continue;
        if (!p->dir) {
            if (unlinkat(b->box_fd, p->name, 0) < 0 && errno != ENOENT)
                return sbx_fail_errno(err, errlen, "removing a file kept in /box");
        } else if (unlinkat(b->box_fd, p->name, AT_REMOVEDIR) < 0) {
            if (errno != ENOTEMPTY && errno != EEXIST)
                return sbx_fail_errno(err, errlen, "removing a directory kept in /box");
            if (utimensat(b->box_fd, p->name, NULL, AT_SYMLINK_NOFOLLOW) < 0)
                return sbx_fail_errno(err, errlen, "setting a kept directory's times");
            p->mark = true;
        }
    }
    return 0;
}

int place_files(sbx_box *b, const sbx_spec *spec, char *err, size_t errlen)
{
    place_set *k = b->placed;
    if (!k && b->host->root && spec->nfiles && (k = calloc(1, sizeof *k)) && !(k->buf = malloc(COMPARE_CHUNK))) {
        free(k);
        k = NULL;
    }
    b->placed = k;
    bool *have = NULL;
    if (k && k->n) {
        have = calloc(spec->nfiles + 1, sizeof *have);
        for (size_t i = 0; i < k->n; i++)
            k->e[i].mark = false;
        for (size_t i = 0; have && i < spec->nfiles; i++) {
            placed *p = find(k, spec->files[i].name);
            if (p && same_file(b, k, p, &spec->files[i]))
                p->mark = have[i] = true;
        }
        if (drop_unwanted(b, k, err, errlen) < 0)
            goto fail;
    }
    for (size_t i = 0; i < spec->nfiles; i++)
        if (!(have && have[i]) && place_file(b, &spec->files[i], k, err, errlen) < 0)
            goto fail;
    free(have);
    if (k)
        settle(k);
    return 0;
fail:
    free(have);
    place_drop(b); /* the wipe then takes all */
    return -1;
}

/* ---- the wipe that keeps them ---------------------------------------- */

struct linux_dirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

typedef struct walk {
    sbx_box *b;
    char path[4096];
    char *err;
    size_t errlen;
} walk;

static long keep_level(walk *w, int dirfd, size_t plen, int depth);

/* 1 when the entry name of dirfd is kept entry p, as it was placed (a
 * directory: then emptied of the rest and put back); 0 when not; -1. */
static int kept_here(walk *w, int dirfd, const char *name, const placed *p, size_t plen, int depth)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_ino != p->ino || st.st_dev != p->dev)
        return 0;
    if (!p->dir)
        return S_ISREG(st.st_mode) && st.st_uid == p->uid && st.st_gid == p->gid &&
               (st.st_mode & 07777) == p->mode && st.st_size == p->size && st.st_nlink == 1;
    if (!S_ISDIR(st.st_mode) || depth + 1 >= KEPT_DEPTH)
        return 0;
    int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0)
        return sbx_fail_errno(w->err, w->errlen, "wipe: open a kept directory");
    long rc = fstat(sub, &st) == 0 && st.st_ino == p->ino ? 1 : -2;
    for (int pass = 0; rc > 0 && pass < MAX_PASSES; pass++)
        rc = keep_level(w, sub, plen, depth + 1);
    if (rc == 0)
        rc = wipe_inode(sub, w->b->uid, w->b->uid, 0755, w->err, w->errlen);
    close(sub);
    if (rc == -2)
        return 0;
    return rc == 0 ? 1 : rc < 0 ? -1 : sbx_fail(w->err, w->errlen, "wipe: a kept directory not empty");
}

/* Removes what is not kept below dirfd (at w->path[0..plen)); returns how
 * many entries it removed, or -1. */
static long keep_level(walk *w, int dirfd, size_t plen, int depth)
{
    char buf[4096];
    long removed = 0;
    place_set *k = w->b->placed;
    if (lseek(dirfd, 0, SEEK_SET) < 0)
        return sbx_fail_errno(w->err, w->errlen, "wipe: lseek");
    for (;;) {
        long n = syscall(SYS_getdents64, dirfd, buf, sizeof buf);
        if (n < 0)
            return sbx_fail_errno(w->err, w->errlen, "wipe: getdents");
        if (n == 0)
            return removed;
        for (long off = 0; off < n;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            const char *name = d->d_name;
            if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                continue;
            size_t nl = strlen(name), len = plen ? plen + 1 + nl : nl;
            placed *p = NULL;
            if (len < sizeof w->path) {
                if (plen)
                    w->path[plen] = '/';
                memcpy(w->path + (plen ? plen + 1 : 0), name, nl + 1);
                p = find(k, w->path);
            }
            if (p && p->mark)
                continue; /* kept, seen in an earlier pass */
            int kept = p ? kept_here(w, dirfd, name, p, len, depth) : 0;
            if (kept < 0)
                return -1;
            if (kept) {
                p->mark = true;
                continue;
            }
            removed++;
            if (wipe_entry(dirfd, name, d->d_type, depth, w->err, w->errlen) < 0)
                return -1;
        }
    }
}

int place_wipe(sbx_box *b, char *err, size_t errlen)
{
    place_set *k = b->placed;
    if (!k || !k->n)
        return wipe_dir(b->box_fd, err, errlen);
    for (size_t i = 0; i < k->n; i++)
        k->e[i].mark = false;
    walk *w = malloc(sizeof *w);
    if (!w) {
        place_drop(b);
        return wipe_dir(b->box_fd, err, errlen);
    }
    *w = (walk){ .b = b, .err = err, .errlen = errlen };
    long rc = 1;
    for (int pass = 0; rc > 0 && pass < MAX_PASSES; pass++)
        rc = keep_level(w, b->box_fd, 0, 0);
    free(w);
    if (rc != 0) {
        place_drop(b);
        return rc < 0 ? -1 : sbx_fail(err, errlen, "wipe: /box not empty after %d passes", MAX_PASSES);
    }
    settle(k);
    return 0;
}
