/* sandbox.h -- run one untrusted program under hard limits, capture its output.
 *
 * The library knows nothing of Redis or jobs. Three objects:
 *
 *   sbx_host  probed once per process: what this machine allows (namespaces,
 *             cgroup v1 or v2, seccomp, root), the prebuilt seccomp program and
 *             the cgroup root. Thread-safe; outlives every box opened on it.
 *   sbx_box   one slot: a long-lived zygote process that lives inside fresh
 *             PID, mount, network, IPC and UTS namespaces with the private root
 *             already built and the seccomp filter already loaded, plus a
 *             cgroup and a uid of its own. Slots are unique machine-wide (a
 *             lock file per slot, and a claim on its uid that containers,
 *             which share no lock file, see too), so two worker processes
 *             never share a uid.
 *             A box is used by one thread at a time; open one box per thread.
 *   sbx_run   one run in a box: files placed in /box, stdin, limits, argv.
 *
 * THE GUARANTEE. When sbx_run returns, the box is as a fresh one in all a
 * run can change but the numbering counters below: no process of the run,
 * no file in /box or /tmp, the two directories themselves as a fresh box
 * has them (owner, mode, no POSIX ACL, no user.* attribute, no inode flag;
 * their times are set to now as each run starts, so a run reads its own
 * start there), no System V IPC object or POSIX queue, no socket and no
 * TCP port in TIME_WAIT in its network namespace, the cgroup's limits and
 * counters reset, and the PID counter too (the next run's first process is
 * PID 2, as in a new box). What the kernel cannot set back goes on over the
 * box's life: the inode numbers of /box and /tmp, the network namespace's
 * traffic counters, System V IPC ids, and everything machine-wide; so a run
 * can read numbers an earlier run of the box chose (docs/operations.md
 * lists them), never its files, output or memory. Whatever the
 * program did: what can be cleared in place is (processes killed and
 * reaped, trees wiped, IPC removed); anything else (a socket in flight in
 * a message no process holds, a tree too deep to walk, a process that
 * will not die) costs a box rebuild before sbx_run returns, and is never
 * reported as SANDBOX_ERROR nor left for the next run. Each run's files
 * are created exclusively in an empty /box, or (as root) found there as
 * the last run's spec placed them, when it placed the same name, mode and
 * bytes: a grading's tests compare their shared files instead of writing
 * them again. A run cannot change such a file, and whatever it did to its
 * name, the next run sees exactly its own spec's files (docs/operations.md
 * says what a kept file still tells). (Without namespaces, only the
 * processes, the files and the box directory of this list hold: PIDs and
 * /tmp are the host's; the cgroup's memory charge is cgroup.c's to
 * account.)
 *
 * RESOURCES. Every byte a run can write in its box is charged to its own
 * memory limit: the files placed for it are not writable by it (see
 * sbx_file), and what it creates is its own. Concurrent runs each get an
 * equal share of the CPU, whatever they fork (SBX_ISO_CG_CPU_SHARE). A
 * run cannot flush the host's disks, drop its page cache, or signal
 * another run through locks or watches on the system files every box
 * shares (the seccomp policy answers those calls without running them).
 * Each run's oom_score_adj is +1000, first to go under host-wide memory
 * pressure; it is also the run's floor only where the caller holds
 * CAP_SYS_RESOURCE (sbx_host_describe says when it does not).
 *
 * Errors: functions that can fail return -1 and write one line into the
 * caller's `err` buffer (never exit, never abort). sbx_run always fills a
 * result; a failure of the sandbox itself is status SBX_SANDBOX_ERROR, never
 * blamed on the program, and the box recovers on the next run.
 *
 * VERDICTS are decided on what the sandbox measured, never on a signal or
 * a message the program could make itself (run.c has the order). A run
 * killed by the OOM killer, whichever of its processes or the zygote it
 * took, is MEMORY_LIMIT; so is a failed run after a charge at its memory
 * limit failed, and a run out of CPU time whose memory reached its limit
 * (near the limit the CPU goes into reclaiming the run's own pages);
 * page cache reclaimed at the limit alone makes no failure MEMORY_LIMIT.
 * SIGXFSZ is OUTPUT_LIMIT only with a file of the run at file_bytes;
 * waiting_for_input only when blocked on the run's own stdin pipe, empty.
 *
 * Memory: result buffers are owned by the result and are not malloc'd:
 * only sbx_result_free releases them. Each is the stream's cap of address
 * space, of which only what the program wrote is memory.
 */
