/* host_cache: a run making the host flush its disks or drop its page cache,
 * through a read-only system file every box sees (FILE, on the host's disk):
 *   host_cache FILE CALL
 * CALL is one of sync syncfs fsync fdatasync sync_file_range fadvise
 * (posix_fadvise POSIX_FADV_DONTNEED); each on FILE opened read-only.
 * Prints `CALL=0` or
 * `CALL errno=E`, exits 0. Exit 2 = usage, or FILE cannot be opened.
 * Sandbox must report: OK and `CALL=0` (programs see success) while FILE's
 * dirty pages stay dirty and its cached pages cached: the call did nothing
 * to the host. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0)
        return 2;
    const char *c = argv[2];
    long rc;
    errno = 0;
    if (strcmp(c, "sync") == 0) {
        rc = syscall(SYS_sync);
    } else if (strcmp(c, "syncfs") == 0) {
        rc = syncfs(fd);
    } else if (strcmp(c, "fsync") == 0) {
        rc = fsync(fd);
    } else if (strcmp(c, "fdatasync") == 0) {
        rc = fdatasync(fd);
    } else if (strcmp(c, "sync_file_range") == 0) {
        rc = sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                       SYNC_FILE_RANGE_WAIT_AFTER);
    } else if (strcmp(c, "fadvise") == 0) {
        rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        if (rc > 0) { /* returns the error itself */
            errno = (int)rc;
            rc = -1;
        }
    } else {
        return 2;
    }
    if (rc == 0) {
        printf("%s=0\n", c);
    } else {
        const char *n = strerrorname_np(errno);
        printf("%s errno=%s\n", c, n ? n : "?");
    }
    return 0;
}
