/* apply.h -- a language preset applied to one run: its command and
 * environment with the placeholders worked out from that run's own limits,
 * the runtime's processes and the time factor added to the program's
 * limits, and the runtime's own out-of-memory recognised (apply.c).
 */
#ifndef GRADEQ_WORKER_LANG_APPLY_H
#define GRADEQ_WORKER_LANG_APPLY_H

#include "worker/lang/languages.h"

typedef struct wk_lang_cmd {
    const char *argv[WK_LANG_ARGS];
    const char **env;          /* NULL-terminated, malloc'd */
    char buf[8192];            /* the expanded words */
} wk_lang_cmd;

/* The preset's compile (compile true) or run command for a run under lim.
 * Its environment: the sandbox's default, then the preset's env (then
 * compile.env for the compile step), then job_env (may be NULL), a later
 * NAME=... replacing an earlier one. Returns 0, or -1 with err (a
 * placeholder that cannot be worked out with these limits, too long, out
 * of memory); out is freed with wk_lang_cmd_free either way. */
int wk_lang_command(const wk_lang *l, bool compile, const sbx_limits *lim, const char *const *job_env, wk_lang_cmd *out,
                    char *err, size_t errlen);
void wk_lang_cmd_free(wk_lang_cmd *c);

/* A test run's limits from the program's own: cpu and wall times the time
 * factor (clamped to max), the runtime's processes added on top. */
void wk_lang_limits(const wk_lang *l, sbx_limits *lim, const sbx_limits *max);

/* The runtime's own ceiling for a run under lim, bytes: heap_mb worked
 * out, else the memory limit. */
uint64_t wk_lang_ceiling(const wk_lang *l, const sbx_limits *lim);

/* Whether r, a run of l under lim that ended RUNTIME_ERROR or SIGNALED, is
 * the runtime's own out-of-memory: its stderr holds one of the preset's
 * oom patterns, and what the sandbox measured agrees (the run's peak
 * reached WK_OOM_AGREE_PERCENT of the runtime's ceiling). A program that
 * prints the message without using its memory is not. */
#define WK_OOM_AGREE_PERCENT 90
bool wk_lang_oom(const wk_lang *l, const sbx_limits *lim, const sbx_result *r);

#endif
