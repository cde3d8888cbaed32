/* internal.h -- what the sandbox's files share; not part of the public API.
 *
 * Files and their one job each:
 *   host.c      probe the machine, build the seccomp program, slot locks
 *   cgroup.c    cg_*: one reusable cgroup per slot, v1 or v2
 *   cgroup_probe.c  which hierarchy, found at start-up
 *   cgroup_file.c   the cgroup files' small text formats
 *   systemd_scope.c ask systemd for a delegated scope holding us
 *   dbus_msg.c  the D-Bus messages of that request
 *   self_id.c   this process as the rest of the machine names it
 *   uid_claim.c a slot's uid, claimed for the whole machine
 *   policy.c    the seccomp policy table, compiled once to BPF
 *   zygote.c    the privileged side: namespaces, mounts, set once per slot
 *   zygote_run.c    the zygote's request loop and each run's spawn
 *   clone_into.c    clone3 into the run's cgroup, the run's second filter
 *   interact.c  interactive runs: the callback and the stdin writer
 *   collect.c   hand back the files a run left in /box
 *   place.c     place a run's files in /box, keep them for the next run
 *   waiting.c   who was blocked reading stdin at a wall kill
 *   box.c       the caller's side of a slot: start/stop the zygote, messages
 *   box_threads.c   a box's reader, watchdog and writer threads, made once
 *   capture.c   reader threads: one per output stream, capped
 *   watchdog.c  the watchdog thread: wall and CPU time
 *   wipe.c      empty /box and /tmp between runs and put the two directories
 *               back (or fail: the box is rebuilt)
 *   file_limit.c    whether a file of the run reached file_bytes
 *   run.c       sbx_run: one run from start to verdict
 *   result.c    names, defaults, freeing
 */
#ifndef GRADEQ_SANDBOX_INTERNAL_H
#define GRADEQ_SANDBOX_INTERNAL_H

#include <linux/filter.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "sandbox/sandbox.h"

