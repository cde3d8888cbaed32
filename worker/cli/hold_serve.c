/* hold_serve.c -- the holder process (hold.h): left behind by an
 * in-process `gradeq run`, it keeps a host and a box and serves the next
 * commands of its identity until idle.
 *
 * INVARIANTS. The holder holds none of its parent's fds: stdio is
 * /dev/null and every other fd is closed before anything else (a command
 * in `$(...)` would otherwise wait for it). Between requests its fds 0-2
 * are /dev/null and its cwd is /; a request's fds are its 0-2 and its cwd
 * only while it is served. It is found only while it holds the life lock
 * and its socket exists (withdraw removes both first, so that no command
 * reaches a holder that is leaving); it leaves, idle or with its binary
 * changed (inotify on it), only while it holds the busy lock, or once
 * withdrawn. A command's output goes out as in process: on a closed pipe
 * the rest of its output is dropped and the command dies of SIGPIPE
 * (unless it ignored SIGPIPE, which the request says).
 *
 * THREADS. The holder's thread does everything but the watch on the
 * command being served (hold_watch.c), which may only cancel its run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "worker/cli/cmd_run.h"
#include "worker/cli/hold.h"
#include "worker/cli/hold_sock.h"
#include "worker/cli/hold_watch.h"

static volatile sig_atomic_t pipe_hit;
static int null_fd = -1;

/* A write of the command's output found its pipe closed: in process the
 * command would die here, so nothing more of it reaches its fds. */
static void on_sigpipe(int sig)
{
    (void)sig;
    pipe_hit = 1;
    dup2(null_fd, 1);
    dup2(null_fd, 2);
}

typedef struct holder {
    const wk_hold_self *self;
    bool require_isolation;
    wk_hold_paths paths;
    int life, listen, notify, root;
    sbx_host *host;
    sbx_box *box;
    wk_hold_watch watch;
    bool leaving;
} holder;

/* No command finds the holder from now on. */
static void withdraw(holder *h)
{
    if (h->listen < 0)
        return;
    unlink(h->paths.sock);
    close(h->listen);
    close(h->life);
    h->listen = h->life = -1;
}

static char reqbuf[sizeof(wk_hold_req) + WK_HOLD_CTX_MAX + WK_HOLD_ARGV_MAX];

/* The request in reqbuf, n bytes, checked whole: its argv (malloc'd) or
 * NULL. */
static char **request_argv(size_t n, wk_hold_req *q)
{
    if (n < sizeof *q)
        return NULL;
    memcpy(q, reqbuf, sizeof *q);
    if (q->magic != WK_HOLD_MAGIC || q->id.ctx_len > WK_HOLD_CTX_MAX || q->argv_len > WK_HOLD_ARGV_MAX ||
        q->argc == 0 || q->argc > q->argv_len || sizeof *q + q->id.ctx_len + q->argv_len != n)
        return NULL;
    char *p = reqbuf + sizeof *q + q->id.ctx_len, *end = p + q->argv_len;
    if (end[-1] != 0)
        return NULL;
    char **argv = calloc((size_t)q->argc + 1, sizeof *argv);
    if (!argv)
        return NULL;
    for (uint32_t i = 0; i < q->argc; i++) {
        if (p >= end) {
            free(argv);
            return NULL;
        }
        argv[i] = p;
        p += strlen(p) + 1;
    }
    if (p != end) {
        free(argv);
        return NULL;
    }
    return argv;
}

/* The run on the warm box; when that box fails it, the run again on a box
 * opened for it, as the command in process would have (the holder then
 * leaves). -1 when the command went away meanwhile (the run cancelled:
 * nothing is printed, nothing answered). */
static int run_warm(holder *h, int conn, wk_cli_run *c, sbx_result *r)
{
    int rc = wk_run_single(c, h->box, r);
    if (wk_hold_watch_disarm(&h->watch))
        return sbx_result_free(r), -1;
    if (rc == 0)
        return 0;
    sbx_result_free(r);
    sbx_box_close(h->box);
    h->box = NULL;
    withdraw(h);
    h->leaving = true;
    char err[SBX_HOST_ERR_LEN];
    if (sbx_box_open(h->host, &h->box, err, sizeof err) < 0 ||
        (wk_hold_watch_arm(&h->watch, conn, h->box) < 0 &&
         snprintf(err, sizeof err, "watching the command: %s", strerror(errno)))) {
        fprintf(stderr, "gradeq run: cannot start the sandbox: %s\n", err);
        return 1;
    }
    rc = wk_run_single(c, h->box, r);
    if (wk_hold_watch_disarm(&h->watch))
        return sbx_result_free(r), -1;
    return rc < 0 ? 2 : 0;
}

