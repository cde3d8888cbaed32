/* box.c -- the caller's side of a slot: start and stop its zygote, talk to
 * it, kill a run.
 *
 * DESIGN. The zygote is cloned (no exec: the library needs no helper
 * binary) and talks over a SOCK_SEQPACKET pair: one message a request, fds
 * passed with SCM_RIGHTS. If it dies (it should not; a bug or an OOM kill),
 * the next run starts a new one: a box is never left broken.
 *
 * THREADS. The thread running the box owns the zygote, its socket and the
 * directory fds; the run's own threads (readers, watchdog) send kills on
 * the socket only while the run lives, and are waited for before any of it
 * is closed or replaced. They are the box's (box_threads.c), joined when it
 * closes, forgotten by sbx_box_forget. Other threads touch only the fields
 * under mu: a cancel names a run by its number and wakes the watchdog,
 * which kills.
 *
 * REBUILD. When a run leaves what cannot be cleared in place (a socket in
 * flight, a process that will not die, a tree the wipe cannot empty), the
 * whole box is thrown away: the zygote dies, and with it, as PID 1, its
 * namespaces and its tmpfs. A fresh one is built at once, so the next run
 * starts in a box indistinguishable from a new one.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/internal.h"

#define ZYGOTE_STACK (256 * 1024)
#define NS_FLAGS (CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)

static const char *const default_env[] = {
    "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/box", "LANG=C.UTF-8", NULL,
};

const char *const *sbx_env_default(void)
{
    return default_env;
}

static int recv_ready(sbx_box *b, char *err, size_t errlen)
{
    zy_msg m;
    int fds[2] = { -1, -1 };
    char ctl[CMSG_SPACE(sizeof fds)];
    struct iovec iov = { &m, sizeof m };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    ssize_t n = recvmsg(b->sock, &mh, MSG_CMSG_CLOEXEC);
    if (n != (ssize_t)sizeof m || m.op != ZY_READY)
        return sbx_fail(err, errlen, "sandbox zygote died while starting");
    if (m.err) {
        m.what[sizeof m.what - 1] = 0;
        b->start_errno = m.err;
        return sbx_fail(err, errlen, "sandbox set-up failed: %s: %s", m.what, strerror(m.err));
    }
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof fds))
        return sbx_fail(err, errlen, "sandbox zygote sent no directories");
    memcpy(fds, CMSG_DATA(c), sizeof fds);
    b->box_fd = fds[0];
    b->tmp_fd = fds[1];
    if (!b->ns) {
        close(b->tmp_fd); /* the same directory, sent twice */
        b->tmp_fd = -1;
    }
    return 0;
}

static void fill_config(sbx_box *b)
{
    const sbx_host *h = b->host;
    zy_config *z = &b->zcfg;
    z->host = h;
    z->uid = b->uid;
    z->ns = b->ns;
    z->box_dir = b->host_dir;
    for (int i = 0; i < 4; i++)
        z->procs_fd[i] = b->has_cg ? b->cg.procs_fd[i] : -1;
    snprintf(z->box_opts, sizeof z->box_opts, "size=%llu,nr_inodes=16384,mode=755,uid=%u,gid=%u",
             (unsigned long long)h->opt.box_bytes, (unsigned)b->uid, (unsigned)b->uid);
    snprintf(z->tmp_opts, sizeof z->tmp_opts, "size=%llu,nr_inodes=16384,mode=1777",
             (unsigned long long)h->opt.tmp_bytes);
    /* The slot's uid named in files: without an entry, a lookup (bash,
     * whoami, a JVM's user.name) goes on through nsswitch's other sources
     * (systemd's module, with the libraries it loads) on every start. */
    snprintf(z->passwd, sizeof z->passwd,
             "root:x:0:0:root:/root:/bin/sh\nbox:x:%u:%u:box:/box:/bin/sh\n"
             "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
             (unsigned)b->uid, (unsigned)b->uid);
    snprintf(z->group, sizeof z->group, "root:x:0:\nbox:x:%u:\nnogroup:x:65534:\n", (unsigned)b->uid);
}

