/* uid_claim.c -- a slot's uid, claimed for the whole machine.
 *
 * A slot is its uid: the jobs run as it, and the kernel counts processes,
 * and limits them (RLIMIT_NPROC), per uid over the whole machine. The lock
 * files in the state directory are shared only by workers that share the
 * directory; a container has its own /run, a pod its own everything. Two
 * workers that took the same slot would run jobs as one uid: one job's
 * processes would fail the other's fork, a kill(-1) as that uid would
 * reach both.
 *
 * DESIGN. The claim is a charge the kernel keeps per uid across every
 * namespace but the user namespace: the bytes of POSIX message queues
 * (RLIMIT_MSGQUEUE), charged to the real uid of the process that creates
 * one, checked against that process's own limit, and released when the
 * queue is gone. A short-lived child takes the slot's uid, sets its limit
 * to a little less than two claims, and creates one queue of QUEUE_BYTES:
 * it succeeds only when no other queue is charged to the uid anywhere on
 * the machine. The queue is unlinked at once and its descriptor, shared
 * with us (CLONE_FILES), is the claim: it lasts while we hold it and the
 * kernel ends it with us. Two claims made at once may both fail (each sees
 * the other), never both succeed: each is charged before it is checked.
 * A job of another worker holding a queue as that uid makes it busy too,
 * which is right.
 *
 * The child shares our memory (CLONE_VM, CLONE_VFORK: we wait), so it
 * makes raw system calls only: libc's setresuid would change the uid of
 * every thread of ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"

/* The queue's bytes are its messages plus the kernel's bookkeeping (a
 * message header and a tree node: well under QUEUE_BYTES), so one claim
 * fits in 2 x QUEUE_BYTES - 1 and two never do. Within the default
 * msgsize_max (8192) and its floor (128 is the least it can be set to, and
 * the bookkeeping is less). */
#define QUEUE_BYTES 4096

typedef struct claim {
    uid_t uid;
    long msgsize;
    char name[48];
    int fd;
    int err;
} claim;

static int claim_main(void *arg)
{
    claim *c = arg;
    struct rlimit lim = { (rlim_t)(2 * c->msgsize - 1), (rlim_t)(2 * c->msgsize - 1) };
    struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = c->msgsize };
    if (syscall(SYS_prlimit64, 0, RLIMIT_MSGQUEUE, &lim, NULL) < 0 ||
        syscall(SYS_setresgid, c->uid, c->uid, c->uid) < 0 || syscall(SYS_setresuid, c->uid, c->uid, c->uid) < 0) {
        c->err = errno;
        return 0;
    }
    long fd = syscall(SYS_mq_open, c->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
    if (fd < 0) {
        c->err = errno;
        return 0;
    }
    syscall(SYS_mq_unlink, c->name);
    c->fd = (int)fd;
    return 0;
}

/* msgsize_max may be set below QUEUE_BYTES: then that, which the
 * bookkeeping still fits in. */
static long queue_bytes(void)
{
    long max = QUEUE_BYTES;
    FILE *f = fopen("/proc/sys/fs/mqueue/msgsize_max", "re");
    if (f) {
        if (fscanf(f, "%ld", &max) != 1 || max > QUEUE_BYTES)
            max = QUEUE_BYTES;
        fclose(f);
    }
    return max;
}

int uid_claim(uid_t uid, char *err, size_t errlen)
{
    static long msgsize;
    if (!msgsize)
        msgsize = queue_bytes();
    claim c = { .uid = uid, .msgsize = msgsize, .fd = -1 };
    char stack[16 * 1024] __attribute__((aligned(16)));
    for (int tries = 0; tries < 8; tries++) {
        unsigned r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r)
            r = (unsigned)getpid() ^ (unsigned)tries;
        snprintf(c.name, sizeof c.name, "gradeq-uid-%u-%08x", (unsigned)uid, r);
        c.err = 0;
        pid_t child = clone(claim_main, stack + sizeof stack, CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, &c);
        if (child < 0)
            return sbx_fail_errno(err, errlen, "claiming uid %u (clone)", (unsigned)uid);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
            ;
        if (c.fd >= 0)
            return c.fd;
        if (c.err == EMFILE)
            return UID_CLAIM_BUSY;
        if (c.err != EEXIST)
            break;
    }
    errno = c.err;
    return sbx_fail_errno(err, errlen, "claiming uid %u (a POSIX message queue)", (unsigned)uid);
}