#ifndef GRADEQ_SANDBOX_H
#define GRADEQ_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBX_ERR_LEN 256
/* sbx_host_open's err: what is missing, why, and how to get it. */
#define SBX_HOST_ERR_LEN 1024
/* argv and env of one run together, each string with its NUL: more is
 * refused (SANDBOX_ERROR), so callers check their input against it. */
#define SBX_EXEC_BYTES_MAX (256 * 1024)

typedef struct sbx_limits {
    uint64_t cpu_ms;       /* CPU time of all processes together */
    uint64_t wall_ms;      /* 0: three times cpu_ms */
    uint64_t memory_bytes; /* whole run, swap included */
    uint64_t stdout_bytes; /* at the cap the run is killed: OUTPUT_LIMIT */
    uint64_t stderr_bytes;
    uint64_t processes;    /* processes and threads alive at once */
    uint64_t file_bytes;   /* largest file it may write */
    uint64_t open_files;
} sbx_limits;

/* The largest limits sbx_run accepts (beyond them, and for a cpu_ms,
 * memory_bytes, processes or open_files of 0, a run is SANDBOX_ERROR):
 * they keep every derived value far from overflow and every rlimit
 * settable. Callers taking limits from people check against them. */
#define SBX_LIMIT_MS_MAX (24ull * 3600 * 1000)      /* cpu_ms, wall_ms */
#define SBX_LIMIT_MEMORY_MAX (1ull << 46)
#define SBX_LIMIT_STREAM_MAX (1ull << 40)           /* stdout_bytes, stderr_bytes */
#define SBX_LIMIT_PROCESSES_MAX (1ull << 22)        /* the kernel's PID_MAX_LIMIT */
#define SBX_LIMIT_OPEN_FILES_MAX (1ull << 20)       /* the default fs.nr_open */

/* Defaults: cpu 1000 ms, wall 3x cpu, memory 256 MiB, stdout
 * 1 MiB, stderr 64 KiB, 64 processes, 64 MiB files, 64 open files. */
void sbx_limits_default(sbx_limits *l);

/* A file placed in /box before the run. It is root's, mode 0644 or 0755:
 * the run reads and executes it, but cannot write it or change its mode
 * (its pages are the caller's, not charged to the run: writable, they
 * would be memory past the run's limit). The directories made for it are
 * the run's, and /box too: the run may create files beside it, or unlink
 * it and make one of that name, charged to itself. Without root every
 * file is the caller's uid, the run's as well. A name ending in '/' makes
 * only that directory, the run's (a place for the run to write into; its
 * data is ignored). */
typedef struct sbx_file {
    const char *name; /* relative path under /box; parents are created */
    const void *data;
    size_t len;
    bool executable;  /* mode 0755 instead of 0644 */
    /* 0, or the caller's promise that every file it places with this
     * number holds these same bytes (take one from sbx_content_id and
     * never change the bytes it names). A file kept in /box from an
     * earlier run, placed with the same number, name and mode, is then
     * not read again to compare (a grading's binary, test after test);
     * with 0 it is compared in full. sbx_collect numbers what it hands
     * back. */
    uint64_t content_id;
} sbx_file;

/* A content_id no other call in this process returns. From any thread. */
uint64_t sbx_content_id(void);

/* Interactive runs: the callback sees each chunk the program writes
 * (stream 1 or 2), one call at a time in the order the readers got them,
 * never two at once. It may queue bytes for the program's stdin with
 * sbx_reply_write, close it with sbx_reply_close, and return nonzero to end
 * the run (the program is killed; the result says ended_by_callback). Its
 * own time is added to the wall limit; the CPU limit and the output caps
 * hold as in any run. */
