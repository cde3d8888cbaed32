/* beneath.c -- a path opened beneath a root, no link followed (beneath.h).
 *
 * openat2 resolves the whole path in the kernel in one call, atomically
 * with respect to renames: RESOLVE_BENEATH refuses any step above the
 * root, RESOLVE_NO_SYMLINKS any link (magic links of /proc included).
 * Where the kernel lacks it (ENOSYS; a seccomp filter that denies it
 * with EPERM), the walk does the same by hand: each directory is opened
 * with O_DIRECTORY | O_NOFOLLOW relative to the one before, so a link
 * planted anywhere fails that step (ENOTDIR or ELOOP, reported as ELOOP
 * when the entry is a link), and the last component is opened with
 * O_NOFOLLOW. Paths never hold "..": nothing can climb.
 *
 * The mode is one process-wide atomic: set by tests, or switched once
 * to the walk when openat2 turns out to be missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "queue/job.h"
#include "worker/problem/beneath.h"

static atomic_int mode = WK_BENEATH_AUTO;

void wk_beneath_set_mode(wk_beneath_mode m)
{
    atomic_store(&mode, (int)m);
}

wk_beneath_mode wk_beneath_mode_now(void)
{
    int m = atomic_load(&mode);
    return m == WK_BENEATH_WALK ? WK_BENEATH_WALK : WK_BENEATH_OPENAT2;
}

static int by_openat2(int root, const char *rel, int flags)
{
    struct open_how how = { .flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC),
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
    return (int)syscall(SYS_openat2, root, rel, &how, sizeof how);
}

/* errno for a failed step at dir/name: ELOOP when the entry is a link. */
static int why_step(int dir, const char *name, int e)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return ELOOP;
    return e;
}

static int by_walk(int root, const char *rel, int flags)
{
    char comp[Q_PATH_MAX + 1];
    int dir = root;
    const char *p = rel;
    for (;;) {
        const char *slash = strchr(p, '/');
        if (!slash)
            break;
        size_t n = (size_t)(slash - p);
        if (n == 0 || n >= sizeof comp) {
            if (dir != root)
                close(dir);
            errno = EINVAL;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = 0;
        int next = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = next < 0 ? why_step(dir, comp, errno) : 0;
        if (dir != root)
            close(dir);
        if (next < 0) {
            errno = e;
            return -1;
        }
        dir = next;
        p = slash + 1;
    }
    int fd = openat(dir, p, flags | O_NOFOLLOW | O_CLOEXEC);
    int e = fd < 0 ? why_step(dir, p, errno) : 0;
    if (dir != root)
        close(dir);
    if (fd < 0)
        errno = e;
    return fd;
}

int wk_beneath_open(int root, const char *rel, int flags)
{
    int m = atomic_load(&mode);
    if (m != WK_BENEATH_WALK) {
        int fd = by_openat2(root, rel, flags);
        if (fd >= 0 || m == WK_BENEATH_OPENAT2 || (errno != ENOSYS && errno != EPERM))
            return fd;
        atomic_compare_exchange_strong(&mode, &m, WK_BENEATH_WALK); /* no openat2 here */
    }
    return by_walk(root, rel, flags);
}