/* Without namespaces the run's directory is on the host, in the state
 * directory (ours alone: host.c checks it). A rebuilt box gets a new one:
 * the old one may hold what the wipe could not remove. An existing one is
 * used only if it is a real directory of the slot's uid. */
static int make_host_dir(sbx_box *b, char *err, size_t errlen)
{
    const sbx_host *h = b->host;
    if (b->host_dir[0])
        return 0;
    snprintf(b->host_dir, sizeof b->host_dir, "%.200s/box-%u.%lu", h->state_dir, b->slot, b->rebuilds);
    struct stat st;
    if ((mkdir(b->host_dir, 0755) < 0 && errno != EEXIST) || lstat(b->host_dir, &st) < 0 ||
        (h->root && chown(b->host_dir, b->uid, b->uid) < 0)) {
        sbx_fail_errno(err, errlen, "preparing %s", b->host_dir);
        b->host_dir[0] = 0;
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || (st.st_uid != b->uid && st.st_uid != geteuid()) || (st.st_mode & 022)) {
        sbx_fail(err, errlen, "%s is not a private directory of the slot's uid", b->host_dir);
        b->host_dir[0] = 0;
        return -1;
    }
    return 0;
}

/* The two directories as a fresh box has them: /box the slot's (without
 * root, this process's), mode 0755; /tmp root's, mode 1777. */
int box_restore_dirs(sbx_box *b, char *err, size_t errlen)
{
    uid_t uid = b->host->root ? b->uid : geteuid();
    gid_t gid = b->host->root ? (gid_t)b->uid : getegid();
    if (b->box_fd >= 0 && wipe_inode(b->box_fd, uid, gid, 0755, err, errlen) < 0)
        return -1;
    return b->tmp_fd >= 0 ? wipe_inode(b->tmp_fd, 0, 0, 01777, err, errlen) : 0;
}

int box_touch_dirs(sbx_box *b, char *err, size_t errlen)
{
    if (b->box_fd >= 0 && wipe_touch(b->box_fd, err, errlen) < 0)
        return -1;
    return b->tmp_fd >= 0 ? wipe_touch(b->tmp_fd, err, errlen) : 0;
}

static int start_zygote(sbx_box *b, char *err, size_t errlen);

static int start_in(sbx_box *b, bool ns, char *err, size_t errlen)
{
    b->ns = ns;
    b->start_errno = 0;
    if (!ns && make_host_dir(b, err, errlen) < 0)
        return -1;
    return start_zygote(b, err, errlen);
}

/* Short of memory, pids or fds: another try may work, so it decides
 * nothing about the host. */
static bool passing(int e)
{
    return e == EAGAIN || e == ENOMEM || e == EMFILE || e == ENFILE || e == EINTR;
}

int box_start(sbx_box *b, char *err, size_t errlen)
{
    if (b->zygote > 0)
        return 0;
    sbx_host *h = b->host;
    /* The first zygote is the namespace probe: other boxes wait for its
     * verdict. A machine (or container) that refuses namespaces still runs
     * programs, and says so in every result. */
    int ns = host_namespaces(h);
    bool probe = false;
    if (ns == HOST_NS_UNTRIED) {
        pthread_mutex_lock(&h->probe_mu);
        ns = host_namespaces(h);
        probe = ns == HOST_NS_UNTRIED;
        if (!probe)
            pthread_mutex_unlock(&h->probe_mu);
    }
    int rc;
    if (ns == HOST_NS_NO && h->opt.require_isolation)
        rc = sbx_fail(err, errlen, "full isolation required, but namespaces do not hold here: %s",
                      sbx_host_describe(h));
    else
        rc = start_in(b, ns != HOST_NS_NO, err, errlen);
    if (probe) {
        if (rc == 0 || !passing(b->start_errno))
            host_namespaces_decided(h, rc == 0, err);
        if (rc < 0 && !passing(b->start_errno) && !h->opt.require_isolation)
            rc = start_in(b, false, err, errlen);
        pthread_mutex_unlock(&h->probe_mu);
    }
    if (rc == 0)
        b->isolation = host_isolation_for(h, b->ns);
    return rc;
}

