/* bench_gworker.h -- the gradeq-worker under test, as a child process of
 * bench_worker: started on a queue prefix, watched through a pidfd, stopped
 * as in production (SIGTERM: drain). One worker at a time.
 */
#ifndef GRADEQ_TESTS_BENCH_GWORKER_H
#define GRADEQ_TESTS_BENCH_GWORKER_H

#include <sys/types.h>

#include <hiredis/hiredis.h>

extern char bw_worker_bin[512]; /* path of gradeq-worker (set by main) */
extern pid_t bw_worker_pid;     /* the running gradeq-worker, 0 when none */

/* Starts bw_worker_bin --threads T --prefix P --name NAME on bw_srv, its
 * output to bw_srv.dir/NAME.log; it dies with this process. */
void bw_worker_start(const char *prefix, unsigned threads, const char *name);
/* bw_die if the worker has exited. */
void bw_worker_check_alive(void);
/* SIGTERM (drain), its job threads woken from XREADGROUP BLOCK by CLIENT
 * UNBLOCK (on c), waits with a deadline (then SIGKILL); shows what it
 * logged; returns the wait status. */
int bw_worker_stop(redisContext *c, const char *name);
/* If a worker runs: SIGKILL, reap, and the tail of its log on stderr. */
void bw_worker_kill(void);

#endif