typedef struct sbx_reply sbx_reply;
typedef int (*sbx_interact_fn)(void *ctx, int stream, const void *buf, size_t len, sbx_reply *reply);
/* Queues len bytes for the program's stdin: 0. Once its stdin is closed
 * (sbx_reply_close, or a write found that the program closed it or
 * ended), the bytes are dropped: 1, not an error (a closed stdin is the
 * program's choice). Past SBX_REPLY_MAX pending bytes: -1, nothing queued. */
int sbx_reply_write(sbx_reply *r, const void *buf, size_t len);
void sbx_reply_close(sbx_reply *r);
#define SBX_REPLY_MAX (64u << 20)

/* What a run left in /box, handed back before the wipe (a compile step's
 * output, which every test then starts from). Only regular files are taken;
 * links, devices and fifos are neither followed nor copied. Bounds are
 * checked on each file's size before it is copied: past max_files, max_bytes
 * or max_depth nothing is kept and `refused` says why. Names and data are
 * malloc'd; sbx_collect_free releases them. */
typedef struct sbx_collect {
    size_t max_files;     /* in */
    uint64_t max_bytes;
    unsigned max_depth;   /* directories below /box */
    sbx_file *files;      /* out */
    size_t nfiles;
    uint64_t bytes;
    char refused[SBX_ERR_LEN]; /* "" unless a bound was crossed */
    const char *only;     /* in: NULL, or the one name directly in /box to
                           * take (a file, or a directory and what is in
                           * it); nothing else is looked at */
} sbx_collect;
void sbx_collect_free(sbx_collect *c);

/* The environment a run gets when its spec gives none: PATH, HOME=/box,
 * LANG. NULL-terminated, static. */
const char *const *sbx_env_default(void);

typedef struct sbx_spec {
    const char *const *argv; /* NULL-terminated; argv[0] is searched in PATH */
    const char *const *env;  /* NULL-terminated "K=V"; NULL: sbx_env_default() */
    const sbx_file *files;
    size_t nfiles;
    const void *stdin_data;  /* bytes fed as stdin; NULL/0: empty */
    size_t stdin_len;
    sbx_limits limits;
    sbx_interact_fn interact;  /* NULL: stdin_data, or the fds below */
    void *interact_ctx;
    /* Wiring to another process (an interactor): the program reads stdin
     * from stdin_fd and writes stdout to stdout_fd, which is then not
     * captured. sbx_run takes both over: they are closed once the program
     * has them (or on failure), so the other side sees EOF when it exits. */
    bool use_stdin_fd, use_stdout_fd;
    int stdin_fd, stdout_fd;
    bool pin_cpu;              /* run on one CPU only: two programs talking */
    unsigned cpu;              /* over pipes round-trip faster on one CPU;
                                * the cpu-th of those this process may use */
    sbx_collect *collect;      /* non-NULL: /box's files handed back here */
} sbx_spec;

typedef enum sbx_status {
    SBX_OK,
    SBX_RUNTIME_ERROR,   /* exit code != 0 */
    SBX_SIGNALED,        /* died of a signal the sandbox did not send */
    SBX_TIME_LIMIT,      /* CPU time */
    SBX_WALL_TIME_LIMIT,
    SBX_MEMORY_LIMIT,
    SBX_OUTPUT_LIMIT,
    SBX_EXEC_ERROR,      /* could not be started */
    SBX_SANDBOX_ERROR,   /* the sandbox failed; never the program's fault */
} sbx_status;

/* "OK", "RUNTIME_ERROR", ...; NULL for a value out of range. */
const char *sbx_status_name(sbx_status s);
/* Inverse of sbx_status_name; -1 when unknown. */
int sbx_status_parse(const char *name);

