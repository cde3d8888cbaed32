/* apply.c -- a preset applied to one run (apply.h). Called per test (a
 * test may carry its own limits, and the flags follow them), so it only
 * formats into the caller's buffer; the environment's array is the one
 * allocation, sized by the job's environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/lang/apply.h"
#include "worker/lang/expr.h"

static int64_t clamp64(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The placeholders' values for a run under lim; -1 with err when heap_mb
 * cannot be worked out. */
static int vars_of(const wk_lang *l, const sbx_limits *lim, int64_t *v, char *err, size_t errlen)
{
    int64_t mb = clamp64(lim->memory_bytes >> 20);
    v[WK_V_MEMORY_MB] = mb;
    v[WK_V_MEMORY_KB] = clamp64(lim->memory_bytes >> 10);
    v[WK_V_MEMORY_BYTES] = clamp64(lim->memory_bytes);
    /* The sandbox gives the stack as much as the memory limit. */
    v[WK_V_STACK_MB] = mb;
    v[WK_V_STACK_KB] = v[WK_V_MEMORY_KB];
    v[WK_V_CPU_MS] = clamp64(lim->cpu_ms);
    v[WK_V_WALL_MS] = clamp64(lim->wall_ms ? lim->wall_ms : lim->cpu_ms > UINT64_MAX / 3 ? UINT64_MAX : 3 * lim->cpu_ms);
    v[WK_V_PROCESSES] = clamp64(lim->processes);
    v[WK_V_OPEN_FILES] = clamp64(lim->open_files);
    int64_t heap = mb;
    char why[96];
    if (l->heap[0] && wk_expr_eval(l->heap, strlen(l->heap), v, &heap, why, sizeof why) < 0)
        return snprintf(err, errlen, "language %s: heap_mb: %s", l->name, why), -1;
    if (heap < 1)
        heap = 1;
    if (heap > (INT64_MAX >> 20))
        heap = INT64_MAX >> 20;
    v[WK_V_HEAP_MB] = heap;
    v[WK_V_HEAP_KB] = heap << 10;
    v[WK_V_HEAP_BYTES] = heap << 20;
    return 0;
}

