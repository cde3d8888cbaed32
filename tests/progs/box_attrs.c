/* box_attrs: attacks the box's two directories themselves, which the wipe
 * between runs empties but does not make: /box is the program's (its uid
 * owns it), /tmp is root's with mode 1777.
 * `box_attrs plant [MODE]` (octal, default 0) gives each of . and /tmp a
 * user.* extended attribute, a POSIX access ACL and a default ACL (a named
 * user 4242), the inode flags noatime and nodump, atime and mtime of
 * 2001-02-03, and last (a mode of 0 forbids the rest) the mode MODE. It
 * prints `planted` on stdout and one line per directory on stderr,
 * `DIR: xattr=R acl=R dacl=R flags=R times=R mode=R` with R `ok` or the
 * errno name (on /tmp every one should fail: it is not the program's).
 * `box_attrs check` prints `fresh` and exits 0 if both look as in a new
 * box (. owned by the program's uid and gid, mode 0755; /tmp root's, mode
 * 1777; no extended attribute, no ACL, no inode flag; atime, mtime and
 * ctime within ten minutes of now), else prints `stale`, each difference
 * on stderr, and exits 1.
 * `box_attrs show` prints, per directory, `DIR uid=U gid=G mode=M flags=F
 * xattrs=NAME,NAME times=recent|old`.
 * With no argument the command is read from stdin (one line), and with a
 * file as argv[1] from its first line: so one program can be every test of
 * a grading, its checker (`input output answer`) or an interactor (`input`).
 * Sandbox must report: OK every time (a `check` as a checker or an
 * interactor: OK); after a `plant` in the same box (any MODE) a `check`
 * prints `fresh`, and a job that execs or compiles in /box works. Exit 3 =
 * a directory could not be read (errno on stderr), 2 = usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* The kernel's POSIX ACL xattr format (linux/posix_acl_xattr.h). */
struct acl_head {
    uint32_t version;
};
struct acl_entry {
    uint16_t tag, perm;
    uint32_t id;
};
enum { USER_OBJ = 1, USER = 2, GROUP_OBJ = 4, MASK = 0x10, OTHER = 0x20 };

static const char *result(int rc)
{
    return rc == 0 ? "ok" : strerrorname_np(errno);
}

static int set_acl(const char *dir, const char *name)
{
    struct {
        struct acl_head h;
        struct acl_entry e[5];
    } acl = { { 2 }, { { USER_OBJ, 7, UINT32_MAX }, { USER, 7, 4242 }, { GROUP_OBJ, 5, UINT32_MAX },
                       { MASK, 7, UINT32_MAX }, { OTHER, 5, UINT32_MAX } } };
    return setxattr(dir, name, &acl, sizeof acl, 0);
}

static int set_flags(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int flags = 0;
    int rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
    if (rc == 0) {
        flags |= FS_NOATIME_FL | FS_NODUMP_FL;
        rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
    }
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

static void plant(const char *dir, mode_t mode)
{
    int x = setxattr(dir, "user.gradeq", "carried over", 12, 0);
    const char *rx = result(x);
    const char *ra = result(set_acl(dir, "system.posix_acl_access"));
    const char *rd = result(set_acl(dir, "system.posix_acl_default"));
    const char *rf = result(set_flags(dir));
    struct timespec old[2] = { { 981158400, 0 }, { 981158400, 0 } }; /* 2001-02-03 */
    const char *rt = result(utimensat(AT_FDCWD, dir, old, 0));
    const char *rm = result(chmod(dir, mode));
    fprintf(stderr, "%s: xattr=%s acl=%s dacl=%s flags=%s times=%s mode=%s\n", dir, rx, ra, rd, rf, rt, rm);
}

typedef struct state {
    struct stat st;
    int flags;
    char names[4096]; /* comma-separated extended attribute names */
    bool recent;
} state;

static int read_state(const char *dir, state *s)
{
    memset(s, 0, sizeof *s);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &s->st) < 0) {
        fprintf(stderr, "%s: %s\n", dir, strerrorname_np(errno));
        return -1;
    }
    if (ioctl(fd, FS_IOC_GETFLAGS, &s->flags) < 0)
        s->flags = -1;
    char raw[4096];
    ssize_t n = flistxattr(fd, raw, sizeof raw);
    close(fd);
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(raw + i) + 1) {
        if (s->names[0])
            strcat(s->names, ",");
        strncat(s->names, raw + i, sizeof s->names - strlen(s->names) - 2);
    }
    if (n < 0)
        snprintf(s->names, sizeof s->names, "?%s", strerrorname_np(errno));
    time_t now = time(NULL);
    const struct timespec *t[3] = { &s->st.st_atim, &s->st.st_mtim, &s->st.st_ctim };
    s->recent = true;
    for (int i = 0; i < 3; i++)
        if (t[i]->tv_sec < now - 600 || t[i]->tv_sec > now + 60)
            s->recent = false;
    return 0;
}

