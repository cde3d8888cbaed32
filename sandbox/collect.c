/* collect.c -- copy out the regular files a run left in /box, without
 * trusting them.
 *
 * The program chose every name, size, link and depth. So the walk goes
 * through directory fds only (openat with O_NOFOLLOW), opens only what
 * fstatat says is a regular file or a directory (a link, fifo, socket or
 * device, a whiteout 0:0 included, which anyone may make and nodev /box
 * refuses to open, is skipped unopened), checks the type again on the
 * opened fd, and checks the count, the depth and the running byte total
 * against the caller's bounds before each allocation. What the program
 * made unreadable is refused, as its own doing, never a sandbox error.
 * Nothing of the run is alive when this runs, so a size read by fstat is
 * the size read. Names are the program's: messages show them through
 * sbx_quote only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define COLLECT_PATH_MAX 255

typedef struct walk {
    sbx_collect *c;
    size_t cap;     /* of c->files */
    char *err;
    size_t errlen;
} walk;

void sbx_collect_free(sbx_collect *c)
{
    for (size_t i = 0; i < c->nfiles; i++) {
        free((char *)c->files[i].name);
        free((void *)c->files[i].data);
    }
    free(c->files);
    c->files = NULL;
    c->nfiles = 0;
    c->bytes = 0;
}

static int refuse(walk *w, const char *why, const char *path)
{
    char shown[65];
    sbx_quote(shown, sizeof shown, path);
    snprintf(w->c->refused, sizeof w->c->refused, "%s: %s", why, shown);
    return 1;
}

static int fail_errno(walk *w, const char *what, const char *path)
{
    char shown[65];
    int e = errno;
    sbx_quote(shown, sizeof shown, path);
    errno = e;
    return sbx_fail_errno(w->err, w->errlen, "collect: %s %s", what, shown);
}

static int read_exact(int fd, char *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

/* Takes the regular file open as fd (st its stat) as `path`. */
static int take(walk *w, int fd, const struct stat *st, const char *path)
{
    sbx_collect *c = w->c;
    if (c->nfiles >= c->max_files)
        return refuse(w, "more files than allowed", path);
    if ((uint64_t)st->st_size > c->max_bytes - c->bytes)
        return refuse(w, "more bytes than allowed", path);
    if (c->nfiles == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        sbx_file *f = realloc(c->files, cap * sizeof *f);
        if (!f)
            return sbx_fail(w->err, w->errlen, "collect: out of memory");
        c->files = f;
        w->cap = cap;
    }
    char *name = strdup(path), *data = malloc((size_t)st->st_size + 1);
    if (!name || !data || read_exact(fd, data, (size_t)st->st_size) < 0) {
        int e = errno;
        free(name);
        free(data);
        errno = e;
        return fail_errno(w, "reading", path);
    }
    c->files[c->nfiles++] = (sbx_file){ name, data, (size_t)st->st_size, (st->st_mode & 0111) != 0, sbx_content_id() };
    c->bytes += (uint64_t)st->st_size;
    return 0;
}

/* Walks fd_dir (owned: closed here), whose path below /box is prefix. */
static int walk_dir(walk *w, int fd_dir, const char *prefix, unsigned depth)
{
    DIR *d = fdopendir(fd_dir);
    if (!d) {
        close(fd_dir);
        return sbx_fail_errno(w->err, w->errlen, "collect: opendir");
    }
    int rc = 0;
    struct dirent *e;
    char path[COLLECT_PATH_MAX + 2];
    while (rc == 0 && (errno = 0, e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        int n = snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "/" : "", e->d_name);
        if (n < 0 || n > COLLECT_PATH_MAX) {
            rc = refuse(w, "path over 255 bytes", e->d_name);
            break;
        }
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            rc = errno == EACCES ? refuse(w, "not readable", path) : fail_errno(w, "fstatat", path);
            break;
        }
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            continue; /* a link, fifo, socket or device: not a file to carry */
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            rc = errno == EACCES || errno == EPERM ? refuse(w, "not readable", path) : fail_errno(w, "opening", path);
        } else if (fstat(fd, &st) < 0) {
            rc = fail_errno(w, "fstat", path);
            close(fd);
        } else if (S_ISDIR(st.st_mode) && depth < w->c->max_depth) {
            rc = walk_dir(w, fd, path, depth + 1);
        } else if (S_ISDIR(st.st_mode)) {
            rc = refuse(w, "directories nested too deep", path);
            close(fd);
        } else {
            if (S_ISREG(st.st_mode))
                rc = take(w, fd, &st, path);
            close(fd);
        }
    }
    if (rc == 0 && errno)
        rc = sbx_fail_errno(w->err, w->errlen, "collect: readdir");
    closedir(d);
    return rc;
}

/* Only the entry `name` of /box (fd_box, owned: closed here): a regular
 * file is taken, a directory walked; anything else, or nothing there, is
 * nothing to take. */
static int take_only(walk *w, int fd_box, const char *name)
{
    struct stat st;
    int rc = 0;
    if (strchr(name, '/') || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        close(fd_box);
        return sbx_fail(w->err, w->errlen, "collect: only takes a name directly in /box");
    }
    if (fstatat(fd_box, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        rc = errno == ENOENT ? 0 : errno == EACCES ? refuse(w, "not readable", name) : fail_errno(w, "fstatat", name);
        close(fd_box);
        return rc;
    }
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        close(fd_box);
        return 0;
    }
    int fd = openat(fd_box, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    close(fd_box);
    if (fd < 0)
        return errno == EACCES || errno == EPERM ? refuse(w, "not readable", name) : fail_errno(w, "opening", name);
    if (fstat(fd, &st) < 0) {
        rc = fail_errno(w, "fstat", name);
        close(fd);
    } else if (S_ISDIR(st.st_mode)) {
        rc = w->c->max_depth ? walk_dir(w, fd, name, 1) : (close(fd), refuse(w, "directories nested too deep", name));
    } else {
        if (S_ISREG(st.st_mode))
            rc = take(w, fd, &st, name);
        close(fd);
    }
    return rc;
}

int collect_dir(int dirfd, sbx_collect *c, char *err, size_t errlen)
{
    walk w = { c, 0, err, errlen };
    c->files = NULL;
    c->nfiles = 0;
    c->bytes = 0;
    c->refused[0] = 0;
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return sbx_fail_errno(err, errlen, "collect: opening /box");
    int rc = c->only ? take_only(&w, fd, c->only) : walk_dir(&w, fd, "", 0);
    if (rc != 0)
        sbx_collect_free(c);
    return rc < 0 ? -1 : 0;
}
