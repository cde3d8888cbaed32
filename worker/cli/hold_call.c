/* hold_call.c -- the command's side of the holder (hold.h): find it, hand
 * it the command, exit as it says.
 *
 * A command holds the busy lock for the whole exchange, taken without
 * waiting: held by another command, the holder is serving it and this one
 * runs in process. The holder leaves (idle, or its binary changed) only
 * once it holds that lock itself, so a command that has it either
 * reaches a holder that will answer, or finds no socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/cli/cli.h"
#include "worker/cli/hold.h"
#include "worker/cli/hold_sock.h"

/* Whether a write to a closed pipe only fails here (SIGPIPE ignored or
 * blocked) rather than killing the command. */
static bool sigpipe_ignored(void)
{
    struct sigaction sa;
    sigset_t mask;
    return (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) ||
           (sigprocmask(SIG_BLOCK, NULL, &mask) == 0 && sigismember(&mask, SIGPIPE) == 1);
}

/* The request: its fixed part, the context, argv; NULL when it would be
 * past WK_HOLD_ARGV_MAX (the command then runs in process). */
static char *request(int argc, char **argv, const wk_hold_self *self, size_t *len)
{
    size_t alen = 0;
    for (int i = 0; i < argc; i++) {
        alen += strlen(argv[i]) + 1;
        if (alen > WK_HOLD_ARGV_MAX)
            return NULL;
    }
    size_t n = sizeof(wk_hold_req) + self->id.ctx_len + alen;
    char *buf = malloc(n);
    if (!buf)
        return NULL;
    wk_hold_req h = { .magic = WK_HOLD_MAGIC, .argc = (uint32_t)argc, .argv_len = (uint32_t)alen,
                      .sigpipe_ignored = sigpipe_ignored(), .id = self->id };
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, self->ctx, self->id.ctx_len);
    char *p = buf + sizeof h + self->id.ctx_len;
    for (int i = 0; i < argc; i++)
        p = stpcpy(p, argv[i]) + 1;
    *len = n;
    return buf;
}

/* Sends the request on fd with the cwd and stdio; 0, or -1 when it could
 * not go (a closed stdio fd, a cwd that cannot be opened): nothing reached
 * the holder. */
static int send_request(int fd, int argc, char **argv, const wk_hold_self *self)
{
    size_t len;
    char *buf = request(argc, argv, self, &len);
    if (!buf)
        return -1;
    int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int fds[WK_HOLD_FDS] = { cwd, 0, 1, 2 };
    int rc = cwd < 0 ? -1 : wk_hold_send(fd, buf, len, fds, WK_HOLD_FDS);
    if (cwd >= 0)
        close(cwd);
    free(buf);
    return rc;
}

int wk_hold_call(int argc, char **argv, wk_hold_self *self, int *status, bool *leave)
{
    char err[256];
    wk_hold_paths p;
    *leave = false;
    if (wk_hold_idle_ms() == 0 || wk_hold_self_get(self, err, sizeof err) < 0)
        return 0;
    /* No state directory yet: this run makes it, and then a holder. */
    if (wk_hold_paths_get(&p, &self->id) < 0) {
        *leave = true;
        return 0;
    }
    int busy = wk_hold_lock(p.busy, false);
    if (busy < 0)
        return 0;
    int fd = wk_hold_connect(p.sock);
    if (fd < 0) {
        close(busy);
        *leave = true;
        return 0;
    }
    int served = 0;
    wk_hold_reply r = { 0 };
    if (send_request(fd, argc, argv, self) == 0) {
        ssize_t n = wk_hold_recv(fd, &r, sizeof r, NULL, 0);
        if (n != (ssize_t)sizeof r) {
            /* It took the command and ended without an answer: killed. */
            fprintf(stderr, "gradeq run: the sandbox's holder process ended during the run\n");
            *status = WK_EXIT_REDIS;
            served = 1;
        } else if (r.what == WK_HOLD_SERVED) {
            *status = r.status;
            served = 1;
        } else {
            *leave = r.what == WK_HOLD_MISMATCH;
        }
    }
    close(fd);
    close(busy);
    if (served && r.what == WK_HOLD_SERVED && r.signal) {
        /* It died of it in the holder's stead: die of it here, as in process. */
        signal(r.signal, SIG_DFL);
        raise(r.signal);
    }
    return served;
}