/* Files open for writing (readers) against zygote clones (the writer). */
static pthread_rwlock_t fork_guard = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

void box_fork_guard(bool writing)
{
    writing ? pthread_rwlock_rdlock(&fork_guard) : pthread_rwlock_unlock(&fork_guard);
}

static int start_zygote(sbx_box *b, char *err, size_t errlen)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        b->start_errno = errno;
        return sbx_fail_errno(err, errlen, "socketpair");
    }
    /* One request carries argv and env whole. */
    int sz = 2 * (ZY_STRINGS_MAX + (int)sizeof(zy_run_req));
    if (setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof sz) < 0)
        setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    fill_config(b);
    b->zcfg.sock = sv[1];
    char *stack = malloc(ZYGOTE_STACK);
    if (!stack) {
        close(sv[0]);
        close(sv[1]);
        b->start_errno = ENOMEM;
        return sbx_fail(err, errlen, "out of memory");
    }
    int flags = (b->ns ? NS_FLAGS : 0) | SIGCHLD;
    pthread_rwlock_wrlock(&fork_guard);
    pid_t pid = clone(zy_main, stack + ZYGOTE_STACK, flags, &b->zcfg);
    int e = errno;
    pthread_rwlock_unlock(&fork_guard);
    free(stack); /* the child has its own copy */
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        errno = b->start_errno = e;
        return sbx_fail_errno(err, errlen, "starting the sandbox zygote (clone)");
    }
    b->zygote = pid;
    b->zygote_cpu = -1;
    b->cg.keep = pid;
    b->sock = sv[0];
    /* A directory reused without a mount namespace gets a fresh one's
     * attributes too (a new tmpfs has them). */
    if (recv_ready(b, err, errlen) < 0 || (!b->ns && box_restore_dirs(b, err, errlen) < 0)) {
        box_stop(b);
        return -1;
    }
    return 0;
}

void box_reap(sbx_box *b)
{
    if (b->zygote > 0) {
        kill(b->zygote, SIGKILL);
        waitpid(b->zygote, NULL, 0);
    }
    b->zygote = 0;
    b->cg.keep = 0;
}

void box_stop(sbx_box *b)
{
    box_reap(b);
    place_drop(b);
    if (b->sock >= 0)
        close(b->sock);
    b->sock = -1;
    if (b->box_fd >= 0)
        close(b->box_fd);
    if (b->tmp_fd >= 0)
        close(b->tmp_fd);
    b->box_fd = b->tmp_fd = -1;
}

static size_t strings_size(const char *const *v, uint32_t *count)
{
    size_t n = 0;
    *count = 0;
    for (; v && *v; v++, (*count)++)
        n += strlen(*v) + 1;
    return n;
}

/* Each run's request wakes the zygote, and the zygote's report of the
 * run's end wakes the caller: with the zygote on the caller's CPU, both
 * hand-offs stay on that CPU, where the scheduler would otherwise wake the
 * zygote on another, idle one and each hand-off would cost an interrupt
 * between CPUs (and an idle CPU's wake-up). The program gets its CPUs back
 * before its exec (zygote_run.c). Placement changes only speed: a zygote
 * that cannot be moved (a cpuset without the caller's CPU) is left to the
 * scheduler until it is rebuilt. */
static void zygote_follow(sbx_box *b)
{
    int cpu = sched_getcpu();
    /* pid 0 would be this thread itself */
    if (b->zygote_stays || b->zygote <= 0 || cpu < 0 || cpu == b->zygote_cpu || b->zygote_cpu == -2)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    b->zygote_cpu = sched_setaffinity(b->zygote, sizeof one, &one) == 0 ? cpu : -2;
}

