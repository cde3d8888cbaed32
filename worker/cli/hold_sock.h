/* hold_sock.h -- the holder's socket, locks and fd-carrying messages
 * (hold_sock.c; hold.h has the design). */
#ifndef GRADEQ_HOLD_SOCK_H
#define GRADEQ_HOLD_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "worker/cli/hold.h"

#define WK_HOLD_FDS 4 /* a request's: cwd, stdin, stdout, stderr */

typedef struct wk_hold_paths {
    char sock[108]; /* sun_path's size */
    char life[300];
    char busy[300];
} wk_hold_paths;

/* The three paths for the binary of id, in the state directory of a host
 * opened with default options; -1 when that directory is missing, is not
 * this euid's, is writable by others, or the paths do not fit. */
int wk_hold_paths_get(wk_hold_paths *p, const wk_hold_id *id);
/* An exclusive flock on path (made 0600 if missing), waited for or not:
 * its fd, or -1 (held elsewhere, or an error). */
int wk_hold_lock(const char *path, bool wait);
/* A listening SOCK_SEQPACKET socket at path (one left there is replaced:
 * hold the life lock), or -1. */
int wk_hold_listen(const char *path);
/* Connected to the socket at path, its listener of this euid; or -1. */
int wk_hold_connect(const char *path);
/* Whether the peer of a connected socket has this process's euid. */
bool wk_hold_peer_ours(int fd);
/* One whole message with nfds (at most WK_HOLD_FDS) fds: 0 or -1. */
int wk_hold_send(int fd, const void *buf, size_t len, const int *fds, size_t nfds);
/* One message into buf; exactly nfds fds must come with it (into fds),
 * else they are closed and the message refused. Its length, or -1 (also
 * at end of stream, and for a message longer than cap). */
ssize_t wk_hold_recv(int fd, void *buf, size_t cap, int *fds, size_t nfds);

#endif
