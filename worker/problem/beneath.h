/* beneath.h -- opening a path beneath a directory without following a
 * link (beneath.c): the one way problem material is opened.
 *
 * The path is resolved beneath the root's fd: with openat2 and
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it (5.6+),
 * else component by component with O_NOFOLLOW (each directory opened
 * with O_DIRECTORY | O_NOFOLLOW from the one before). Either way no
 * symbolic link is followed anywhere in the path, and nothing above the
 * root is reached. The path itself must already obey wk_mat_path_check
 * (relative, no "..", no empty component): the kernel would refuse ".."
 * that leaves, but we refuse it before asking.
 */
#ifndef GRADEQ_WORKER_BENEATH_H
#define GRADEQ_WORKER_BENEATH_H

#include <stdbool.h>

typedef enum { WK_BENEATH_AUTO, WK_BENEATH_OPENAT2, WK_BENEATH_WALK } wk_beneath_mode;

/* Which resolution is used from now on (process-wide). AUTO: openat2 until
 * the kernel says it has none, then the walk. Tests force each. */
void wk_beneath_set_mode(wk_beneath_mode m);
/* The resolution the next open will use (AUTO resolved once asked). */
wk_beneath_mode wk_beneath_mode_now(void);

/* Opens rel beneath root with flags (O_PATH, or O_RDONLY with O_DIRECTORY
 * or O_NONBLOCK ...; O_NOFOLLOW and O_CLOEXEC are always added). Returns
 * the fd, or -1 with errno: ELOOP when a component is a link (also one of
 * the directories on the way), ENOENT, ENOTDIR, EACCES ... */
int wk_beneath_open(int root, const char *rel, int flags);

#endif