int box_send_run(sbx_box *b, const sbx_spec *spec, const int fds[3], char *err, size_t errlen)
{
    const char *const *env = spec->env ? spec->env : default_env;
    uint32_t argc, envc;
    size_t an = strings_size(spec->argv, &argc), en = strings_size(env, &envc);
    if (an + en > ZY_STRINGS_MAX)
        return sbx_fail(err, errlen, "argv and env take %zu bytes, more than the %d allowed", an + en,
                        ZY_STRINGS_MAX);
    const sbx_limits *l = &spec->limits;
    char *buf = malloc(sizeof(zy_run_req) + an + en);
    if (!buf)
        return sbx_fail(err, errlen, "out of memory");
    zy_run_req r = {
        .op = ZY_RUN, .argc = argc, .envc = envc, .strings_len = (uint32_t)(an + en),
        /* RLIMIT_CPU is per process and whole seconds: a backstop one second
         * past the watchdog's limit, never the thing that decides. */
        .cpu_s = (l->cpu_ms + 999) / 1000 + 1,
        .file_bytes = l->file_bytes, .open_files = l->open_files, .processes = l->processes,
        .stack_bytes = l->memory_bytes,
        .as_bytes = b->has_cg ? 0 : l->memory_bytes,
        .cpu = spec->pin_cpu ? (int32_t)b->host->cpus[spec->cpu % b->host->ncpu] : -1,
    };
    memcpy(buf, &r, sizeof r);
    char *p = buf + sizeof r;
    for (const char *const *v = spec->argv; *v; v++)
        p = stpcpy(p, *v) + 1;
    for (const char *const *v = env; *v; v++)
        p = stpcpy(p, *v) + 1;
    /* The run's cgroup goes with the request, a fourth fd (v2: its
     * directory; v1: the tasks file of the runs' memory cgroup). */
    int all[4] = { fds[0], fds[1], fds[2], b->has_cg ? cg_slot_run_fd(&b->cg) : -1 };
    size_t nfd = all[3] >= 0 ? 4 : 3;
    char ctl[CMSG_SPACE(4 * sizeof(int))];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = { buf, (size_t)(p - buf) };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = CMSG_SPACE(nfd * sizeof(int)) };
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(nfd * sizeof(int));
    memcpy(CMSG_DATA(c), all, nfd * sizeof(int));
    zygote_follow(b);
    ssize_t n = sendmsg(b->sock, &mh, MSG_NOSIGNAL);
    free(buf);
    if (n < 0)
        return sbx_fail_errno(err, errlen, "sending the run to the sandbox zygote");
    return 0;
}

int box_recv(sbx_box *b, zy_msg *m, char *err, size_t errlen)
{
    for (;;) {
        ssize_t n = recv(b->sock, m, sizeof *m, 0);
        if (n == (ssize_t)sizeof *m)
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return sbx_fail_errno(err, errlen, "reading from the sandbox zygote");
        return sbx_fail(err, errlen, "the sandbox zygote died");
    }
}

void box_rebuild(sbx_box *b)
{
    char err[SBX_ERR_LEN];
    box_stop(b);
    b->rebuilds++;
    if (!b->ns && b->host_dir[0]) {
        rmdir(b->host_dir); /* kept when the wipe left something in it */
        b->host_dir[0] = 0;
    }
    /* A failure here is the next run's to report. */
    box_start(b, err, sizeof err);
}

void box_run_end(sbx_box *b)
{
    pthread_mutex_lock(&b->mu);
    b->run_id++;
    pthread_mutex_unlock(&b->mu);
}

bool box_cancel_asked(const sbx_box *b)
{
    return b->cancel_all || b->cancel_run == b->run_id;
}

bool box_run_cancelled(sbx_box *b)
{
    pthread_mutex_lock(&b->mu);
    bool asked = box_cancel_asked(b);
    pthread_mutex_unlock(&b->mu);
    return asked;
}

