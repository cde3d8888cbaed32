/* bench_plain.h -- bench_worker's baseline: the same Redis cycle as the
 * worker with no isolation, run by threads of the bench itself.
 */
#ifndef GRADEQ_TESTS_BENCH_PLAIN_H
#define GRADEQ_TESTS_BENCH_PLAIN_H

#include <hiredis/hiredis.h>

/* Starts `threads` (at most BW_MAX_THREADS) loop threads on P:jobs. */
void bw_plain_start(const char *prefix, unsigned threads);
/* Stops them (a "stop" entry each, on c), joins them; returns how many of
 * their jobs failed. */
long bw_plain_stop(redisContext *c, const char *prefix, unsigned threads);

#endif
