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
 * THE GUARANTEE. When sbx_run returns, the box is indistinguishable from a
 * fresh one: no process of the run, no file in /box or /tmp, no System V
 * IPC object or POSIX queue, no socket and no TCP port in TIME_WAIT in its
 * network namespace, no limit or counter of the earlier run. Whatever the
 * program did: what can be cleared in place is (processes killed and
 * reaped, trees wiped, IPC removed); anything else (a socket in flight in
 * a message no process holds, a tree too deep to walk, a process that
 * will not die) costs a box rebuild before sbx_run returns, and is never
 * reported as SANDBOX_ERROR nor left for the next run. Each run's files
 * are created exclusively in an empty /box. (Without namespaces, only the
 * processes and files of this list hold; the cgroup's memory charge is
 * cgroup.c's to account.)
 *
 * Errors: functions that can fail return -1 and write one line into the
 * caller's `err` buffer (never exit, never abort). sbx_run always fills a
 * result; a failure of the sandbox itself is status SBX_SANDBOX_ERROR, never
 * blamed on the program, and the box recovers on the next run. A run killed
 * by the OOM killer, whichever of its processes or the zygote it took, is
 * MEMORY_LIMIT.
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

/* Defaults: cpu 1000 ms, wall 3x cpu, memory 256 MiB, stdout
 * 1 MiB, stderr 64 KiB, 64 processes, 64 MiB files, 64 open files. */
void sbx_limits_default(sbx_limits *l);

typedef struct sbx_file {
    const char *name; /* relative path under /box; parents are created */
    const void *data;
    size_t len;
    bool executable;  /* mode 0755 instead of 0644 */
} sbx_file;

/* Interactive runs: the callback sees each chunk the program writes
 * (stream 1 or 2), one call at a time in the order the readers got them,
 * never two at once. It may queue bytes for the program's stdin with
 * sbx_reply_write, close it with sbx_reply_close, and return nonzero to end
 * the run (the program is killed; the result says ended_by_callback). Its
 * own time is added to the wall limit; the CPU limit and the output caps
 * hold as in any run. */
typedef struct sbx_reply sbx_reply;
typedef int (*sbx_interact_fn)(void *ctx, int stream, const void *buf, size_t len, sbx_reply *reply);
/* Queues len bytes for the program's stdin (at most SBX_REPLY_MAX pending:
 * beyond, -1 and nothing is queued). */
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
} sbx_collect;
void sbx_collect_free(sbx_collect *c);

typedef struct sbx_spec {
    const char *const *argv; /* NULL-terminated; argv[0] is searched in PATH */
    const char *const *env;  /* NULL-terminated "K=V"; NULL: the minimal default */
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
    SBX_ISO_ALL          = (1u << 15) - 1,
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
    bool waiting_for_input;    /* at the wall limit, a process of the run was
                                * blocked reading its stdin */
    bool ended_by_callback;    /* the interaction callback ended the run */
    char error[SBX_ERR_LEN];   /* one line for EXEC_ERROR and SANDBOX_ERROR */
    size_t stdout_map_, stderr_map_; /* private: the buffers' mappings */
} sbx_result;

void sbx_result_free(sbx_result *r);

typedef struct sbx_host_options {
    bool require_isolation; /* refuse to open unless SBX_ISO_ALL holds */
    unsigned uid_base;      /* slot N runs as uid/gid uid_base + N; default 60000 */
    unsigned max_slots;     /* machine-wide slots; default 256 */
    const char *state_dir;  /* lock files; default /run/gradeq (root) */
    const char *cgroup_name;/* our subtree in each hierarchy; default "gradeq" */
    uint64_t box_bytes;     /* size of /box (tmpfs); default 256 MiB */
    uint64_t tmp_bytes;     /* size of /tmp (tmpfs); default 64 MiB */
} sbx_host_options;

typedef struct sbx_host sbx_host;

/* Probes the machine and prepares what every box shares. opts may be NULL.
 * Returns 0, or -1 with err filled (require_isolation and something missing:
 * err lists what, why, and how to get it; SBX_HOST_ERR_LEN holds it all). */
int sbx_host_open(sbx_host **out, const sbx_host_options *opts, char *err, size_t errlen);
void sbx_host_close(sbx_host *h);
/* The protections every run on this host will have. */
unsigned sbx_host_isolation(const sbx_host *h);
/* One line describing the host: cgroup version, what is missing and why. */
const char *sbx_host_describe(const sbx_host *h);
/* What opening the host did to get a cgroup (cgroup v2: a transient scope
 * asked of systemd, processes moved into a leaf), one line; "" when nothing. */
const char *sbx_host_cgroup_note(const sbx_host *h);

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
unsigned sbx_box_slot(const sbx_box *b);
/* How many times this box was thrown away and built anew because a run
 * left what could not be cleared in place (see sbx_run). */
unsigned long sbx_box_rebuilds(const sbx_box *b);

/* Runs spec in the box. Always fills *r (free with sbx_result_free).
 * Returns 0 when the run happened (whatever its status), -1 when the status
 * is SBX_SANDBOX_ERROR. Not thread-safe per box. */
int sbx_run(sbx_box *b, const sbx_spec *spec, sbx_result *r);

/* Asks a run in progress on this box to stop (from any thread or a signal
 * handler's thread): it ends as SANDBOX_ERROR "cancelled". Between two runs
 * the request is kept: the next run ends so at once. Each request ends one
 * run. Used on a forced shutdown. */
void sbx_box_cancel(sbx_box *b);

#endif