static void show(const char *dir, const state *s)
{
    printf("%s uid=%u gid=%u mode=%04o flags=%#x xattrs=%s times=%s\n", dir, (unsigned)s->st.st_uid,
           (unsigned)s->st.st_gid, (unsigned)(s->st.st_mode & 07777), (unsigned)s->flags, s->names,
           s->recent ? "recent" : "old");
}

/* Differences from a fresh box, on stderr; returns their count. */
static int differences(const char *dir, const state *s, uid_t uid, gid_t gid, mode_t mode)
{
    int n = 0;
    if (s->st.st_uid != uid || s->st.st_gid != gid)
        n++, fprintf(stderr, "%s: owner %u:%u, not %u:%u\n", dir, (unsigned)s->st.st_uid, (unsigned)s->st.st_gid,
                     (unsigned)uid, (unsigned)gid);
    if ((s->st.st_mode & 07777) != mode)
        n++, fprintf(stderr, "%s: mode %04o, not %04o\n", dir, (unsigned)(s->st.st_mode & 07777), (unsigned)mode);
    if (s->flags != 0)
        n++, fprintf(stderr, "%s: inode flags %#x\n", dir, (unsigned)s->flags);
    if (s->names[0])
        n++, fprintf(stderr, "%s: extended attributes %s\n", dir, s->names);
    if (!s->recent)
        n++, fprintf(stderr, "%s: times more than ten minutes away (atime %lld mtime %lld ctime %lld)\n", dir,
                     (long long)s->st.st_atim.tv_sec, (long long)s->st.st_mtim.tv_sec,
                     (long long)s->st.st_ctim.tv_sec);
    return n;
}

static bool is_command(const char *s)
{
    return strcmp(s, "plant") == 0 || strcmp(s, "check") == 0 || strcmp(s, "show") == 0;
}

int main(int argc, char **argv)
{
    char line[64] = "";
    const char *cmd = argc > 1 ? argv[1] : NULL, *arg = argc > 2 ? argv[2] : NULL;
    if (!cmd || !is_command(cmd)) {
        FILE *f = cmd ? fopen(cmd, "r") : stdin;
        if (!f || !fgets(line, sizeof line, f))
            line[0] = 0;
        line[strcspn(line, "\n")] = 0;
        cmd = strtok(line, " ");
        arg = strtok(NULL, " ");
        if (!cmd)
            cmd = "";
    }
    if (strcmp(cmd, "plant") == 0) {
        mode_t mode = arg ? (mode_t)strtoul(arg, NULL, 8) : 0;
        plant("/tmp", 0);
        plant(".", mode);
        printf("planted\n");
        return 0;
    }
    state box, tmp;
    if (read_state(".", &box) < 0 || read_state("/tmp", &tmp) < 0)
        return 3;
    if (strcmp(cmd, "show") == 0) {
        show(".", &box);
        show("/tmp", &tmp);
        return 0;
    }
    if (strcmp(cmd, "check") != 0) {
        fprintf(stderr, "usage: box_attrs plant [MODE] | check | show (or the same on stdin)\n");
        return 2;
    }
    int n = differences(".", &box, getuid(), getgid(), 0755) + differences("/tmp", &tmp, 0, 0, 01777);
    printf("%s\n", n ? "stale" : "fresh");
    return n ? 1 : 0;
}
