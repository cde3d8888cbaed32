/* config.h -- the worker's configuration: flags, GRADEQ_* variables,
 * defaults, all from one table (config.c), so --help, the environment and
 * the flags can never disagree. Precedence: flag > environment > default. */
#ifndef GRADEQ_WORKER_CONFIG_H
#define GRADEQ_WORKER_CONFIG_H

/* Both commands' version (gradeq --version, gradeq-worker --version, the
 * worker's registry entry). */
#define WK_VERSION "0.1"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sandbox/sandbox.h"

typedef struct wk_config {
    char redis[512];
    char prefix[65];
    char name[65];          /* this worker; consumers are name/N */
    unsigned threads;
    uint64_t result_ttl_s;
    bool result_lists;      /* P:result:<id> written (else only P:results) */
    uint64_t results_maxlen;
    uint64_t dead_maxlen;
    uint64_t max_job_bytes;
    uint64_t claim_idle_ms;
    uint64_t max_deliveries;
    sbx_limits max;         /* jobs' limits are clamped to these */
    uint64_t max_result_bytes; /* a result, outputs included (engine.h's budget) */
    bool require_isolation;
    bool log_json;
    int log_level;          /* WK_LOG_* */
    char metrics_addr[128]; /* HOST:PORT, empty: off */
    char languages[4096];   /* grading presets; empty: the default file, if any */
    char languages_required[1024]; /* presets that must pass, or the start fails */
    bool self_test;         /* run each preset's self-test at start-up */
    uint64_t self_test_s;   /* the self-tests' time, all together */
    uint64_t test_output_max; /* grading: each test's stdout and stderr kept */
    uint64_t compile_cache; /* grading: bytes of compile artifacts kept, 0: off */
    char problems[4096];    /* grading: problems a job names by name; empty: none */
    bool allow_hardlinks;   /* grading: problem files with other hard links read */
} wk_config;

/* Fills c from defaults, then the environment, then argv. Returns 0, 1
 * when --help was printed, or -1 with err filled. */
int wk_config_load(wk_config *c, int argc, char **argv, char *err, size_t errlen);
void wk_config_help(FILE *f);

#endif
