/* compile_cache.h -- what a compile step left in /box, kept by the worker
 * so that a rejudge of the same source skips the compiler.
 *
 * The key is everything the compile step sees: its argv, env and limits and
 * every file (name, mode, bytes). Entries are found by a hash of the key
 * and then compared byte for byte, so a crafted collision can never hand
 * one submission another's binary. Only successful compiles are kept. The
 * cache is bounded in bytes (keys and artifacts together) and in entries
 * (least recently used dropped first) and lives in memory: nothing of it touches the disk.
 * Thread-safe (one mutex; lookups copy out).
 */
#ifndef GRADEQ_WORKER_COMPILE_CACHE_H
#define GRADEQ_WORKER_COMPILE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "queue/grade.h"
#include "sandbox/sandbox.h"

typedef struct wk_compile_cache wk_compile_cache;

/* Entries kept at most, whatever their bytes: a lookup scans them, under
 * the cache's lock, so their number bounds its cost. */
#define WK_CC_ENTRIES_MAX 16384

/* NULL when out of memory; max_bytes 0 makes a cache that keeps nothing. */
wk_compile_cache *wk_cc_new(uint64_t max_bytes);
void wk_cc_free(wk_compile_cache *c);

/* On a hit, fills *files (as sbx_run's collect would: malloc'd, freed with
 * sbx_collect_free) and *rec (the original compile's record, its outputs
 * malloc'd) and returns true. */
bool wk_cc_get(wk_compile_cache *c, const sbx_spec *compile, sbx_collect *files, q_graded *rec);
/* Keeps a copy of a successful compile's files and record (when it fits). */
void wk_cc_put(wk_compile_cache *c, const sbx_spec *compile, const sbx_collect *files, const q_graded *rec);

/* Hits and misses so far. */
void wk_cc_stats(wk_compile_cache *c, uint64_t *hits, uint64_t *misses);

#endif
