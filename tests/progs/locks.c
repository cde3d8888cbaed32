/* locks: file locks as a channel between two concurrent runs, through a
 * read-only system file every box shares.
 *   locks hold FILE   takes flock LOCK_EX, a POSIX read lock and an OFD read
 *                     lock on FILE (each on its own read-only fd), prints
 *                     `held flock=R posix=R ofd=R` (R: ok or the errno name),
 *                     then reads stdin to its end and exits 0
 *   locks probe FILE  while a holder runs elsewhere: flock LOCK_EX|LOCK_NB,
 *                     then F_GETLK and F_OFD_GETLK asking for a write lock;
 *                     prints `probe flock=R posix=S ofd=S` (S: unlocked, or
 *                     locked when a lock of another run shows) and exits 0
 * Exit 2 = usage or FILE cannot be opened.
 * Sandbox must report: both OK; `held flock=ok posix=ok ofd=ok` (taking a
 * lock keeps working) and `probe flock=ok posix=unlocked ofd=unlocked` (no
 * run sees another's locks). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static const char *res(int rc)
{
    if (rc == 0)
        return "ok";
    const char *n = strerrorname_np(errno);
    return n ? n : "?";
}

static int open_ro(const char *file)
{
    int fd = open(file, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "open %s: %s\n", file, strerror(errno));
        _exit(2);
    }
    return fd;
}

static const char *getlk(int fd, int cmd)
{
    struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    if (fcntl(fd, cmd, &l) < 0)
        return res(-1);
    return l.l_type == F_UNLCK ? "unlocked" : "locked";
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "hold") != 0 && strcmp(argv[1], "probe") != 0)) {
        fprintf(stderr, "usage: locks hold|probe FILE\n");
        return 2;
    }
    int a = open_ro(argv[2]), b = open_ro(argv[2]), c = open_ro(argv[2]);
    if (strcmp(argv[1], "probe") == 0) {
        const char *f = res(flock(a, LOCK_EX | LOCK_NB));
        printf("probe flock=%s posix=%s ofd=%s\n", f, getlk(b, F_GETLK), getlk(c, F_OFD_GETLK));
        return 0;
    }
    struct flock rd = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
    const char *f = res(flock(a, LOCK_EX));
    const char *p = res(fcntl(b, F_SETLK, &rd));
    const char *o = res(fcntl(c, F_OFD_SETLK, &rd));
    printf("held flock=%s posix=%s ofd=%s\n", f, p, o);
    fflush(stdout);
    char buf[256];
    while (read(0, buf, sizeof buf) > 0)
        ;
    return 0;
}