/* The command, on the fds already in place: WK_HOLD_SERVED with *status,
 * WK_HOLD_DECLINED (nothing printed, nothing read), or 0 (gone). */
static uint32_t run_command(holder *h, int conn, int argc, char **argv, int *status)
{
    static wk_cli_run c;
    memset(&c, 0, sizeof c);
    if (!wk_run_parse(&c, argc, argv, status))
        return WK_HOLD_SERVED;
    /* An interactive run stays in process (two boxes); so does a run that
     * requires full isolation on a host opened without it that lacks some. */
    if (c.has_interactor || (c.require_isolation && !h->require_isolation &&
                             (sbx_host_isolation(h->host) & SBX_ISO_ALL) != SBX_ISO_ALL) ||
        wk_hold_watch_arm(&h->watch, conn, h->box) < 0) {
        wk_cli_run_free(&c);
        return WK_HOLD_DECLINED;
    }
    if (!wk_run_input(&c, status)) {
        wk_hold_watch_disarm(&h->watch);
        return WK_HOLD_SERVED;
    }
    wk_run_notes(h->host);
    sbx_result r;
    switch (run_warm(h, conn, &c, &r)) {
    case -1:
        wk_cli_run_free(&c);
        return 0;
    case 1:
        wk_cli_run_free(&c);
        *status = WK_EXIT_REDIS;
        return WK_HOLD_SERVED;
    case 2:
        *status = wk_run_report(&c, &r, -1);
        return WK_HOLD_SERVED;
    default:
        *status = wk_run_report(&c, &r, 0);
        return WK_HOLD_SERVED;
    }
}

/* Back to the holder's own fds 0-2 and cwd; the command's output flushed
 * (or dropped, once its pipe was found closed). */
static void restore(holder *h)
{
    fflush(stdout);
    fflush(stderr);
    __fpurge(stdout);
    __fpurge(stderr);
    clearerr(stdout);
    clearerr(stderr);
    for (int fd = 0; fd < 3; fd++)
        if (dup2(null_fd, fd) < 0)
            h->leaving = true;
    if (fchdir(h->root) < 0)
        h->leaving = true;
}

static void serve(holder *h, int conn)
{
    int fds[WK_HOLD_FDS];
    wk_hold_req q;
    if (!wk_hold_peer_ours(conn))
        return;
    ssize_t n = wk_hold_recv(conn, reqbuf, sizeof reqbuf, fds, WK_HOLD_FDS);
    if (n < 0)
        return;
    char **argv = request_argv((size_t)n, &q);
    wk_hold_reply rep = { WK_HOLD_DECLINED, 0, 0 };
    if (argv && !wk_hold_self_equal(h->self, &q.id, reqbuf + sizeof q)) {
        withdraw(h);
        h->leaving = true;
        rep.what = WK_HOLD_MISMATCH;
    } else if (argv) {
        pipe_hit = 0;
        struct sigaction sa = { .sa_handler = q.sigpipe_ignored ? SIG_IGN : on_sigpipe };
        int st = 0;
        if (sigaction(SIGPIPE, &sa, NULL) == 0 && fchdir(fds[0]) == 0 && dup2(fds[1], 0) == 0 && dup2(fds[2], 1) == 1 &&
            dup2(fds[3], 2) == 2)
            rep.what = run_command(h, conn, (int)q.argc, argv, &st);
        /* Its output not all taken: the command dies of SIGPIPE (pipe_hit),
         * or, SIGPIPE ignored, answers as main does in process. */
        if (rep.what == WK_HOLD_SERVED && !pipe_hit)
            st = wk_output_done("run", st);
        restore(h);
        rep.status = st;
        rep.signal = pipe_hit ? SIGPIPE : 0;
    }
    for (int i = 0; i < WK_HOLD_FDS; i++)
        close(fds[i]);
    free(argv);
    if (argv)
        wk_hold_watch_forget(&h->watch, conn);
    if (argv && rep.what && wk_hold_send(conn, &rep, sizeof rep, NULL, 0) < 0)
        h->leaving = true;
}

