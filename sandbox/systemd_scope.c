/* systemd_scope.c -- asks systemd for a transient scope with Delegate=yes
 * holding this process (what `systemd-run --scope -p Delegate=yes` does).
 *
 * DESIGN. systemd reads a pid in its own PID namespace, so a pid of ours
 * must never be sent: in a container or under `unshare --pid` it names
 * another process of the host (or none), which systemd would move out of
 * its unit. We connect to systemd ourselves, on its private socket (as
 * systemctl does as root: no bus daemon needed), and ask for the scope
 * with PIDs [0], "the sender": systemd takes the process from the kernel's
 * credentials of this connection, which name the process that connected
 * (this one) in systemd's namespace. A helper such as busctl cannot do
 * this: the sender would be the helper.
 *
 * INVARIANTS. One connection per call, closed before return; every wait
 * is bounded (the socket's timeouts); nothing systemd says reaches the
 * message unquoted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define PRIVATE_SOCKET "/run/systemd/private"
#define TIMEOUT_S 5
#define SERIAL 1

static int send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Exactly n bytes; -1 with errno (ECONNRESET at the end of the stream,
 * EAGAIN when the socket's timeout passed). */
static int recv_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n) {
        ssize_t r = recv(fd, c, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = ECONNRESET;
            return -1;
        }
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The authentication: EXTERNAL (the kernel's credentials of the socket,
 * our uid spelt in hex digits of its decimal form), then BEGIN. The
 * server answers one line and sends nothing more before BEGIN, so reading
 * it byte by byte never takes a byte of the reply. */
static int authenticate(int fd, char *err, size_t errlen)
{
    char uid[16], line[64] = "", hex[40] = "";
    snprintf(uid, sizeof uid, "%u", (unsigned)geteuid());
    for (size_t i = 0; uid[i]; i++)
        snprintf(hex + 2 * i, sizeof hex - 2 * i, "%02x", (unsigned char)uid[i]);
    int n = snprintf(line, sizeof line, "%cAUTH EXTERNAL %s\r\n", 0, hex);
    if (send_all(fd, line, (size_t)n) < 0)
        return sbx_fail_errno(err, errlen, "sending to systemd");
    size_t len = 0;
    while (len < sizeof line - 1 && (len < 2 || line[len - 2] != '\r' || line[len - 1] != '\n')) {
        if (recv_all(fd, line + len, 1) < 0)
            return sbx_fail_errno(err, errlen, "reading systemd's answer");
        len++;
    }
    line[len] = 0;
    if (strncmp(line, "OK ", 3) != 0) {
        char q[64];
        sbx_quote(q, sizeof q, line);
        return sbx_fail(err, errlen, "systemd refused us (%s)", q);
    }
    return send_all(fd, "BEGIN\r\n", 7) < 0 ? sbx_fail_errno(err, errlen, "sending to systemd") : 0;
}

/* Reads messages until the reply to ours. systemd also sends signals to
 * every direct connection: they are read and dropped, and so is anything
 * larger than a reply can be. */
static int read_reply(int fd, dbm_reply *rep, char *err, size_t errlen)
{
    uint8_t msg[DBM_REPLY_MAX];
    for (;;) {
        if (recv_all(fd, msg, DBM_FIXED) < 0)
            return sbx_fail_errno(err, errlen, "reading systemd's reply");
        long size = dbm_message_size(msg);
        if (size < 0)
            return sbx_fail(err, errlen, "systemd's reply is not a D-Bus message");
        if ((size_t)size > sizeof msg) {
            for (size_t left = (size_t)size - DBM_FIXED, k; left; left -= k) {
                k = left < sizeof msg ? left : sizeof msg;
                if (recv_all(fd, msg, k) < 0)
                    return sbx_fail_errno(err, errlen, "reading systemd's reply");
            }
            continue;
        }
        if (recv_all(fd, msg + DBM_FIXED, (size_t)size - DBM_FIXED) < 0)
            return sbx_fail_errno(err, errlen, "reading systemd's reply");
        if (dbm_parse(msg, (size_t)size, rep) < 0)
            return sbx_fail(err, errlen, "systemd's reply is not a D-Bus message");
        if ((rep->type == DBM_METHOD_RETURN || rep->type == DBM_ERROR) && rep->reply_serial == SERIAL)
            return 0;
    }
}

int sdscope_start(const char *unit, char *err, size_t errlen)
{
    uint8_t call[1024];
    long n = dbm_start_scope(call, sizeof call, SERIAL, unit, "gradeq sandbox");
    if (n < 0)
        return sbx_fail(err, errlen, "scope name too long");
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return sbx_fail_errno(err, errlen, "socket");
    struct timeval tv = { TIMEOUT_S, 0 };
    struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = PRIVATE_SOCKET };
    int rc = -1;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0) {
        sbx_fail_errno(err, errlen, "setting the socket's timeouts");
        goto out;
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        sbx_fail_errno(err, errlen, "connecting to systemd at %s", PRIVATE_SOCKET);
        goto out;
    }
    if (authenticate(fd, err, errlen) < 0)
        goto out;
    if (send_all(fd, call, (size_t)n) < 0) {
        sbx_fail_errno(err, errlen, "sending to systemd");
        goto out;
    }
    dbm_reply rep;
    if (read_reply(fd, &rep, err, errlen) < 0)
        goto out;
    if (rep.type == DBM_ERROR) {
        char name[128], why[256];
        sbx_quote(name, sizeof name, rep.error);
        sbx_quote(why, sizeof why, rep.message);
        sbx_fail(err, errlen, "systemd refused the scope: %s%s%s", why, why[0] ? " " : "", name);
        goto out;
    }
    rc = 0;
out:
    close(fd);
    return rc;
}
