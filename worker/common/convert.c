/* convert.c -- a job becomes a sandbox spec; a sandbox result becomes a
 * wire result. Limits: the job's own over the sandbox's defaults, each
 * clamped to the worker's maxima (a job may ask for less, never more). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/convert.h"
#include "worker/engine/interact.h"

/* A job the decoder accepted always fits the sandbox's exec request. */
_Static_assert(Q_EXEC_BYTES_MAX <= SBX_EXEC_BYTES_MAX, "a decoded job's argv and env fit the sandbox");

static uint64_t *limit_field(sbx_limits *l, int i)
{
    uint64_t *f[Q_LIM_COUNT] = { &l->cpu_ms, &l->wall_ms, &l->memory_bytes, &l->stdout_bytes,
                                 &l->stderr_bytes, &l->processes, &l->file_bytes, &l->open_files };
    return f[i];
}

void wk_limits_most(sbx_limits *l)
{
    *l = (sbx_limits){ .cpu_ms = SBX_LIMIT_MS_MAX, .wall_ms = SBX_LIMIT_MS_MAX, .memory_bytes = SBX_LIMIT_MEMORY_MAX,
                       .stdout_bytes = SBX_LIMIT_STREAM_MAX, .stderr_bytes = SBX_LIMIT_STREAM_MAX,
                       .processes = SBX_LIMIT_PROCESSES_MAX, .file_bytes = UINT64_MAX,
                       .open_files = SBX_LIMIT_OPEN_FILES_MAX };
}

int wk_limits_refused(const sbx_limits *l, char *why, size_t whylen)
{
    sbx_limits c = *l, most;
    wk_limits_most(&most);
    for (int i = 0; i < Q_LIM_COUNT; i++) {
        uint64_t v = *limit_field(&c, i), m = *limit_field(&most, i);
        if (!v && (Q_LIM_POSITIVE & (1u << i)))
            return snprintf(why, whylen, "0, must be positive"), i;
        if (v > m)
            return snprintf(why, whylen, "%llu is more than the sandbox takes (%llu)", (unsigned long long)v,
                            (unsigned long long)m), i;
    }
    return -1;
}

int wk_spec_from_prog(const q_prog *p, const sbx_limits *max, const sbx_file *extra, sbx_spec *spec,
                      sbx_file **files, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    sbx_limits_default(&spec->limits);
    sbx_limits m = *max;
    for (int i = 0; i < Q_LIM_COUNT; i++) {
        uint64_t *v = limit_field(&spec->limits, i), cap = *limit_field(&m, i);
        if (p->limits_present & (1u << i))
            *v = p->limits[i];
        if (*v > cap)
            *v = cap;
    }
    if (!spec->limits.wall_ms) {
        /* The sandbox's 3x cpu default, still under the worker's maximum. */
        uint64_t wall = 3 * spec->limits.cpu_ms;
        spec->limits.wall_ms = wall < m.wall_ms ? wall : m.wall_ms;
    }
    if (!spec->limits.cpu_ms || !spec->limits.memory_bytes || !spec->limits.processes || !spec->limits.open_files)
        return snprintf(err, errlen, "limits: cpu_ms, memory_bytes, processes and open_files must be positive"), -1;
    size_t n = p->nfiles + (extra != NULL);
    *files = NULL;
    if (n) {
        *files = calloc(n, sizeof **files);
        if (!*files)
            return snprintf(err, errlen, "out of memory for %zu files", n), -1;
    }
    for (size_t i = 0; i < p->nfiles; i++)
        (*files)[i] = (sbx_file){ p->files[i].name, p->files[i].data, p->files[i].len, true };
    if (extra)
        (*files)[p->nfiles] = *extra;
    spec->argv = (const char *const *)p->argv;
    spec->files = *files;
    spec->nfiles = n;
    return 0;
}

int wk_spec_from_job(const q_job *j, const sbx_limits *max, sbx_spec *spec, sbx_file **files, char *err,
                     size_t errlen)
{
    if (wk_spec_from_prog(&j->prog, max, NULL, spec, files, err, errlen) < 0)
        return -1;
    spec->env = (const char *const *)j->env;
    spec->stdin_data = j->has_stdin ? j->stdin_data : NULL;
    spec->stdin_len = j->has_stdin ? j->stdin_len : 0;
    return 0;
}

void wk_result_to_wire(const sbx_result *r, const char *id, const char *worker, uint64_t attempt,
                       const char **names, q_result *out)
{
    memset(out, 0, sizeof *out);
    out->id = id;
    out->status = sbx_status_name(r->status);
    out->has_exit_code = r->exit_code >= 0;
    out->exit_code = r->exit_code;
    out->has_signal = r->signal != 0;
    out->signal = r->signal;
    out->stdout_buf = r->stdout_buf;
    out->stdout_len = r->stdout_len;
    out->stdout_truncated = r->stdout_truncated;
    out->stderr_buf = r->stderr_buf;
    out->stderr_len = r->stderr_len;
    out->stderr_truncated = r->stderr_truncated;
    out->cpu_us = r->cpu_us;
    out->wall_us = r->wall_us;
    out->memory_bytes = r->memory_bytes;
    out->worker = worker;
    out->attempt = attempt;
    out->error = r->error[0] ? r->error : NULL;
    out->nisolation = sbx_isolation_names(r->isolation, names, WK_ISO_MAX);
    out->isolation = names;
}

void wk_pair_to_wire(const wk_pair *p, const char *id, const char *worker, uint64_t attempt, const char **names,
                     q_result *out)
{
    wk_result_to_wire(&p->prog, id, worker, attempt, names, out);
    out->status = p->status;
    out->error = p->message[0] ? p->message : NULL;
    const sbx_result *i = &p->inter;
    out->has_interactor = true;
    out->transcript = p->transcript;
    out->transcript_len = p->transcript_len;
    out->interactor = (q_proc_result){
        .status = sbx_status_name(i->status), .has_exit_code = i->exit_code >= 0, .exit_code = i->exit_code,
        .has_signal = i->signal != 0, .signal = i->signal, .stderr_buf = i->stderr_buf,
        .stderr_len = i->stderr_len, .cpu_us = i->cpu_us, .wall_us = i->wall_us, .memory_bytes = i->memory_bytes,
    };
}