/* Protections; sbx_result.isolation has a bit for each that held. */
enum {
    SBX_ISO_PID_NS       = 1u << 0,
    SBX_ISO_MOUNT_NS     = 1u << 1, /* private root, read-only system dirs */
    SBX_ISO_NET_NS       = 1u << 2,
    SBX_ISO_IPC_NS       = 1u << 3,
    SBX_ISO_UTS_NS       = 1u << 4,
    SBX_ISO_UID          = 1u << 5, /* unprivileged uid/gid of its own slot */
    SBX_ISO_NO_NEW_PRIVS = 1u << 6,
    SBX_ISO_SECCOMP      = 1u << 7,
    SBX_ISO_CG_MEMORY    = 1u << 8, /* memory limit and peak, swap included */
    SBX_ISO_CG_PIDS      = 1u << 9,
    SBX_ISO_CG_CPU       = 1u << 10, /* CPU accounting of all processes */
    SBX_ISO_CG_KILL      = 1u << 11, /* every process killed at the end */
    SBX_ISO_RLIMITS      = 1u << 12,
    SBX_ISO_FDS          = 1u << 13, /* only fds 0, 1, 2 reach the program */
    SBX_ISO_CLEAN_ENV    = 1u << 14,
    SBX_ISO_CG_CPU_SHARE = 1u << 15, /* an equal CPU share per concurrent run,
                                      * whatever it forks (a cpu cgroup weight) */
    SBX_ISO_ALL          = (1u << 16) - 1,
};
/* Fills names[] with the names of the bits set ("pid_ns", ...), returns the
 * count (at most max). */
size_t sbx_isolation_names(unsigned bits, const char **names, size_t max);

typedef struct sbx_result {
    sbx_status status;
    int exit_code;             /* -1 when it did not exit normally */
    int signal;                /* 0 when it did not die of a signal */
    char *stdout_buf;          /* may contain NULs; not terminated */
    size_t stdout_len;
    bool stdout_truncated;
    char *stderr_buf;
    size_t stderr_len;
    bool stderr_truncated;
    uint64_t cpu_us;           /* kernel accounting, all processes */
    uint64_t wall_us;
    uint64_t end_ns;           /* CLOCK_MONOTONIC when the run ended: when the
                                * sandbox first killed it for a reason (a
                                * limit, the callback), else when its main
                                * process was seen to exit; orders two runs
                                * that talk to each other */
    uint64_t memory_bytes;     /* peak of the whole run */
    unsigned isolation;        /* SBX_ISO_* that held */
    bool waiting_for_input;    /* at the wall limit, a thread of the run was
                                * blocked reading its stdin (that pipe, under
                                * any fd number), with nothing in it */
    bool ended_by_callback;    /* the interaction callback ended the run */
    char error[SBX_ERR_LEN];   /* one line for EXEC_ERROR and SANDBOX_ERROR */
    size_t stdout_map_, stderr_map_; /* private: the buffers' mappings */
} sbx_result;

void sbx_result_free(sbx_result *r);

typedef struct sbx_host_options {
    bool require_isolation; /* refuse to open unless SBX_ISO_ALL holds (namespaces:
                             * refuse to open a box without them) */
    unsigned uid_base;      /* slot N runs as uid/gid uid_base + N; default 60000 */
    unsigned max_slots;     /* machine-wide slots; default 256 */
    const char *state_dir;  /* lock files; default /run/gradeq (root) */
    const char *cgroup_name;/* our subtree in each hierarchy; default "gradeq" */
    uint64_t box_bytes;     /* size of /box (tmpfs); default 256 MiB */
    uint64_t tmp_bytes;     /* size of /tmp (tmpfs); default 64 MiB */
} sbx_host_options;

typedef struct sbx_host sbx_host;

/* The state directory a host opened with opts (may be NULL) uses, without
 * opening one: opts->state_dir, else /run/gradeq as root and
 * /tmp/gradeq-UID otherwise. 0, or -1 when it does not fit in len. */
int sbx_state_dir(const sbx_host_options *opts, char *out, size_t len);

/* Probes the machine and prepares what every box shares. opts may be NULL.
 * Returns 0, or -1 with err filled (require_isolation and something missing:
 * err lists what, why, and how to get it; SBX_HOST_ERR_LEN holds it all). */