void box_kill(sbx_box *b)
{
    /* In namespaces the zygote kills: no fd to open, no pid to go stale. */
    if (b->has_cg && !b->ns) {
        cg_slot_kill(&b->cg);
        return;
    }
    uint32_t op = ZY_KILL;
    send(b->sock, &op, sizeof op, MSG_NOSIGNAL);
}

int sbx_box_open(sbx_host *h, sbx_box **out, char *err, size_t errlen)
{
    sbx_box *b = calloc(1, sizeof *b);
    if (!b)
        return sbx_fail(err, errlen, "out of memory");
    b->host = h;
    atomic_fetch_add(&h->boxes_opened, 1);
    b->sock = b->box_fd = b->tmp_fd = b->lock_fd = b->claim_fd = -1;
    b->run_id = 1;
    pthread_mutex_init(&b->mu, NULL);
    b->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    b->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    b->wd_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (b->null_fd < 0 || b->stop_fd < 0 || b->wd_timer < 0) {
        sbx_fail_errno(err, errlen, "opening /dev/null, an eventfd and a timerfd");
        goto fail;
    }
    b->lock_fd = host_lock_slot(h, &b->slot, &b->claim_fd, err, errlen);
    if (b->lock_fd < 0)
        goto fail;
    b->uid = h->root ? (uid_t)(h->opt.uid_base + b->slot) : getuid();
    if (h->cg.version != CG_NONE) {
        if (cg_slot_open(&h->cg, b->slot, &b->cg, err, errlen) < 0)
            goto fail;
        b->has_cg = true;
    }
    if (box_start(b, err, errlen) < 0)
        goto fail;
    *out = b;
    return 0;
fail:
    sbx_box_close(b);
    return -1;
}

void sbx_box_close(sbx_box *b)
{
    if (!b)
        return;
    wd_close(b);
    for (int i = 0; i < BT_COUNT; i++)
        bt_stop(&b->threads[i]);
    box_stop(b);
    if (b->has_cg)
        cg_slot_close(&b->cg);
    if (b->host_dir[0])
        rmdir(b->host_dir);
    if (b->null_fd >= 0)
        close(b->null_fd);
    if (b->stop_fd >= 0)
        close(b->stop_fd);
    if (b->wd_timer >= 0)
        close(b->wd_timer);
    if (b->lock_fd >= 0)
        close(b->lock_fd);
    if (b->claim_fd >= 0)
        close(b->claim_fd);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

void sbx_box_forget(sbx_box *b)
{
    if (!b)
        return;
    /* close() only: flock(LOCK_UN), a kill or a wait would reach the
     * parent's slot and zygote. */
    const int fds[] = { b->sock, b->box_fd, b->tmp_fd, b->null_fd, b->stop_fd, b->wd_timer, b->lock_fd, b->claim_fd };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (b->has_cg)
        cg_slot_forget(&b->cg);
    for (int i = 0; i < BT_COUNT; i++)
        cap_end(&b->threads[i]);
    place_drop(b);
    free(b);
}

unsigned sbx_box_slot(const sbx_box *b)
{
    return b->slot;
}

unsigned long sbx_box_rebuilds(const sbx_box *b)
{
    return b->rebuilds;
}

uint64_t sbx_box_run_id(sbx_box *b)
{
    pthread_mutex_lock(&b->mu);
    uint64_t id = b->run_id;
    pthread_mutex_unlock(&b->mu);
    return id;
}

/* Only marks the run and wakes its watchdog, which kills: this thread
 * touches no fd of the box, whose owner may be closing and reusing them. */
void sbx_box_cancel(sbx_box *b, uint64_t run)
{
    pthread_mutex_lock(&b->mu);
    if (run >= b->run_id) {
        b->cancel_run = run;
        wd_wake(b);
    }
    pthread_mutex_unlock(&b->mu);
}

void sbx_box_cancel_all(sbx_box *b)
{
    pthread_mutex_lock(&b->mu);
    b->cancel_all = true;
    wd_wake(b);
    pthread_mutex_unlock(&b->mu);
}
