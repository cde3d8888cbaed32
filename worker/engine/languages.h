/* languages.h -- the language presets of a grading job: a file the
 * operator owns (deploy/languages is the default), read once at start-up.
 *
 * A preset names the source file, the compile and run commands and default
 * limits. One whose compiler or interpreter is not installed is kept but
 * marked unavailable, with why: the worker says so at start-up and a job
 * naming it is refused at once, not when the compiler is missing at run
 * time.
 */
#ifndef GRADEQ_WORKER_LANGUAGES_H
#define GRADEQ_WORKER_LANGUAGES_H

#include <stdbool.h>

#include "queue/grade.h"
#include "sandbox/sandbox.h"

#define WK_LANG_ARGS 64

typedef struct wk_lang {
    char name[Q_LANGUAGE_MAX + 1];
    char source[Q_PATH_MAX + 1];
    bool has_compile;
    char *compile_argv[WK_LANG_ARGS];
    char compile_buf[1024];
    char *run_argv[WK_LANG_ARGS];
    char run_buf[1024];
    uint64_t limits[Q_LIM_COUNT], compile_limits[Q_LIM_COUNT];
    unsigned limits_given, compile_given; /* bit i: limit i set */
    bool available;
    char why[128];                        /* when not available */
} wk_lang;

typedef struct wk_langs {
    wk_lang *v;
    size_t n;
    char path[4096];                      /* where they were read from */
} wk_langs;

/* Reads the presets of path; NULL: $GRADEQ_LANGUAGES, else the first of
 * <exe>/../share/gradeq/languages and <exe>/../deploy/languages that
 * exists. Returns 0, or -1 with err naming the file and line. */
int wk_langs_load(const char *path, wk_langs *out, char *err, size_t errlen);
void wk_langs_free(wk_langs *l);
const wk_lang *wk_lang_find(const wk_langs *l, const char *name);
/* One line per preset, its name first. */
void wk_langs_print(const wk_langs *l, FILE *f);

/* Splits cmd on blanks (single and double quotes group) into argv (max
 * entries, NULL-terminated) with the words in buf. Returns the count, or
 * -1 with err filled. */
int wk_split_words(const char *cmd, char *buf, size_t bufsize, char **argv, size_t max, char *err, size_t errlen);

#endif