int sbx_host_open(sbx_host **out, const sbx_host_options *opts, char *err, size_t errlen);
void sbx_host_close(sbx_host *h);
/* The protections every run on this host will have. Namespaces are tried
 * by the first box opened on the host (its zygote's own set-up is the only
 * honest probe) and count from then on; a failure there for a reason that
 * will not pass (refused, unsupported: not a lack of memory, pids or fds)
 * leaves every run without them, a later box's failure is that box's
 * error. Before the first box, namespaces are not counted. */
unsigned sbx_host_isolation(const sbx_host *h);
/* More host paths every box of h shows, read-only, at the same place (a
 * runtime's data: /var/lib/ghc), bound when a box is built: set before the
 * first sbx_box_open. NULL-terminated, at most SBX_RO_PATHS_MAX; each is
 * absolute and plain (no ".", ".." or empty parts), outside /proc, /dev,
 * /sys, /box and /tmp; one that does not exist is skipped, one under a tree
 * the box already shows changes nothing. Copied. Returns 0, or -1 with err
 * (a path refused, a box already opened). */
#define SBX_RO_PATHS_MAX 64
int sbx_host_ro_paths(sbx_host *h, const char *const *paths, char *err, size_t errlen);
/* One line describing the host: cgroup version, namespaces (yes, no and
 * why, untried before the first box), what is missing and why, and
 * whether the runs' oom_score_adj is pinned (CAP_SYS_RESOURCE). It changes
 * once, when namespaces are decided: read it after the first box opened. */
const char *sbx_host_describe(const sbx_host *h);
/* What opening the host did to processes other than this one to get a
 * cgroup (cgroup v2: those sharing its delegated cgroup moved into a leaf),
 * one line; "" when nothing. What it did to itself (a transient scope) is
 * in sbx_host_describe. */
const char *sbx_host_cgroup_others(const sbx_host *h);

/* This process as the rest of the machine (its systemd, its operators)
 * can name it. Returns its pid in the machine's initial PID namespace when
 * that is certain, else 0: inside a container's PID namespace the pid
 * outside cannot be seen. tag gets a name unique on the machine while the
 * process lives: that pid, or "pidnsINODE-PID" (its PID namespace and its
 * pid there). */
long sbx_self_id(char *tag, size_t len);

typedef struct sbx_box sbx_box;

/* Takes a free machine-wide slot and starts its zygote. */
int sbx_box_open(sbx_host *h, sbx_box **out, char *err, size_t errlen);
void sbx_box_close(sbx_box *b);
/* In the child of a fork(): closes this process's copies of the box's
 * descriptors and frees it, touching nothing of the box itself, which
 * stays the parent's (its slot lock held, its zygote running). A child
 * that kept them would hold the parent's slot after the parent let it go
 * and keep its zygote alive after the parent died. */
void sbx_box_forget(sbx_box *b);
unsigned sbx_box_slot(const sbx_box *b);
/* How many times this box was thrown away and built anew because a run
 * left what could not be cleared in place (see sbx_run). */
unsigned long sbx_box_rebuilds(const sbx_box *b);

/* Runs spec in the box. Always fills *r (free with sbx_result_free).
 * Returns 0 when the run happened (whatever its status), -1 when the status
 * is SBX_SANDBOX_ERROR. Not thread-safe per box. */
int sbx_run(sbx_box *b, const sbx_spec *spec, sbx_result *r);

/* Each run of a box has a number, from 1: the run in progress, or between
 * runs the next one to start. From any thread. */
uint64_t sbx_box_run_id(sbx_box *b);

/* Ends run `run` of this box as SANDBOX_ERROR "run cancelled": at once if
 * it is in progress (from sbx_run's call until it returns), as it starts
 * if it is the box's next run; never any other run (a request that comes
 * once that run has returned reaches nothing). Take the number from
 * sbx_box_run_id before the run starts or while it runs. One request is
 * kept at a time: a later one replaces it. From any thread (not inside a
 * signal handler); the box stays open meanwhile. */
void sbx_box_cancel(sbx_box *b, uint64_t run);

/* Ends the run in progress and every later run of this box, each as
 * SANDBOX_ERROR "run cancelled": a forced shutdown, after which the box is
 * only closed. From any thread (not inside a signal handler). */
void sbx_box_cancel_all(sbx_box *b);

#endif