static void serve_loop(holder *h, long idle_ms)
{
    int idle = idle_ms > INT_MAX ? INT_MAX : (int)idle_ms;
    while (h->listen >= 0) {
        struct pollfd p[2] = { { h->listen, POLLIN, 0 }, { h->notify, POLLIN, 0 } };
        int k = poll(p, 2, h->leaving ? 10 : idle);
        if (k < 0 && errno != EINTR)
            return;
        if (k == 0 || (p[1].revents & POLLIN))
            h->leaving = true;
        if (h->leaving) {
            /* Held, a command is on its way in: serve it first. */
            int busy = wk_hold_lock(h->paths.busy, false);
            if (busy >= 0) {
                withdraw(h);
                close(busy);
                return;
            }
        }
        if (k > 0 && (p[0].revents & POLLIN)) {
            int conn = accept4(h->listen, NULL, NULL, SOCK_CLOEXEC);
            if (conn >= 0) {
                serve(h, conn);
                close(conn);
            }
        }
    }
}

/* The holder's binary, watched: any change to it (rewritten, touched,
 * replaced, removed) ends the holder. -1 when it is not the binary of
 * self any more. */
static int watch_binary(holder *h)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return -1;
    path[n] = 0;
    h->notify = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    struct stat st;
    if (h->notify < 0 ||
        inotify_add_watch(h->notify, path, IN_ATTRIB | IN_MODIFY | IN_MOVE_SELF | IN_DELETE_SELF) < 0 ||
        stat(path, &st) < 0)
        return -1;
    const wk_hold_id *id = &h->self->id;
    return st.st_dev == id->exe_dev && st.st_ino == id->exe_ino && st.st_mtim.tv_sec == id->exe_mtime_s &&
                   st.st_mtim.tv_nsec == id->exe_mtime_ns && st.st_ctim.tv_sec == id->exe_ctime_s &&
                   st.st_ctim.tv_nsec == id->exe_ctime_ns
               ? 0
               : -1;
}

/* Nothing of the command that left it: stdio on /dev/null, no other fd,
 * cwd /, no signal blocked, a name operators can tell (ps: gradeq-hold). */
static int detach(holder *h)
{
    sigset_t none;
    sigemptyset(&none);
    int fd = open("/dev/null", O_RDWR);
    if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || close_range(3, ~0u, 0) < 0)
        return -1;
    null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    h->root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    return null_fd < 0 || h->root < 0 || fchdir(h->root) < 0 || sigprocmask(SIG_SETMASK, &none, NULL) < 0 ||
                   prctl(PR_SET_NAME, "gradeq-hold", 0, 0, 0) < 0
               ? -1
               : 0;
}

static void holder_main(const wk_hold_self *self, bool require_isolation, long idle_ms)
{
    holder h = { .self = self, .require_isolation = require_isolation, .life = -1, .listen = -1, .notify = -1,
                 .root = -1 };
    char err[SBX_HOST_ERR_LEN];
    sbx_host_options ho = { .require_isolation = require_isolation };
    if (detach(&h) < 0 || watch_binary(&h) < 0 || wk_hold_paths_get(&h.paths, &self->id) < 0)
        return;
    /* Another holder of this binary lives: it serves. */
    h.life = wk_hold_lock(h.paths.life, false);
    if (h.life < 0)
        return;
    if (sbx_host_open(&h.host, &ho, err, sizeof err) < 0)
        return;
    if (sbx_box_open(h.host, &h.box, err, sizeof err) == 0 && wk_hold_watch_start(&h.watch) == 0) {
        h.listen = wk_hold_listen(h.paths.sock);
        if (h.listen >= 0)
            serve_loop(&h, idle_ms);
        withdraw(&h);
        wk_hold_watch_stop(&h.watch);
    }
    sbx_box_close(h.box);
    sbx_host_close(h.host);
}

void wk_hold_leave(const wk_hold_self *self, bool require_isolation)
{
    long idle_ms = wk_hold_idle_ms();
    pid_t pid = fork();
    if (pid < 0)
        return; /* no holder this time: the next command runs in process and tries again */
    if (pid > 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return;
    }
    /* The middle child: a session of its own, then gone, so the holder is
     * no child of the command's caller and has no terminal. */
    if (setsid() < 0 || fork() != 0)
        _exit(0);
    holder_main(self, require_isolation, idle_ms);
    _exit(0);
}