static size_t name_len(const char *kv)
{
    const char *eq = strchr(kv, '=');
    return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* Sets kv in env[0..*n): replaces the entry of the same name, else adds. */
static void env_set(const char **env, size_t *n, const char *kv)
{
    size_t k = name_len(kv);
    for (size_t i = 0; i < *n; i++)
        if (name_len(env[i]) == k && strncmp(env[i], kv, k) == 0) {
            env[i] = kv;
            return;
        }
    env[(*n)++] = kv;
}

/* Expands word into out's buffer at *used; the copy goes to *dst. */
static int expand(const char *word, const int64_t *v, wk_lang_cmd *out, size_t *used, const char **dst, char *err,
                  size_t errlen)
{
    char why[128];
    int n = wk_expand(word, v, out->buf + *used, sizeof out->buf - *used, why, sizeof why);
    if (n < 0)
        return snprintf(err, errlen, "%s", why), -1;
    *dst = out->buf + *used;
    *used += (size_t)n + 1;
    return 0;
}

int wk_lang_command(const wk_lang *l, bool compile, const sbx_limits *lim, const char *const *job_env, wk_lang_cmd *out,
                    char *err, size_t errlen)
{
    int64_t v[WK_V_COUNT];
    size_t used = 0, njob = 0, n = 0;
    memset(out->argv, 0, sizeof out->argv);
    out->env = NULL;
    while (job_env && job_env[njob])
        njob++;
    const char *const *def = sbx_env_default();
    size_t ndef = 0;
    while (def[ndef])
        ndef++;
    out->env = calloc(ndef + l->nenv + l->ncompile_env + njob + 1, sizeof *out->env);
    if (!out->env)
        return snprintf(err, errlen, "language %s: out of memory", l->name), -1;
    if (vars_of(l, lim, v, err, errlen) < 0)
        return -1;
    char *const *argv = compile ? l->compile_argv : l->run_argv;
    char e[160];
    for (size_t i = 0; argv[i]; i++)
        if (expand(argv[i], v, out, &used, &out->argv[i], e, sizeof e) < 0)
            return snprintf(err, errlen, "language %s: %s: %s", l->name, compile ? "compile" : "run", e), -1;
    for (size_t i = 0; i < ndef; i++)
        out->env[n++] = def[i];
    for (size_t k = 0; k < (compile ? 2u : 1u); k++) {
        char *const *pe = k ? l->compile_env : l->env;
        for (size_t i = 0; pe[i]; i++) {
            const char *kv;
            if (expand(pe[i], v, out, &used, &kv, e, sizeof e) < 0)
                return snprintf(err, errlen, "language %s: env: %s", l->name, e), -1;
            env_set(out->env, &n, kv);
        }
    }
    for (size_t i = 0; i < njob; i++)
        env_set(out->env, &n, job_env[i]);
    out->env[n] = NULL;
    /* What the sandbox would refuse at run time is the job's to hear now. */
    size_t bytes = 0;
    for (size_t i = 0; out->argv[i]; i++)
        bytes += strlen(out->argv[i]) + 1;
    for (size_t i = 0; i < n; i++)
        bytes += strlen(out->env[i]) + 1;
    if (bytes > SBX_EXEC_BYTES_MAX)
        return snprintf(err, errlen, "language %s: its command and environment with the job's take %zu bytes, more "
                        "than %d", l->name, bytes, SBX_EXEC_BYTES_MAX), -1;
    return 0;
}

void wk_lang_cmd_free(wk_lang_cmd *c)
{
    free(c->env);
    c->env = NULL;
}

/* v times milli/1000, at most max. */
static uint64_t scale(uint64_t v, uint32_t milli, uint64_t max)
{
    unsigned __int128 x = (unsigned __int128)v * milli / 1000;
    return x > max ? max : x ? (uint64_t)x : 1;
}

void wk_lang_limits(const wk_lang *l, sbx_limits *lim, const sbx_limits *max)
{
    if (l->time_factor_milli) {
        uint64_t wall = lim->wall_ms ? lim->wall_ms : lim->cpu_ms > UINT64_MAX / 3 ? UINT64_MAX : 3 * lim->cpu_ms;
        lim->cpu_ms = scale(lim->cpu_ms, l->time_factor_milli, max->cpu_ms);
        lim->wall_ms = scale(wall, l->time_factor_milli, max->wall_ms);
    }
    lim->processes = lim->processes > UINT64_MAX - l->runtime_processes ? UINT64_MAX
                                                                        : lim->processes + l->runtime_processes;
}

uint64_t wk_lang_ceiling(const wk_lang *l, const sbx_limits *lim)
{
    int64_t v[WK_V_COUNT];
    char err[160];
    if (!l->heap[0] || vars_of(l, lim, v, err, sizeof err) < 0)
        return lim->memory_bytes;
    return (uint64_t)v[WK_V_HEAP_BYTES];
}

static bool holds(const char *buf, size_t len, const char *pattern)
{
    size_t n = strlen(pattern);
    return buf && len >= n && memmem(buf, len, pattern, n) != NULL;
}

bool wk_lang_oom(const wk_lang *l, const sbx_limits *lim, const sbx_result *r)
{
    if (!l->noom || (r->status != SBX_RUNTIME_ERROR && r->status != SBX_SIGNALED))
        return false;
    bool said = false;
    for (size_t i = 0; i < l->noom && !said; i++)
        said = holds(r->stderr_buf, r->stderr_len, l->oom[i]);
    uint64_t ceiling = wk_lang_ceiling(l, lim);
    return said && (unsigned __int128)r->memory_bytes * 100 >= (unsigned __int128)ceiling * WK_OOM_AGREE_PERCENT;
}
