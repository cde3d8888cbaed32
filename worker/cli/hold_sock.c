/* hold_sock.c -- the holder's socket and its locks in the sandbox's state
 * directory, and messages with fds (SCM_RIGHTS) on it.
 *
 * The privileged part of the holder: a socket through which a process
 * hands its stdio and cwd to another that runs programs as root. Trust
 * rests on three checks, all here: the directory is this euid's and
 * writable by it alone (as sbx_host_open makes it; nothing else can place
 * or replace a socket or a lock in it), each side's peer has this euid
 * (SO_PEERCRED, the credentials at connect and listen), and a message is
 * taken only whole, with exactly the fds it must carry (a short or
 * truncated one closes whatever fds came with it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "worker/cli/hold_sock.h"

int wk_hold_paths_get(wk_hold_paths *p, const wk_hold_id *id)
{
    char dir[200];
    struct stat st;
    if (sbx_state_dir(NULL, dir, sizeof dir) < 0 || lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != geteuid() || (st.st_mode & 022))
        return -1;
    char base[sizeof dir + 64];
    int n = snprintf(base, sizeof base, "%s/run-%llx-%llx", dir, (unsigned long long)id->exe_dev,
                     (unsigned long long)id->exe_ino);
    if (n < 0 || (size_t)n + 6 > sizeof p->sock)
        return -1;
    snprintf(p->sock, sizeof p->sock, "%s.sock", base);
    snprintf(p->life, sizeof p->life, "%s.life", base);
    snprintf(p->busy, sizeof p->busy, "%s.busy", base);
    return 0;
}

int wk_hold_lock(const char *path, bool wait)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

/* A SOCK_SEQPACKET socket bound (listen) or connected to path: its fd,
 * or -1. */
static int socket_at(const char *path, bool listen_here)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path)
        return -1;
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    /* A socket left by a holder that was killed: ours to replace, under
     * the life lock the caller holds. */
    int rc = listen_here ? ((unlink(path) < 0 && errno != ENOENT) || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
                            chmod(path, 0600) < 0 || listen(fd, 8) < 0)
                         : (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 || !wk_hold_peer_ours(fd));
    if (rc) {
        close(fd);
        return -1;
    }
    return fd;
}

int wk_hold_listen(const char *path)
{
    return socket_at(path, true);
}

int wk_hold_connect(const char *path)
{
    return socket_at(path, false);
}

bool wk_hold_peer_ours(int fd)
{
    struct ucred cr;
    socklen_t len = sizeof cr;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 && len == sizeof cr && cr.uid == geteuid();
}

int wk_hold_send(int fd, const void *buf, size_t len, const int *fds, size_t nfds)
{
    char ctl[CMSG_SPACE(WK_HOLD_FDS * sizeof(int))];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = { (void *)buf, len };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (nfds) {
        if (nfds > WK_HOLD_FDS)
            return -1;
        mh.msg_control = ctl;
        mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
    }
    ssize_t n;
    while ((n = sendmsg(fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    return n == (ssize_t)len ? 0 : -1;
}

ssize_t wk_hold_recv(int fd, void *buf, size_t cap, int *fds, size_t nfds)
{
    char ctl[CMSG_SPACE(WK_HOLD_FDS * sizeof(int))];
    struct iovec iov = { buf, cap };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    ssize_t n;
    while ((n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    size_t got = 0;
    int in[WK_HOLD_FDS];
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < k; i++) {
                int f;
                memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
                if (got < WK_HOLD_FDS)
                    in[got++] = f;
                else
                    close(f);
            }
        }
    if (n <= 0 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || got != nfds) {
        for (size_t i = 0; i < got; i++)
            close(in[i]);
        return -1;
    }
    if (nfds)
        memcpy(fds, in, nfds * sizeof(int));
    return n;
}
