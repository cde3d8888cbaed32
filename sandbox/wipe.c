/* wipe.c -- empty a directory the program could write, without trusting it.
 *
 * The program chose every name, link and depth in /box and /tmp. So the
 * walk goes through directory fds only (openat with O_NOFOLLOW, unlinkat),
 * never through paths, and never follows a link out. It never makes a name
 * of its own (a name it picked, the program could have taken first). Depth
 * is bounded: a tree deeper than WIPE_DEPTH is not walked at all, the wipe
 * fails, and the caller throws the whole box away (a fresh tmpfs costs one
 * box rebuild, a deep walk would cost stack and fds). tmpfs inode limits
 * bound the number of entries, hence the passes. Messages never quote a
 * name: every one is the program's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define WIPE_DEPTH 16
#define MAX_PASSES 100000

struct linux_dirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

typedef struct wipe {
    char *err;
    size_t errlen;
} wipe;

static int is_dir(int dirfd, const struct linux_dirent64 *d)
{
    if (d->d_type != DT_UNKNOWN)
        return d->d_type == DT_DIR;
    struct stat st;
    return fstatat(dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Removes what it can below dirfd; returns the number of entries seen. */
static long wipe_level(wipe *w, int dirfd, int depth)
{
    char buf[4096];
    long seen = 0;
    if (lseek(dirfd, 0, SEEK_SET) < 0)
        return sbx_fail_errno(w->err, w->errlen, "wipe: lseek");
    for (;;) {
        long n = syscall(SYS_getdents64, dirfd, buf, sizeof buf);
        if (n < 0)
            return sbx_fail_errno(w->err, w->errlen, "wipe: getdents");
        if (n == 0)
            return seen;
        for (long off = 0; off < n;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            const char *name = d->d_name;
            if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                continue;
            seen++;
            if (!is_dir(dirfd, d)) {
                if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
                    return sbx_fail_errno(w->err, w->errlen, "wipe: unlink");
                continue;
            }
            if (depth >= WIPE_DEPTH)
                return sbx_fail(w->err, w->errlen, "wipe: deeper than %d directories", WIPE_DEPTH);
            int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                return sbx_fail_errno(w->err, w->errlen, "wipe: open a directory");
            long rc;
            while ((rc = wipe_level(w, sub, depth + 1)) > 0)
                ;
            close(sub);
            if (rc < 0)
                return -1;
            if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && errno != ENOTEMPTY)
                return sbx_fail_errno(w->err, w->errlen, "wipe: rmdir");
        }
    }
}

int wipe_dir(int dirfd, char *err, size_t errlen)
{
    wipe w = { err, errlen };
    for (int pass = 0; pass < MAX_PASSES; pass++) {
        long seen = wipe_level(&w, dirfd, 0);
        if (seen <= 0)
            return (int)seen;
    }
    return sbx_fail(err, errlen, "wipe: directory not empty after %d passes", MAX_PASSES);
}
