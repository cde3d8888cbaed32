/* wipe.c -- empty a directory the program could write, without trusting it,
 * and put the directory itself back as the box made it.
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
 *
 * THE DIRECTORIES THEMSELVES. /box is the program's (its uid owns it): it
 * can change its mode (0 locks the next job out of it), set POSIX ACLs and
 * user.* extended attributes (tmpfs keeps both) and the inode flags an
 * owner may set, and set its times. /tmp is root's, but nothing here
 * relies on that. So after each wipe the inode is put back through the
 * caller's fd: flags, extended attributes, owner, mode (wipe_inode); a
 * look costs an ioctl, flistxattr and fstat, and only what differs is
 * written. Times cannot be put back (the kernel sets ctime to now on any
 * change), so each run starts by setting all three to now (wipe_touch):
 * a run then reads its own start there, never when or whether an earlier
 * run changed the directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
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

static long wipe_level(wipe *w, int dirfd, int depth);

/* Removes one entry of dirfd, a whole tree if it is a directory. */
static int wipe_one(wipe *w, int dirfd, const char *name, bool dir, int depth)
{
    if (!dir) {
        if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
            return sbx_fail_errno(w->err, w->errlen, "wipe: unlink");
        return 0;
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
    return 0;
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
            if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
                continue;
            seen++;
            if (wipe_one(w, dirfd, d->d_name, is_dir(dirfd, d), depth) < 0)
                return -1;
        }
    }
}

int wipe_entry(int dirfd, const char *name, unsigned char type, int depth, char *err, size_t errlen)
{
    wipe w = { err, errlen };
    bool dir = type == DT_DIR;
    if (type == DT_UNKNOWN) {
        struct stat st;
        dir = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    return wipe_one(&w, dirfd, name, dir, depth);
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

/* The inode flags an owner may set without privilege (on some filesystem:
 * tmpfs knows only noatime and nodump; the directory of a box without a
 * mount namespace may be elsewhere). Append-only and immutable need
 * CAP_LINUX_IMMUTABLE; other bits are the filesystem's own. */
#define PROGRAM_FLAGS (FS_SECRM_FL | FS_UNRM_FL | FS_COMPR_FL | FS_SYNC_FL | FS_NODUMP_FL | FS_NOATIME_FL | \
                       FS_NOCOMP_FL | FS_NOTAIL_FL | FS_DIRSYNC_FL | FS_TOPDIR_FL | FS_NOCOW_FL | FS_PROJINHERIT_FL)

static int clear_flags(int dirfd, char *err, size_t errlen)
{
    int flags;
    if (ioctl(dirfd, FS_IOC_GETFLAGS, &flags) < 0)
        return errno == ENOTTY || errno == EOPNOTSUPP ? 0 : sbx_fail_errno(err, errlen, "reading inode flags");
    if (!(flags & PROGRAM_FLAGS))
        return 0;
    flags &= ~PROGRAM_FLAGS;
    return ioctl(dirfd, FS_IOC_SETFLAGS, &flags) < 0 ? sbx_fail_errno(err, errlen, "clearing inode flags") : 0;
}

/* Only what an unprivileged owner can set: user.* and the POSIX ACLs
 * (system.posix_acl_access, _default). trusted.* and security.* need
 * privilege, and a security label is the machine's, not the run's. */
static bool program_xattr(const char *name)
{
    return strncmp(name, "user.", 5) == 0 || strncmp(name, "system.posix_acl_", 17) == 0;
}

static int clear_xattrs(int dirfd, char *err, size_t errlen)
{
    ssize_t n = flistxattr(dirfd, NULL, 0);
    if (n < 0)
        return errno == ENOTSUP ? 0 : sbx_fail_errno(err, errlen, "listing extended attributes");
    if (n == 0)
        return 0;
    /* No process of the run is left: the list cannot grow meanwhile. */
    char *names = malloc((size_t)n);
    if (!names)
        return sbx_fail(err, errlen, "out of memory");
    ssize_t got = flistxattr(dirfd, names, (size_t)n);
    int rc = got < 0 ? sbx_fail_errno(err, errlen, "listing extended attributes") : 0;
    for (ssize_t i = 0; rc == 0 && i < got; i += (ssize_t)strlen(names + i) + 1)
        if (program_xattr(names + i) && fremovexattr(dirfd, names + i) < 0 && errno != ENODATA)
            rc = sbx_fail_errno(err, errlen, "removing an extended attribute");
    free(names);
    return rc;
}

int wipe_inode(int dirfd, uid_t uid, gid_t gid, mode_t mode, char *err, size_t errlen)
{
    struct stat st;
    /* Flags, attributes, then owner and mode: removing an access ACL
     * leaves its mask in the mode. */
    if (clear_flags(dirfd, err, errlen) < 0 || clear_xattrs(dirfd, err, errlen) < 0)
        return -1;
    if (fstat(dirfd, &st) < 0)
        return sbx_fail_errno(err, errlen, "fstat of a box directory");
    if ((st.st_uid != uid || st.st_gid != gid) && fchown(dirfd, uid, gid) < 0)
        return sbx_fail_errno(err, errlen, "restoring a box directory's owner");
    if ((st.st_mode & 07777) != mode && fchmod(dirfd, mode) < 0)
        return sbx_fail_errno(err, errlen, "restoring a box directory's mode");
    return 0;
}

int wipe_touch(int dirfd, char *err, size_t errlen)
{
    return futimens(dirfd, NULL) < 0 ? sbx_fail_errno(err, errlen, "setting a box directory's times") : 0;
}
