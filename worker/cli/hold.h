/* hold.h -- `gradeq run`'s holder: a box kept warm between commands.
 *
 * Asked for with GRADEQ_RUN_HOLD_MS (off by default: a holder stays in the
 * cgroup, scope and session the first command ran in, and a caller that
 * removes its cgroup after the command, or waits for its scope to end,
 * would find it still there), a `gradeq run` that finds no holder runs in
 * process as it always did, then leaves one behind (hold_serve.c): a
 * process of its own session,
 * stdio on /dev/null, that opens a host and a box and serves the next
 * `gradeq run` commands of the same binary, user and context over a unix
 * socket in the sandbox's state directory (hold_sock.c), one at a time,
 * until it has been idle GRADEQ_RUN_HOLD_MS (unset or 0: no holder at
 * all). A request carries the command's argv, its identity (hold_id.c) and
 * its cwd, stdin, stdout and stderr as fds; the holder runs it exactly as
 * the command would have in process, on those fds, and answers its exit
 * status (hold_call.c is the command's side).
 *
 * THE CONTRACT. A command the holder serves prints the same bytes and
 * exits with the same status as in process; runs between commands are as
 * fresh as between a worker's jobs (the box's reset, sandbox.h). Whatever
 * could make a run differ is in the identity, and a holder answers only a
 * command whose identity is its own: else it answers MISMATCH and exits,
 * and the command runs in process. A command never waits on another: a
 * holder serving one is busy, and the next runs in process. A holder's
 * own failure is never the command's: a run its box fails is run again in
 * a box opened for it, as in process, and the holder then exits. Nothing
 * of the holder is ever printed: a holder that cannot be found, reached or
 * started changes only the command's speed (it runs in process).
 *
 * Files: a lock held by the holder for its life (only its owner binds or
 * removes the socket), a lock each command holds for its request (busy),
 * and the socket; all three named after the binary's device and inode, so
 * that two builds (two checkouts) keep their holders apart.
 */
#ifndef GRADEQ_HOLD_H
#define GRADEQ_HOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#define WK_HOLD_ENV "GRADEQ_RUN_HOLD_MS"
#define WK_HOLD_CTX_MAX 8192   /* GRADEQ_* variables and the cgroup file */
#define WK_HOLD_ARGV_MAX 49152 /* argv bytes a request carries; more: in process */

/* What makes a run differ besides its argv, compared in full (hold_id.c
 * says why each field is there). Zeroed before it is filled: padding
 * compares too. */
typedef struct wk_hold_id {
    uint64_t exe_dev, exe_ino;
    int64_t exe_mtime_s, exe_mtime_ns, exe_ctime_s, exe_ctime_ns;
    uint64_t ns[4];
    uint32_t euid, egid;
    uint32_t caps[6];
    int32_t seccomp, no_new_privs, nice;
    uint32_t umask;
    uint64_t rlim[RLIM_NLIMITS][2];
    uint64_t affinity[16];
    uint32_t ctx_len; /* bytes of ctx: each GRADEQ_* variable, sorted, then /proc/self/cgroup */
    uint32_t pad2_;
} wk_hold_id;

/* The id and its context, as one process sees itself now. */
typedef struct wk_hold_self {
    wk_hold_id id;
    char ctx[WK_HOLD_CTX_MAX];
} wk_hold_self;

/* GRADEQ_RUN_HOLD_MS: the holder's idle time in ms, 0 for none. A value
 * that is not a number is 0 (no holder: the command runs as it always
 * did). */
long wk_hold_idle_ms(void);

/* hold_id.c: this process's identity; -1 with err when it cannot be
 * known or does not fit (then no holder is used). */
int wk_hold_self_get(wk_hold_self *s, char *err, size_t errlen);
bool wk_hold_self_equal(const wk_hold_self *a, const wk_hold_id *id, const char *ctx);

/* The request's fixed part; ctx then argv (each string NUL-terminated)
 * follow it in the same message, with four fds: cwd, stdin, stdout,
 * stderr. */
enum { WK_HOLD_MAGIC = 0x67716831 };
typedef struct wk_hold_req {
    uint32_t magic;
    uint32_t argc;
    uint32_t argv_len;
    uint32_t sigpipe_ignored; /* the command ignores SIGPIPE */
    wk_hold_id id;
} wk_hold_req;

enum { WK_HOLD_SERVED = 1, WK_HOLD_MISMATCH, WK_HOLD_DECLINED };
typedef struct wk_hold_reply {
    uint32_t what;      /* WK_HOLD_* */
    int32_t status;     /* SERVED: the exit status */
    int32_t signal;     /* SERVED: nonzero when the command must die of it (SIGPIPE) */
} wk_hold_reply;

/* hold_call.c: asks a holder to serve this `gradeq run` (argv as main
 * gave it to the command), self filled here. 1: served, *status is the
 * exit status (the command dies of a signal here when it must); 0: run in
 * process, and *leave says whether to leave a holder behind afterwards
 * (with self as the identity it serves). */
int wk_hold_call(int argc, char **argv, wk_hold_self *self, int *status, bool *leave);

/* hold_serve.c: after an in-process run, starts a holder (double fork,
 * setsid, stdio on /dev/null) for the identity self and returns; the
 * holder's failures are its own (it exits). require_isolation as the
 * command had it. */
void wk_hold_leave(const wk_hold_self *self, bool require_isolation);

#endif
