/* bench_rss.h -- bench_worker's item 4, the gradeq worker's RSS: (a) its
 * peak while output floods run at once, (b) after 1,000 and after up to
 * 100,000 trivial jobs; and the /proc/PID/status reading they sample.
 */
#ifndef GRADEQ_TESTS_BENCH_RSS_H
#define GRADEQ_TESTS_BENCH_RSS_H

#include <stdbool.h>
#include <sys/types.h>

#include <hiredis/hiredis.h>

#define BW_FLOOD_CAP (16ull << 20) /* stdout cap of each flood, bytes */

/* The kB value of `field` ("VmRSS", "VmHWM") in /proc/PID/status; -1 if
 * unreadable. */
long bw_proc_status_kb(pid_t pid, const char *field);

typedef struct bw_flood_result {
    long idle_kb, peak_kb, hwm_kb, after_kb[2], peak_round_kb[2], redis_kb;
    double secs[2];
    long samples;
} bw_flood_result;

/* 4a: a worker with `floods` threads, warmed up, then two rounds of
 * `floods` x yes at a BW_FLOOD_CAP stdout cap, RSS sampled every 2 ms
 * until all are published; each must end OUTPUT_LIMIT. */
bw_flood_result bw_flood_run(redisContext *ctl, redisContext *fc, unsigned floods);

#define BW_RSS_MARKS 6
extern const long bw_rss_marks[BW_RSS_MARKS]; /* job counts where 4b notes the RSS */

typedef struct bw_long_result {
    long jobs, target, rss_at[BW_RSS_MARKS], rss_end_kb, rss_max_kb, hwm_kb;
    double rate, secs, budget_s;
    bool cut;
} bw_long_result;

/* 4b: up to `target` /bin/true jobs within budget_s seconds (refilled as
 * the queue drains), the worker's RSS noted at bw_rss_marks. */
bw_long_result bw_long_run(redisContext *ctl, redisContext *fc, unsigned threads, long target, double budget_s);

#endif
