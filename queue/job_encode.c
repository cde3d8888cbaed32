/* job_encode.c -- encode a job for submission (see job.h).
 *
 * DESIGN. Encoding packs the struct and then decodes what it packed with
 * q_bounds_default, so the client and the worker apply one set of rules:
 * a job the encoder accepts is one a worker with default bounds accepts.
 * Only the pointers the packer follows are checked before packing.
 *
 * Invariants: a failed encode leaves the output buffer as it found it;
 * absent or default fields are left out, so every valid job has exactly
 * one encoding (the fuzzer checks it is a fixed point).
 */
#include <string.h>

#include "queue/codec_util.h"
#include "queue/err.h"
#include "queue/grade.h"
#include "queue/job.h"
#include "queue/job_decode.h"

static int put_bin(q_enc *e, const char *key, const void *p, size_t n)
{
    return q_enc_cstr(e, key) < 0 ? -1 : q_enc_bin(e, p, n);
}

int q_job_put_files(q_enc *e, const q_prog *pg)
{
    return q_enc_cstr(e, "files") < 0 ? -1 : q_job_put_files_map(e, pg);
}

int q_job_put_files_map(q_enc *e, const q_prog *pg)
{
    if (q_enc_map(e, pg->nfiles) < 0)
        return -1;
    for (size_t i = 0; i < pg->nfiles; i++)
        if (put_bin(e, pg->files[i].name, pg->files[i].data, pg->files[i].len) < 0)
            return -1;
    return 0;
}

int q_job_put_limits(q_enc *e, const q_prog *pg)
{
    size_t n = (size_t)__builtin_popcount(pg->limits_present);

    if (q_enc_cstr(e, "limits") < 0 || q_enc_map(e, n) < 0)
        return -1;
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if ((pg->limits_present & (1u << i)) &&
            q_enc_uint(e, q_limit_names[i], pg->limits[i]) < 0)
            return -1;
    return 0;
}

size_t q_job_prog_entries(const q_prog *pg)
{
    return (pg->argv != NULL) + (pg->nfiles > 0) + (pg->limits_present != 0);
}

/* Writes the argv (unless NULL: a language preset gives it), files and
 * limits entries of pg, not a map header. */
int q_job_put_prog(q_enc *e, const q_prog *pg)
{
    if (pg->argv && q_enc_strings(e, "argv", (const char *const *)pg->argv, pg->argc) < 0)
        return -1;
    if (pg->nfiles && q_job_put_files(e, pg) < 0)
        return -1;
    return pg->limits_present ? q_job_put_limits(e, pg) : 0;
}

static int put_env(q_enc *e, const q_job *j)
{
    size_t kn;

    if (q_enc_cstr(e, "env") < 0 || q_enc_map(e, j->nenv) < 0)
        return -1;
    for (size_t i = 0; i < j->nenv; i++) {
        kn = strcspn(j->env[i], "=");
        if (q_enc_str(e, j->env[i], kn) < 0 || q_enc_cstr(e, j->env[i] + kn + 1) < 0)
            return -1;
    }
    return 0;
}

static int put_interactor(q_enc *e, const q_prog *pg)
{
    if (q_enc_cstr(e, "interactor") < 0 || q_enc_map(e, q_job_prog_entries(pg)) < 0)
        return -1;
    return q_job_put_prog(e, pg);
}

static int put_job(q_enc *e, const q_job *j)
{
    size_t n = 2 + q_job_prog_entries(&j->prog) + j->has_stdin + (j->env != NULL) +
               j->has_interactor + (j->transcript_bytes != 0) + q_grade_entries(j->grade);

    if (q_enc_map(e, n) < 0 || q_enc_cstr(e, "id") < 0 || q_enc_cstr(e, j->id) < 0 ||
        q_job_put_prog(e, &j->prog) < 0)
        return -1;
    if (j->has_stdin && put_bin(e, "stdin", j->stdin_data, j->stdin_len) < 0)
        return -1;
    if (j->env && put_env(e, j) < 0)
        return -1;
    if (q_enc_bool(e, "network", j->network) < 0)
        return -1;
    if (j->has_interactor && put_interactor(e, &j->interactor) < 0)
        return -1;
    if (j->transcript_bytes && q_enc_uint(e, "transcript_bytes", j->transcript_bytes) < 0)
        return -1;
    return q_grade_put(e, j->grade);
}

/* The pointers put_job follows must be there; everything else is left to
 * the decode that checks the result. */
static int check_pointers(const q_prog *pg, const char *pre, char *err, size_t errlen)
{
    if (pg->argc && !pg->argv)
        return q_fail(err, errlen, "%sargv: NULL with argc %zu", pre, pg->argc);
    for (size_t i = 0; i < pg->argc; i++)
        if (!pg->argv[i])
            return q_fail(err, errlen, "%sargv[%zu]: NULL", pre, i);
    if (pg->nfiles && !pg->files)
        return q_fail(err, errlen, "%sfiles: NULL with nfiles %zu", pre, pg->nfiles);
    for (size_t i = 0; i < pg->nfiles; i++)
        if (!pg->files[i].name || (!pg->files[i].data && pg->files[i].len))
            return q_fail(err, errlen, "%sfiles[%zu]: NULL name or data", pre, i);
    return 0;
}

static int check_job_pointers(const q_job *j, char *err, size_t errlen)
{
    if (check_pointers(&j->prog, "", err, errlen) < 0 ||
        (j->has_interactor && check_pointers(&j->interactor, "interactor.", err, errlen) < 0))
        return -1;
    if (j->has_stdin && !j->stdin_data && j->stdin_len)
        return q_fail(err, errlen, "stdin: NULL with %zu bytes", j->stdin_len);
    if (j->nenv && !j->env)
        return q_fail(err, errlen, "env: NULL with nenv %zu", j->nenv);
    for (size_t i = 0; i < j->nenv; i++)
        if (!j->env[i] || !strchr(j->env[i], '='))
            return q_fail(err, errlen, "env[%zu]: not a \"NAME=value\" string", i);
    if (!memchr(j->id, '\0', sizeof j->id))
        return q_fail(err, errlen, "id: not NUL-terminated");
    return 0;
}

int q_job_encode(const q_job *j, msgpack_sbuffer *out, char *err, size_t errlen)
{
    size_t start = out->size;
    q_job check;
    q_enc e;
    int rc;

    if (check_job_pointers(j, err, errlen) < 0)
        return -1;
    q_enc_init(&e, out, "job", err, errlen);
    rc = put_job(&e, j);
    if (rc == 0) {
        rc = q_job_decode(out->data + start, out->size - start, NULL, &check, err, errlen);
        q_job_free(&check);
    }
    if (rc < 0)
        out->size = start;
    return rc;
}
