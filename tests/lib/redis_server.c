/* redis_server.c -- start, stop, restart and remove a private redis-server
 * (see redis_server.h).
 *
 * DESIGN
 *   fork + execvp("redis-server") with every setting on the command line,
 *   so no config file is needed. Readiness is "a PING over the unix socket
 *   answers PONG": the socket is polled every 2 ms, and the child is reaped
 *   if it dies first (its log is in dir/redis.log). Stopping is SIGTERM (a
 *   clean shutdown that flushes the AOF), then SIGKILL after 10 s.
 */
#include "tests/lib/redis_server.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define READY_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 10000
#define POLL_MS 2

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static long now_ms(void)
{
    struct timespec t;
    (void)clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static void pause_poll(void)
{
    struct timespec t = { 0, POLL_MS * 1000000L };
    (void)nanosleep(&t, NULL);
}

/* In the child: dies with the parent, quiet stdio, exec redis-server. */
static void exec_server(const rs_server *s, pid_t parent)
{
    const char *argv[32];
    int n = 0;
    argv[n++] = "redis-server";
    argv[n++] = "--port";
    argv[n++] = "0";
    argv[n++] = "--unixsocket";
    argv[n++] = s->sock;
    argv[n++] = "--unixsocketperm";
    argv[n++] = "700";
    argv[n++] = "--dir";
    argv[n++] = s->dir;
    argv[n++] = "--logfile";
    argv[n++] = "redis.log";
    argv[n++] = "--daemonize";
    argv[n++] = "no";
    argv[n++] = "--save";
    argv[n++] = "";
    argv[n++] = "--appendonly";
    argv[n++] = s->aof ? "yes" : "no";
    argv[n++] = "--appendfsync";
    argv[n++] = "always";
    if (s->pass[0]) {
        argv[n++] = "--requirepass";
        argv[n++] = s->pass;
    }
    argv[n] = NULL;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
        _exit(126);
    int fd = open("/dev/null", O_RDWR);
    if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
        _exit(126);
    execvp(argv[0], (char *const *)argv);
    _exit(127);
}

/* 1: answered PONG; 0: not yet (no socket, refused, LOADING); -1: broken. */
static int ping_once(const rs_server *s)
{
    struct timeval tv = { 1, 0 };
    redisContext *c = redisConnectUnixWithTimeout(s->sock, tv);
    if (!c)
        return -1;
    int ready = 0;
    if (!c->err && redisSetTimeout(c, tv) == REDIS_OK) {
        redisReply *r = s->pass[0] ? redisCommand(c, "AUTH %s", s->pass) : NULL;
        if (!s->pass[0] || (r && r->type == REDIS_REPLY_STATUS)) {
            redisReply *p = redisCommand(c, "PING");
            ready = p && p->type == REDIS_REPLY_STATUS && !strcmp(p->str, "PONG");
            if (p)
                freeReplyObject(p);
        }
        if (r)
            freeReplyObject(r);
    }
    redisFree(c);
    return ready;
}

static int wait_ready(rs_server *s, char *err, size_t errlen)
{
    long deadline = now_ms() + READY_TIMEOUT_MS;
    for (;;) {
        int st;
        pid_t w = waitpid(s->pid, &st, WNOHANG);
        if (w == s->pid) {
            s->pid = 0;
            return fail(err, errlen, "redis-server exited (status %d) before answering; see %s/redis.log",
                        st, s->dir);
        }
        int r = ping_once(s);
        if (r < 0)
            return fail(err, errlen, "out of memory while polling redis-server");
        if (r == 1)
            return 0;
        if (now_ms() > deadline)
            return fail(err, errlen, "redis-server did not answer PING within %d ms", READY_TIMEOUT_MS);
        pause_poll();
    }
}

static int spawn(rs_server *s, char *err, size_t errlen)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return fail(err, errlen, "fork: %s", strerror(errno));
    if (pid == 0)
        exec_server(s, parent);
    s->pid = pid;
    if (wait_ready(s, err, errlen) < 0) {
        char ignored[8];
        (void)rs_stop(s, ignored, sizeof ignored);
        return -1;
    }
    return 0;
}

int rs_start(rs_server *s, const rs_opts *o, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0])
        tmp = "/tmp";
    /* mkdtemp's template: the name, then six X it replaces. */
    int n = snprintf(s->dir, sizeof s->dir, "%s/gradeq-redis-", tmp);
    if (n < 0 || (size_t)n + 7 > sizeof s->dir)
        return fail(err, errlen, "TMPDIR too long");
    memset(s->dir + n, 'X', 6);
    s->dir[n + 6] = '\0';
    if (!mkdtemp(s->dir))
        return fail(err, errlen, "mkdtemp %s: %s", s->dir, strerror(errno));
    (void)snprintf(s->sock, sizeof s->sock, "%s/redis.sock", s->dir);
    (void)snprintf(s->url, sizeof s->url, "unix://%s", s->sock);
    if (o) {
        s->aof = o->aof;
        if (o->requirepass)
            (void)snprintf(s->pass, sizeof s->pass, "%s", o->requirepass);
    }
    if (spawn(s, err, errlen) < 0) {
        rs_destroy(s);
        return -1;
    }
    return 0;
}

int rs_restart(rs_server *s, char *err, size_t errlen)
{
    if (s->pid)
        return fail(err, errlen, "redis-server is still running");
    return spawn(s, err, errlen);
}

int rs_stop(rs_server *s, char *err, size_t errlen)
{
    if (!s->pid)
        return 0;
    if (kill(s->pid, SIGTERM) < 0)
        return fail(err, errlen, "kill %d: %s", (int)s->pid, strerror(errno));
    long deadline = now_ms() + STOP_TIMEOUT_MS;
    int st;
    pid_t w;
    while ((w = waitpid(s->pid, &st, WNOHANG)) == 0) {
        if (now_ms() > deadline) {
            (void)kill(s->pid, SIGKILL);
            w = waitpid(s->pid, &st, 0);
            break;
        }
        pause_poll();
    }
    s->pid = 0;
    if (w < 0)
        return fail(err, errlen, "waitpid: %s", strerror(errno));
    return 0;
}

static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *f)
{
    (void)sb;
    (void)f;
    return (type == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

void rs_destroy(rs_server *s)
{
    char ignored[8];
    (void)rs_stop(s, ignored, sizeof ignored);
    if (s->dir[0])
        (void)nftw(s->dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
    s->dir[0] = '\0';
}