/* Formats into err (never overflows, never allocates). Returns -1. */
int sbx_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Same, appending ": strerror(errno)". */
int sbx_fail_errno(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- cgroup.c -------------------------------------------------------- */

enum { CG_NONE = 0, CG_V1 = 1, CG_V2 = 2 };
#define CG_PATH_MAX 512
#define CG_FILES 16
#define CG_WHY_LEN 512 /* a reason, with how to start the worker instead */

typedef struct cg_host {
    int version;
    char mem[CG_PATH_MAX];  /* v1: memory hierarchy mount + our subtree; v2: our base */
    char pids[CG_PATH_MAX];
    char cpu[CG_PATH_MAX];  /* v1: cpuacct */
    bool memsw;             /* v1: swap accounting present */
    bool cpu_share;         /* each slot has a CPU weight of its own (see cgroup.c) */
    char cpuw[CG_PATH_MAX]; /* v1: the cpu controller's hierarchy + our subtree,
                             * "" when it is cpuacct's (co-mounted) */
    char cpu_why[SBX_ERR_LEN]; /* why no CPU weight, when none */
    char why[CG_WHY_LEN];   /* why cgroups are missing, when they are */
    char note[SBX_ERR_LEN]; /* v2: what the probe did to get a cgroup, or "" */
    char others[SBX_ERR_LEN]; /* v2: how many processes other than us the probe moved, or "" */
} cg_host;

typedef struct cg_slot {
    const cg_host *host;
    unsigned slot;
    char dir[4][CG_PATH_MAX]; /* v1: memory, pids, cpuacct, cpu; v2: slot, run, zygote */
    int procs_fd[4];          /* the zygote's cgroup.procs (v1 tasks), written "0" by it */
    int fd[CG_FILES];         /* the files the hot path reads and writes */
    int cpu_fd;               /* cpuacct.usage or cpu.stat */
    uint64_t oom_base;        /* v1: oom_kill before the run */
    uint64_t cur_mem, cur_pids; /* v1: last limits written, to skip rewriting */
    uint64_t mem_base;        /* v1: the charge left from before the run */
    char memrun[CG_PATH_MAX]; /* v1: the memory cgroup the runs join, a or b
                               * under dir[0] (see cgroup.c) */
    int mem_tasks;            /* v1: its tasks file, passed with each run */
    pid_t keep;               /* the zygote: never killed (v1: it lives in the slot) */
} cg_slot;

/* Finds usable hierarchies (memory, pids, cpu accounting) and prepares our
 * subtree `name`. Returns 0 even when none is usable: host->version is then
 * CG_NONE and host->why says why. */
int cg_probe(cg_host *host, const char *name);
/* Makes (or takes over, killing what a dead owner left) the slot's cgroup. */
int cg_slot_open(const cg_host *host, unsigned slot, cg_slot *s, char *err, size_t errlen);
void cg_slot_close(cg_slot *s);
/* Closes this process's copies of the slot's files, nothing else (a
 * forked child's copy of its parent's slot). */
void cg_slot_forget(cg_slot *s);
/* Before a run: v1 writes changed limits and resets the counters; v2 makes
 * the run's own cgroup with its limits. */
int cg_slot_prepare(cg_slot *s, const sbx_limits *l, char *err, size_t errlen);
/* v2: the run's cgroup (a directory fd), where its first process is born
 * or which it joins before it execs; -1 on v1 (runs are born in the slot). */
int cg_slot_run_fd(const cg_slot *s);
/* CPU used by the run so far, ns. */
int cg_slot_cpu_ns(cg_slot *s, uint64_t *ns);
/* SIGKILL every process in the slot but the zygote, once (no allocation). */
void cg_slot_kill(cg_slot *s);
/* The pids of the slot's processes but the zygote (at most max). */
size_t cg_slot_pids(cg_slot *s, pid_t *out, size_t max);
/* Kills until the slot holds no process but the zygote. -1 if it would not
 * empty. */
int cg_slot_empty(cg_slot *s, char *err, size_t errlen);
/* What the memory cgroup recorded of one run. */
typedef struct cg_mem {
    uint64_t peak;  /* bytes: at least the floor given (the run's largest
                     * resident set), at most the limit */
    bool oom_kill;  /* the kernel OOM-killed a process of the run */
    bool failed;    /* a charge at the limit failed even after reclaim:
                     * v2 memory.events "oom"; v1 counts no such failure
                     * apart from the OOM kill it leads to */
    bool reclaimed; /* a charge met the limit and the kernel reclaimed
                     * (v2 "max"; v1 memory.failcnt or memsw.failcnt, or
                     * the peak at the limit): the run's memory, page
                     * cache included, reached its limit, whether or not
                     * reclaim then made room */
} cg_mem;
/* After a run: what the memory cgroup recorded (see cg_mem). */
int cg_slot_stats(cg_slot *s, uint64_t floor, cg_mem *m, char *err, size_t errlen);

/* ---- systemd_scope.c, dbus_msg.c ------------------------------------ */

/* Asks systemd for the transient scope `unit` with Delegate=yes holding
 * this process, named by the kernel's credentials of our connection (never
 * by a pid of ours). 0 once systemd took the job (the move follows), -1
 * with err. */
int sdscope_start(const char *unit, char *err, size_t errlen);

enum { DBM_METHOD_CALL = 1, DBM_METHOD_RETURN = 2, DBM_ERROR = 3 };
#define DBM_FIXED 16                     /* a message's fixed header */
#define DBM_REPLY_MAX 4096               /* a reply we read; longer ones are not ours */
#define DBM_MESSAGE_MAX (128u << 20)     /* the specification's bound on any message */

typedef struct dbm_reply {
    int type;              /* DBM_METHOD_RETURN, DBM_ERROR, or another message */
    uint32_t reply_serial; /* the call it answers, 0 if none */
    char error[128];       /* DBM_ERROR: the error's name */
    char message[256];     /* DBM_ERROR: its first argument, when a string */
} dbm_reply;

/* The call StartTransientUnit(unit, "fail", PIDs [0] (the sender),
 * Delegate=yes, CollectMode=inactive-or-failed, Description), into buf:
 * its length, or -1 when it does not fit. */
long dbm_start_scope(uint8_t *buf, size_t size, uint32_t serial, const char *unit, const char *description);
/* From a message's first DBM_FIXED bytes: its whole length, or -1 when
 * they are no D-Bus header (or claim more than DBM_MESSAGE_MAX). */
long dbm_message_size(const uint8_t *hdr);
/* Reads a whole message's type, reply serial and error; -1 when
 * malformed. */
int dbm_parse(const uint8_t *msg, size_t len, dbm_reply *out);

/* ---- self_id.c ------------------------------------------------------ */

/* Whether /proc is the procfs of our own PID namespace, so that /proc/PID
 * is the process our kill(PID) would reach (`unshare --pid` without
 * --mount-proc leaves the outer one). */
bool self_procfs_ours(void);

/* ---- policy.c -------------------------------------------------------- */

/* Compiles the seccomp policy table to a BPF program (malloc'd filter). */
int pol_build(struct sock_fprog *prog, char *err, size_t errlen);

/* ---- host.c ---------------------------------------------------------- */

enum { HOST_NS_UNTRIED, HOST_NS_YES, HOST_NS_NO };

struct sbx_host {
    sbx_host_options opt;
    bool root;
    pthread_mutex_t mu;     /* guards ns, isolation, describe */
    pthread_mutex_t probe_mu; /* held while the first zygote tries namespaces */
    int ns;                 /* HOST_NS_*: decided once, by the first zygote */
    bool seccomp;
    struct sock_fprog bpf;
    cg_host cg;
    unsigned isolation;    /* SBX_ISO_* every run will have (namespaces
                            * once they held) */
    bool oom_pinned;       /* root with CAP_SYS_RESOURCE: the runs' +1000
                            * oom_score_adj is their floor too */
    bool procfs_ours;       /* /proc/PID is our PID namespace's PID */
    unsigned ncpu;          /* CPUs this process may run on (its affinity) */
    unsigned cpus[1024];    /* their numbers: pinning picks among these */
    char state_dir[256];
    char **ro_paths;        /* sbx_host_ro_paths' copy, NULL-terminated (NULL: none) */
    atomic_uint boxes_opened; /* read-only paths are fixed once one is */
    char describe[SBX_HOST_ERR_LEN - 64];
    atomic_uint next_slot; /* where the next slot search starts */
};

/* HOST_NS_*, read under the host's lock. */
int host_namespaces(sbx_host *h);
/* The first zygote's verdict, once: whether namespaces hold on this host
 * (why not: the set-up's error). Without them runs go on (unless isolation
 * is required) and every result says so. */
void host_namespaces_decided(sbx_host *h, bool yes, const char *why);
/* What a run has in a box in namespaces or not. */
unsigned host_isolation_for(sbx_host *h, bool ns);
/* Takes the machine-wide lock of a free slot and (as root) the claim on
 * its uid; returns the lock's fd and puts the claim's in *claim_fd (-1
 * when not root), both held for the box's life; or -1. */
int host_lock_slot(sbx_host *h, unsigned *slot, int *claim_fd, char *err, size_t errlen);

/* ---- uid_claim.c ----------------------------------------------------- */

#define UID_CLAIM_BUSY (-2)
/* Claims uid for this process on the whole machine: an fd that holds the
 * claim until closed, UID_CLAIM_BUSY when another process holds it, or -1
 * with err. */
int uid_claim(uid_t uid, char *err, size_t errlen);

/* ---- zygote.c / box.c: the messages between caller and zygote -------- */

/* A RUN is answered by EXEC_FAILED, or by STARTED (without namespaces
 * only: its pid) and then EXITED. */
enum { ZY_READY = 1, ZY_RUN, ZY_KILL, ZY_STARTED, ZY_EXEC_FAILED, ZY_EXITED };

#define ZY_STRINGS_MAX SBX_EXEC_BYTES_MAX /* argv + env bytes in one request */

typedef struct zy_run_req {
    uint32_t op;
    uint32_t argc, envc, strings_len;
    uint64_t cpu_s, file_bytes, open_files, processes, stack_bytes;
    uint64_t as_bytes;  /* RLIMIT_AS, only where no memory cgroup: else 0 */
    int32_t cpu;        /* >= 0: the only CPU the run may use */
} zy_run_req; /* followed by argv then env, each string NUL-terminated */

/* What a run left that the zygote could not clear (EXITED): the caller
 * rebuilds the box. */
enum { ZY_DIRTY_PROCESSES = 1, ZY_DIRTY_IPC = 2, ZY_DIRTY_SOCKETS = 4 };

typedef struct zy_msg {
    uint32_t op;
    uint32_t dirty;     /* EXITED: ZY_DIRTY_* */
    int32_t err;        /* EXEC_FAILED: errno */
    int32_t wstatus;    /* EXITED */
    int32_t pid;        /* STARTED: in the zygote's PID namespace */
    uint64_t utime_us, stime_us, maxrss_kb;
    char what[96];      /* EXEC_FAILED: the step that failed */
} zy_msg;

/* What the zygote needs; filled by box.c, read after clone. */
typedef struct zy_config {
    const sbx_host *host;
    int sock;            /* SOCK_SEQPACKET to the caller */
    int procs_fd[4];     /* cgroup.procs of the slot, -1 when absent */
    uid_t uid;           /* the slot's uid and gid (root only) */
    bool ns;             /* in its own namespaces, with the private root */
    const char *box_dir; /* without a mount namespace: the run's directory */
    char box_opts[128];  /* tmpfs options of /box and /tmp */
    char tmp_opts[128];
    char passwd[160];    /* the box's /etc/passwd and /etc/group (namespaces) */
    char group[80];
} zy_config;

/* The zygote process's body (entered through clone). Never returns. */
int zy_main(void *cfg);

/* ---- box_threads.c --------------------------------------------------- */

/* One thread of a box, made at its first job, joined at bt_stop. */
typedef struct box_thread {
    pid_t owner;            /* the process that made it; 0: not made */
    pthread_t thread;
    const char *name;       /* its role, shown as the thread's name */
    pthread_mutex_t mu;     /* guards job, arg, quit */
    pthread_cond_t cv;
    void *(*job)(void *);   /* the job in progress, NULL when idle */
    void *arg;
    bool quit;
    /* A reader's (capture.c). Under mu: busy, and look_at, the time
     * before which the reader leaves its job alone (0: at once). The box's
     * thread's alone: keep[], the pipe the next run's stream is to use
     * (made during a run, taken by the next: cap_pipe). */
    bool reader;            /* bell and timer made (each -1 if it could not be) */
    bool busy;              /* running its job (set by the thread) */
    uint64_t look_at;
    int bell;               /* eventfd: a job to start at once, or the end */
    int timer;              /* timerfd: armed for look_at */
    bool kept;              /* keep[] is a pipe not taken yet */
    int keep[2];
} box_thread;

/* The roles of a box's threads. */
enum { BT_STDOUT, BT_STDERR, BT_WATCHDOG, BT_WRITER, BT_COUNT };

/* Runs job(arg) on t, making the thread first (named name, a literal of
 * at most 15 bytes, with that stack size) if it is not made yet. -1 with
 * errno when it cannot be made. */
int bt_give(box_thread *t, const char *name, size_t stack, void *(*job)(void *), void *arg);
/* Waits until t's job has returned. */
void bt_wait(box_thread *t);
/* Ends and joins t (idle); in a forked child only forgets it. */
void bt_stop(box_thread *t);

/* ---- place.c --------------------------------------------------------- */

typedef struct place_set place_set;

/* Puts the spec's files in /box: those the last run placed with the same
 * name, mode and bytes are there already, the rest of what it placed is
 * removed, and the others are created. -1 with err (what was kept is then
 * forgotten, and the wipe removes it). */
int place_files(sbx_box *b, const sbx_spec *spec, char *err, size_t errlen);
/* Empties /box but for the placed files still exactly as placed (and
 * their directories, put back): see place.c. -1 when the wipe fails. */
int place_wipe(sbx_box *b, char *err, size_t errlen);
/* Forgets the kept files (/box itself is going). Memory only. */
void place_drop(sbx_box *b);

/* ---- box.c ----------------------------------------------------------- */

struct sbx_box {
    sbx_host *host;
    unsigned slot;
    int lock_fd;
    int claim_fd;        /* the claim on uid (root), -1 without */
    uid_t uid;
    bool ns;             /* this box's zygote lives in namespaces */
    int start_errno;     /* why its last zygote did not start (0: unknown) */
    unsigned isolation;  /* what holds for runs in this box */
    pid_t zygote;
    int zygote_cpu;      /* the one CPU it may run on: -1 not moved yet, -2 not movable */
    bool zygote_stays;   /* never moved (bench_sandbox's comparison) */
    int sock;
    int box_fd, tmp_fd;  /* the run's /box and /tmp, as seen by the zygote */
    int null_fd;
    int stop_fd;         /* eventfd: every process of the run is gone */
    uint64_t quickest_ns; /* the shortest run not killed, request to end (0: none yet) */
    unsigned long rebuilds;
    cg_slot cg;
    bool has_cg;
    char host_dir[256];  /* without a mount namespace: the run's directory */
    zy_config zcfg;
    /* Shared with other threads (sbx_box_run_id, sbx_box_cancel, the
     * watchdog), under mu but wd_running; wd_timer wakes the watchdog
     * (armed under mu, read by the watchdog alone). */
    pthread_mutex_t mu;
    int wd_timer;
    uint64_t run_id;     /* the run in progress, or the next to start */
    uint64_t cancel_run; /* the run a cancel was asked for (0: none) */
    bool cancel_all;     /* every run from now on */
    struct run_state *watched; /* the run the watchdog watches, NULL between runs */
    uint64_t wd_seq;     /* counts the runs given to the watchdog */
    bool wd_quit;        /* the box is closing: the watchdog's job returns */
    bool wd_running;     /* its job is given (the box's thread only) */
    /* The run's threads, kept from run to run; only the box's thread gives
     * them jobs and stops them. */
    box_thread threads[BT_COUNT];
    place_set *placed;   /* files kept in /box between runs (place.c) */
};

/* (Re)starts the zygote when it is not running. */
int box_start(sbx_box *b, char *err, size_t errlen);
void box_stop(sbx_box *b);
/* Kills the zygote and so, as PID 1, every process of its namespaces; its
 * socket stays open (a reader may still send a kill on it) until box_stop. */
void box_reap(sbx_box *b);
/* Throws the box away and builds a fresh one (see box.c). */
void box_rebuild(sbx_box *b);
int box_send_run(sbx_box *b, const sbx_spec *spec, const int fds[3], char *err, size_t errlen);
/* Waits for the next zygote message (blocking). */
int box_recv(sbx_box *b, zy_msg *m, char *err, size_t errlen);
/* Kills the run's processes once; only from the run's own threads, which
 * the box's thread joins before it closes or replaces the socket. */
void box_kill(sbx_box *b);
/* Process-wide: true while a file of a box is open for writing (shared,
 * any number at once), false when done. A zygote is cloned only while no
 * such file is open, so that none inherits one (see place_file). */
void box_fork_guard(bool writing);
/* A run keeps the box's number (run_id) until it ends; then the next run
 * has the next number. */
void box_run_end(sbx_box *b);
/* Whether a cancel names the run in progress (or, between runs, the next);
 * b->mu held. */
bool box_cancel_asked(const sbx_box *b);
/* The same, taking b->mu. */
bool box_run_cancelled(sbx_box *b);
/* After the wipe: /box and /tmp themselves as in a fresh box (wipe_inode). */
int box_restore_dirs(sbx_box *b, char *err, size_t errlen);
/* Before a run: their times are its own (wipe_touch). */
int box_touch_dirs(sbx_box *b, char *err, size_t errlen);

/* ---- capture.c ------------------------------------------------------- */

typedef struct run_state run_state;

typedef struct cap_stream {
    run_state *run;
    int stream;        /* 1 stdout, 2 stderr */
    int fd;            /* read end, O_NONBLOCK */
    int stop_fd;       /* readable once every process of the run is gone; -1: wait for EOF */
    uint64_t cap;
    char *buf;
    size_t len, size;
    bool truncated;
    int err;           /* errno of a failed read or allocation */
} cap_stream;

/* A pipe for the run's stream (1 stdout, 2 stderr): the one made for it
 * during the last run, else a new one; its write end owned by the slot's
 * uid (as root), its read end non-blocking. 0, or -1 with errno. */
int cap_pipe(sbx_box *b, int stream, int p[2]);
/* Makes each captured stream's pipe for the next run (the box's thread,
 * while a run runs). */
void cap_refill(sbx_box *b);
/* The reader's side (box_threads.c calls them, t->mu held): whether its
 * job is not to start yet; sleep until its bell or timer (false when it
 * has neither: wait on cv instead). */
bool cap_later(box_thread *t);
bool cap_sleep(box_thread *t);
/* Wakes the reader (t->mu held or not). */
void cap_ring(box_thread *t);
/* Closes a reader's fds and the kept pipe: at the thread's end, for a
 * thread never made, and in a forked child (nothing else touched). */
void cap_end(box_thread *t);
/* Maps the stream's buffer (cap+1 bytes of address space) and gives the
 * stream to its reader (the box's thread for the stream), which starts
 * on it at its first look; cap_join drains it itself if the reader has
 * not started. */
int cap_start(cap_stream *c);
void cap_join(cap_stream *c);
void cap_unmap(char *buf, size_t size);

/* ---- watchdog.c ------------------------------------------------------ */

typedef struct watchdog {
    run_state *run;
} watchdog;

/* Makes w's run the box's watched one (starting the box's watchdog at its
 * first run). -1 with errno when the thread cannot be made. */
int wd_start(watchdog *w);
/* The run is over: the watchdog leaves it alone from now on. */
void wd_stop(watchdog *w);
/* Under b->mu: the watchdog looks at once (a cancel asked). */
void wd_wake(sbx_box *b);
/* Before the box's threads are stopped: the watchdog's job returns. */
void wd_close(sbx_box *b);

/* ---- interact.c ------------------------------------------------------ */

struct sbx_reply {
    run_state *run;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;                /* the program's stdin, write end */
    char *buf;             /* pending bytes: [off, len) */
    size_t off, len, size;
    bool close, done;
};

/* Starts the stdin writer of an interactive run on fd (taken over, closed
 * by ia_stop or on failure). */
int ia_start(run_state *r, int fd);
/* A chunk of output for the callback (from a reader thread). */
void ia_chunk(run_state *r, int stream, const char *buf, size_t len);
void ia_stop(run_state *r);

/* ---- run.c: one run's shared state ----------------------------------- */

struct run_state {
    sbx_box *box;
    const sbx_limits *limits;
    uint64_t start_ns, wall_deadline_ns;
    pid_t pid;             /* the main process, when it is ours to see (no PID ns) */
    atomic_int reason;     /* first kill reason (an sbx_status), 0 = none */
    atomic_ullong kill_ns; /* when the sandbox first killed it, 0 = never */
    const sbx_spec *spec;
    sbx_reply reply;       /* interactive runs */
    pthread_mutex_t cb_mu; /* one callback at a time */
    atomic_ullong callback_ns; /* spent in the callback: added to the wall limit */
    atomic_bool ended;     /* the callback ended the run */
    atomic_bool waiting;   /* at the wall kill, someone was reading stdin */
    bool stdin_pipe;       /* the run's stdin is a pipe: this one (waiting.c) */
    dev_t stdin_dev;
    ino_t stdin_ino;
};

uint64_t run_now_ns(void);
/* A new pipe (O_CLOEXEC) whose write end is uid's when chown_w (as root:
 * the program may reopen its own stdout by name, /dev/stdout or
 * /proc/self/fd/1, which checks the pipe's owner and mode, root's and
 * 0600 as made), its read end non-blocking when read_nonblock. 0, or -1
 * with errno (nothing left open). */
int run_slot_pipe(int p[2], bool chown_w, uid_t uid, bool read_nonblock);
/* Writes all of data to fd (retrying short writes): 0, or -1 with errno. */
int run_write_all(int fd, const void *data, size_t len);
/* Records `why` (first one wins) and kills the run. */
void run_kill(run_state *r, sbx_status why);

/* ---- waiting.c ------------------------------------------------------- */

/* Whether a process of the run is blocked reading its stdin. */
bool run_reading_stdin(run_state *r);

/* ---- collect.c ------------------------------------------------------- */

/* Fills c from the regular files under dirfd (see sbx_collect). Returns 0
 * (c->refused set when a bound was crossed), or -1 with err filled on an
 * I/O failure. */
int collect_dir(int dirfd, sbx_collect *c, char *err, size_t errlen);

/* ---- file_limit.c ---------------------------------------------------- */

/* Whether a regular file of uid under dirfd (-1: none) is at least bytes
 * long. */
bool fl_file_at_limit(int dirfd, uint64_t bytes, uid_t uid);

/* ---- wipe.c ---------------------------------------------------------- */

/* Removes everything inside dirfd without following links. -1 when it
 * cannot (a tree too deep, an entry that will not go). */
int wipe_dir(int dirfd, char *err, size_t errlen);
/* Removes the entry name of dirfd (a d_type: DT_UNKNOWN looks), the whole
 * tree if a directory, counting depth levels already below the top. */
int wipe_entry(int dirfd, const char *name, unsigned char type, int depth, char *err, size_t errlen);
/* Puts the directory dirfd itself back: owner uid:gid, mode, no inode flag,
 * user.* attribute or POSIX ACL a program can set. -1 when one stays. */
int wipe_inode(int dirfd, uid_t uid, gid_t gid, mode_t mode, char *err, size_t errlen);
/* Sets its atime, mtime (and so ctime) to now. */
int wipe_touch(int dirfd, char *err, size_t errlen);

/* ---- result.c -------------------------------------------------------- */

/* Copies name into out (always terminated, cut to fit), every byte that is
 * not printable ASCII shown as '?': a name fit for a log line or JSON. */
void sbx_quote(char *out, size_t outlen, const char *name);

#endif
