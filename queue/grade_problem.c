/* grade_problem.c -- a grading job's problem on the wire (grade.h):
 * "problem", the name of one the worker holds, or "problem_files", a
 * package's files, checked as a program's files (job_files.c): relative
 * paths, no "." or "..", none twice, none under a file. What the files
 * hold is read by the worker (worker/problem/), never here.
 */
#include <stdlib.h>
#include <string.h>

#include "queue/codec_util.h"
#include "queue/grade.h"
#include "queue/job_decode.h"

static bool name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           (c == '.' && !first);
}

int q_grade_decode_problem(const msgpack_object *name, const msgpack_object *files, q_grade *g, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    const char *p;
    size_t n;
    if (name && files)
        return DFAIL(d, "problem: not with problem_files (one or the other)");
    if (files)
        return q_job_decode_files(files, "problem_", &g->problem_files, d) < 0 ? -1
               : g->problem_files.nfiles ? 0 : DFAIL(d, "problem_files: empty");
    if (!q_bytes(name, &p, &n))
        return DFAIL(d, "problem: not a string");
    if (n == 0 || n > Q_PROBLEM_NAME_MAX)
        return DFAIL(d, "problem: %zu bytes, not 1..%d", n, Q_PROBLEM_NAME_MAX);
    for (size_t i = 0; i < n; i++)
        if (!name_char(p[i], i == 0))
            return DFAIL(d, "problem: %s: byte %zu is not one of [A-Za-z0-9._-] (nor a leading '.')",
                         q_quote(q, p, n), i);
    g->problem = q_dup_bytes(p, n);
    return g->problem ? 0 : q_job_oom(d, "", "problem");
}

size_t q_grade_problem_entries(const q_grade *g)
{
    return (g->problem != NULL) + (g->problem_files.nfiles > 0);
}

int q_grade_put_problem(q_enc *e, const q_grade *g)
{
    if (g->problem && (q_enc_cstr(e, "problem") < 0 || q_enc_cstr(e, g->problem) < 0))
        return -1;
    if (!g->problem_files.nfiles)
        return 0;
    /* q_job_put_files writes "files": the same map under its own key. */
    if (q_enc_cstr(e, "problem_files") < 0)
        return -1;
    return q_job_put_files_map(e, &g->problem_files);
}
