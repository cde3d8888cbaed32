/* file_limit.c -- whether a run's file reached its size limit, measured on
 * what it left in /box and /tmp.
 *
 * A death by SIGXFSZ is the kernel's answer to a write past RLIMIT_FSIZE,
 * but any program can also raise the signal itself, or have it sent by a
 * timer or a lease. So OUTPUT_LIMIT is decided on a file of at least
 * file_bytes that the run wrote (the kernel cuts a write short at the
 * limit, and kills at the next), never on the signal alone. A file the run
 * wrote is its uid's: the files placed for it are root's (run.c), so a
 * large input file measures nothing (without root every file is the
 * caller's uid, a placed one included). The names and the tree are the
 * program's: the walk goes through directory fds without following links,
 * at most WALK_DEPTH deep (a file deeper than that is not found, and the
 * death reads as a crash); the run is over, nothing changes under it.
 * What it cannot see (a file the program unlinked, a memfd) is not
 * measured either. */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define WALK_DEPTH 64

static bool walk(int dirfd, uint64_t bytes, uid_t uid, unsigned depth)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            found = st.st_uid == uid && (uint64_t)st.st_size >= bytes;
        } else if (S_ISDIR(st.st_mode) && depth < WALK_DEPTH) {
            int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                found = walk(sub, bytes, uid, depth + 1);
                close(sub);
            }
        }
    }
    closedir(d);
    return found;
}

bool fl_file_at_limit(int dirfd, uint64_t bytes, uid_t uid)
{
    return dirfd >= 0 && walk(dirfd, bytes, uid, 0);
}
