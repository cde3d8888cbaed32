/* worker.h -- the state a gradeq-worker process shares between its
 * threads: one slot per job thread (its Redis connection, its sandbox box,
 * the entry it is running), the heartbeat, and the counters. */
#ifndef GRADEQ_WORKER_WORKER_H
#define GRADEQ_WORKER_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <time.h>

#include "queue/job.h"
#include "queue/redis.h"
#include "queue/result.h"
#include "queue/stream.h"
#include "sandbox/sandbox.h"
#include "worker/daemon/config.h"
#include "worker/lang/languages.h"
#include "worker/daemon/metrics.h"

typedef struct wk_worker wk_worker;

typedef struct wk_slot {
    wk_worker *w;
    unsigned index;
    char consumer[Q_NAME_MAX + 1]; /* name/index: one consumer a thread */
    pthread_t thread;
    sbx_box *box;
    sbx_box *_Atomic ibox;         /* checkers' and interactors' box, opened
                                    * on first use (wk_slot_ibox); an abort
                                    * reads it from another thread */
    q_conn *conn;
    bool want_next;                /* the job thread's: a result it publishes
                                    * may bring its next job (q_publish_next) */
    q_entry next;                  /* the job thread's: that next job, run
                                    * before any other is fetched */
    bool saw_empty;                /* the job thread's: that publish found
                                    * no job waiting (q_wait_job next) */
    pthread_mutex_t mu;            /* guards entry: the heartbeat reads it */
    char entry[Q_ID_LEN];          /* the entry running now, "" when idle */
    atomic_bool lost;              /* another worker took the running entry */
    atomic_ulong reconnects;       /* of its connection, for the metrics */
    atomic_ulong round_trips;      /* of its connection, for the metrics */
    atomic_bool running;           /* the thread has not returned */
} wk_slot;

/* Marks the slot lost when it still runs `entry` (the heartbeat found the
 * entry taken), under the slot's lock as run_job sets and clears it: a
 * slot that finished that job and began another meanwhile keeps its new
 * result. True when it marked. (heartbeat.c) */
bool wk_slot_mark_lost(wk_slot *s, const char *entry);

/* Result statuses past the sandbox's own, for the counters. */
enum { WK_WRONG_ANSWER = SBX_SANDBOX_ERROR + 1, WK_INTERACTOR_ERROR, WK_BAD_JOB, WK_PARTIAL, WK_NSTATUS };

struct wk_worker {
    wk_config cfg;
    q_redis_addr addr;
    sbx_host *host;
    atomic_int stop;               /* drain: finish running jobs, take no more */
    atomic_int hard;               /* abort: kill running jobs, acknowledge nothing */
    atomic_uint busy;
    atomic_ullong done;
    atomic_ullong by_status[WK_NSTATUS]; /* results published: sbx_status, then the WK_ above */
    atomic_ullong dead_letters, claims, redeliveries;
    atomic_uint held_results;      /* results waiting in memory for Redis to come back */
    atomic_ullong refused_results; /* results Redis refused whole, for good (handle.c) */
    atomic_ullong redis_errors;
    atomic_ullong redis_auth_errors;   /* of them, refused credentials or rights */
    atomic_ullong auth_logged_ms, redis_logged_ms; /* rate of wk_redis_failed's lines */
    wk_slot *slots;
    time_t started;
    wk_metrics metrics;
    int metrics_fd;                /* -1: no endpoint */
    pthread_t metrics_thread;
    atomic_int metrics_stop;
    pthread_t heartbeat;
    pthread_mutex_t hb_mu;
    pthread_cond_t hb_cv;
    wk_langs langs;                /* grading presets (grade_job.c) */
    char lang_json[8192];          /* the working ones and their versions, for the registry */
    atomic_int check_stop;         /* a signal came during the self-tests */
    struct wk_compile_cache *cache; /* grading: compile artifacts, shared */
};


/* Opens a Redis connection for one thread, retrying until it works or the
 * worker stops. NULL when stopping. */
q_conn *wk_connect(wk_worker *w, const char *client_name);
/* A failed Redis call: counted, logged at a bounded rate (refused
 * credentials at error level). (pool.c) */
void wk_redis_failed(wk_worker *w, const char *who, const char *err);

/* pool.c: starts the job threads (each opens its box first). */
int wk_pool_start(wk_worker *w, char *err, size_t errlen);
bool wk_pool_running(wk_worker *w);
void wk_pool_join(wk_worker *w);
/* Forced shutdown (w->hard already set): every run of every box ends. */
void wk_pool_cancel(wk_worker *w);
/* The slot's second box (checkers, interactors), opened on first use;
 * NULL with err filled when it cannot be. */
sbx_box *wk_slot_ibox(wk_slot *s, char *err, size_t errlen);

/* handle.c: one delivered entry, from its bytes to its published result. */
void wk_handle(wk_slot *s, q_entry *e);

/* handle.c, for grade_job.c: the published answer (BAD_JOB, ...), a
 * result sent (copied), the counters, and the running entry the heartbeat
 * keeps alive (begin/end around a job's runs). */
bool wk_answer(wk_slot *s, const q_entry *e, const char *id, const char *status, const char *error,
               const char *dead_reason);
bool wk_deliver(wk_slot *s, const q_entry *e, const q_result *res, const char *dead_reason);
void wk_count(wk_worker *w, int status);
void wk_slot_begin(wk_slot *s, const q_entry *e);
void wk_slot_end(wk_slot *s);

/* grade_job.c: the presets, read at start-up before the sandbox opens
 * (their read-only paths are its); then checked in it (self-tests, refused
 * ones logged, --languages-required enforced, the registry's field made);
 * one grading job, from its plan to its published result. */
int wk_grade_setup(wk_worker *w, char *err, size_t errlen);
int wk_grade_check(wk_worker *w, char *err, size_t errlen);
void wk_grade_job(wk_slot *s, const q_entry *e, q_job *job);

/* heartbeat.c: the worker's liveness hash and its running entries' leases. */
int wk_heartbeat_start(wk_worker *w);
void wk_heartbeat_stop(wk_worker *w);

#endif
