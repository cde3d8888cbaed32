/* languages.h -- the language presets of a grading job: a file the
 * operator owns (deploy/languages is the default, its comments the
 * format), read once at start-up.
 *
 * A preset names the source file, the compile and run commands, what its
 * runtime needs from the box (environment, read-only paths, processes of
 * its own, more open files), flags derived from each run's limits
 * ({memory_mb}-style placeholders: expr.h), its compile step's limits, how
 * its own out-of-memory message reads, and a self-test. One whose programs
 * are not installed (where the box looks for them: probe.c) is kept but
 * marked unavailable, with why; so is one whose self-test fails
 * (selftest.h). A job naming it is refused at once.
 *
 * Thread ownership: a wk_langs is filled at start-up (load, probe,
 * self-tests) and read-only afterwards; any thread may read it then.
 */
#ifndef GRADEQ_WORKER_LANGUAGES_H
#define GRADEQ_WORKER_LANGUAGES_H

#include <stdbool.h>
#include <stdio.h>

#include "queue/grade.h"
#include "sandbox/sandbox.h"

#define WK_LANG_ARGS 64
#define WK_LANG_ENV 32
#define WK_LANG_PATHS 16
#define WK_LANG_OOM 8
#define WK_LANG_MAX 64
#define WK_SELFTEST_MAX 4096

typedef struct wk_lang {
    char name[Q_LANGUAGE_MAX + 1];
    char title[64];                       /* `language =`, for people */
    char packages[256];                   /* Debian packages, blank-separated */
    char source[Q_PATH_MAX + 1];
    bool has_compile;
    char *compile_argv[WK_LANG_ARGS];     /* may hold placeholders */
    char compile_buf[1024];
    char *run_argv[WK_LANG_ARGS];
    char run_buf[1024];
    char *version_argv[WK_LANG_ARGS];     /* NULL: no version command */
    char version_buf[512];
    char *env[WK_LANG_ENV];               /* NAME=VALUE, for both steps */
    size_t nenv;
    char *compile_env[WK_LANG_ENV];       /* the compile step's own, after env */
    size_t ncompile_env;
    char env_buf[2048];
    char *paths[WK_LANG_PATHS];           /* absolute, read-only in every box */
    size_t npaths;
    char paths_buf[1024];
    char heap[160];                       /* heap_mb's expression, "" none */
    char *oom[WK_LANG_OOM];               /* the runtime's own out-of-memory */
    size_t noom;
    char oom_buf[512];
    uint64_t runtime_processes;           /* added to each run's processes */
    uint32_t time_factor_milli;           /* 0: none; 1500 = 1.5x */
    char selftest[WK_SELFTEST_MAX];       /* the program, "" none */
    size_t selftest_len;
    uint64_t limits[Q_LIM_COUNT], compile_limits[Q_LIM_COUNT];
    unsigned limits_given, compile_given; /* bit i: limit i set */
    bool available;
    char why[160];                        /* when not available */
    /* Filled by the probe (wk_langs_check): */
    char version[48];                     /* "17.0.15", "" unknown */
    bool checked;                         /* the self-test ran */
    uint64_t check_ms;                    /* how long it took */
} wk_lang;

typedef struct wk_langs {
    wk_lang *v;
    size_t n;
    char path[4096];                      /* where they were read from */
} wk_langs;

/* Reads the presets of path; NULL: $GRADEQ_LANGUAGES, else the first of
 * <exe>/../share/gradeq/languages and <exe>/../deploy/languages that
 * exists. Each preset's programs are looked for (probe.c). Returns 0, or
 * -1 with err naming the file and line. */
int wk_langs_load(const char *path, wk_langs *out, char *err, size_t errlen);
void wk_langs_free(wk_langs *l);
const wk_lang *wk_lang_find(const wk_langs *l, const char *name);
/* sbx_host_open for running these presets (l may be NULL): every box
 * also shows the union of their read-only paths. */
int wk_langs_host_open(const wk_langs *l, const sbx_host_options *o, sbx_host **out, char *err, size_t errlen);

/* probe.c: whether the programs a preset runs are there as the box sees
 * them (l->available, l->why). */
void wk_lang_probe(wk_lang *l);

#endif
