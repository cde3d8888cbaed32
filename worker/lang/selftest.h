/* selftest.h -- each preset proven in a real box: its version command run,
 * and its self-test (the preset's tiny program that echoes its stdin)
 * compiled and run under the preset's own limits, exactly as a job's
 * submission would be (selftest.c).
 */
#ifndef GRADEQ_WORKER_LANG_SELFTEST_H
#define GRADEQ_WORKER_LANG_SELFTEST_H

#include <stdatomic.h>

#include "worker/lang/languages.h"

/* What a self-test feeds its program, and must read back. */
#define WK_SELFTEST_INPUT "gradeq self-test 42\n"

typedef struct wk_check_opts {
    unsigned parallel;        /* presets checked at once, each in its own box */
    uint64_t deadline_ms;     /* for the whole; 0: none (each run's limits still hold) */
    bool selftest;            /* false: the versions only */
    const sbx_limits *max;    /* the maxima a job's limits are clamped to */
    const bool *only;         /* NULL: every preset; else those i with only[i] */
    atomic_int *stop;         /* non-NULL and set (from another thread): end
                               * now, as at the deadline */
    /* Called as each preset's check ends (from the checking threads, one
     * call at a time); may be NULL. */
    void (*on_done)(void *ctx, const wk_lang *l);
    void *ctx;
} wk_check_opts;

/* Checks every available preset of l on host. A preset whose self-test
 * fails becomes unavailable, its why saying what failed (not installed,
 * exec refused, compile failed, timed out, wrong output ...); a preset
 * without a self-test stays available, unchecked. Versions are filled
 * where the command printed one. Returns 0, or -1 with err when no box
 * could be opened at all. */
int wk_langs_check(wk_langs *l, sbx_host *host, const wk_check_opts *o, char *err, size_t errlen);

/* The version in a command's output: the first number with a dot
 * ("go1.19.8" -> "1.19.8", "GNU bash, version 5.2.15(1)" -> "5.2.15"),
 * else the first number. "" when there is none. */
void wk_version_of(const char *out, size_t len, char *version, size_t size);

#endif
