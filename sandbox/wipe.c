/* wipe.c -- empty a directory the program could write, without trusting it.
 *
 * The program chose every name, link and depth in /box and /tmp. So the
 * walk goes through directory fds only (openat with O_NOFOLLOW, unlinkat),
 * never through paths, and never follows a link out. Depth is bounded: a
 * directory deeper than WIPE_DEPTH is renamed to the top and emptied on a
 * later pass, so a 10,000-deep chain costs neither stack nor fds. tmpfs
 * inode limits bound the number of entries, hence the passes.
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
    int top;
    unsigned long moved;
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
                    return sbx_fail_errno(w->err, w->errlen, "wipe: unlink %s", name);
                continue;
            }
            if (depth >= WIPE_DEPTH) {
                char to[64];
                snprintf(to, sizeof to, ".gradeq-wipe-%lu", w->moved++);
                if (renameat(dirfd, name, w->top, to) < 0)
                    return sbx_fail_errno(w->err, w->errlen, "wipe: rename %s", name);
                continue;
            }
            int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                return sbx_fail_errno(w->err, w->errlen, "wipe: open %s", name);
            long rc;
            while ((rc = wipe_level(w, sub, depth + 1)) > 0)
                ;
            close(sub);
            if (rc < 0)
                return -1;
            if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && errno != ENOTEMPTY)
                return sbx_fail_errno(w->err, w->errlen, "wipe: rmdir %s", name);
        }
    }
}

int wipe_dir(int dirfd, char *err, size_t errlen)
{
    wipe w = { dirfd, 0, err, errlen };
    for (int pass = 0; pass < MAX_PASSES; pass++) {
        long seen = wipe_level(&w, dirfd, 0);
        if (seen <= 0)
            return (int)seen;
    }
    return sbx_fail(err, errlen, "wipe: directory not empty after %d passes", MAX_PASSES);
}
