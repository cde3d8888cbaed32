/* job_decode.c -- decode a job from untrusted msgpack (see job.h); free one.
 *
 * DESIGN. Bytes reach msgpack-c only through q_unpack, so by the time this
 * file sees a msgpack_object every length and count is known to fit in the
 * input. Decoding picks the known keys out of the top-level map in one pass
 * (q_map_fields), then checks the fields in a fixed order, id first, so that
 * a job rejected for any later reason still carries its id. When q_unpack
 * refuses the bytes themselves, salvage_id looks for the id in the entries
 * before the refused object (q_prescan_lookup), so such a job can still be
 * answered under its id. The files map is decoded in job_files.c.
 *
 * Invariants: every allocation is sized by a count already checked against
 * q_bounds, or by a length that lies inside the input; a job being decoded
 * is always in a state q_job_free can release (vectors are calloc'ed and
 * counts grow one element at a time); bytes from the job appear in error
 * messages only through q_quote(), which escapes them and caps their length;
 * an id is only ever set when it obeys job_id.h and "id" was seen once.
 */
#include <stdlib.h>
#include <string.h>

#include "queue/codec_util.h"
#include "queue/grade.h"
#include "queue/job_decode.h"
#include "queue/job_id.h"

const char *const q_limit_names[Q_LIM_COUNT] = {
    "cpu_ms",       "wall_ms",      "memory_bytes", "stdout_bytes",
    "stderr_bytes", "processes",    "file_bytes",   "open_files",
};

/* Top-level keys. The interactor map uses the first PROG_KEYS of them. */
enum { K_ARGV, K_FILES, K_LIMITS, PROG_KEYS, K_ID = PROG_KEYS, K_STDIN, K_ENV,
       K_NETWORK, K_INTERACTOR, K_TRANSCRIPT, JOB_KEYS };
static const char *const job_keys[JOB_KEYS] = {
    "argv", "files", "limits", "id", "stdin", "env", "network", "interactor",
    "transcript_bytes",
};

static int decode_id(const msgpack_object *o, q_job *j, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    const char *p;
    size_t n;

    if (!o)
        return DFAIL(d, "id: missing");
    if (!q_bytes(o, &p, &n))
        return DFAIL(d, "id: not a string");
    if (n == 0)
        return DFAIL(d, "id: empty");
    if (n > Q_ID_MAX)
        return DFAIL(d, "id: %zu bytes exceeds the %d-byte limit", n, Q_ID_MAX);
    for (size_t i = 0; i < n; i++)
        if (!q_id_char(p[i]))
            return DFAIL(d, "id: %s: byte %zu is not one of " Q_ID_CHARS, q_quote(q, p, n), i);
    memcpy(j->id, p, n);
    j->id[n] = '\0';
    j->has_id = true;
    return 0;
}

static int decode_argv(const msgpack_object *o, const char *pre, q_prog *pg, q_job_dec *d)
{
    const char *p;
    size_t n;

    if (!o)
        return DFAIL(d, "%sargv: missing", pre);
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return DFAIL(d, "%sargv: not an array", pre);
    if (o->via.array.size == 0)
        return DFAIL(d, "%sargv: empty", pre);
    if (o->via.array.size > d->b->max_argv)
        return DFAIL(d, "%sargv: %u elements exceeds the limit of %zu", pre,
                     (unsigned)o->via.array.size, d->b->max_argv);
    pg->argv = calloc((size_t)o->via.array.size + 1, sizeof *pg->argv);
    if (!pg->argv)
        return q_job_oom(d, pre, "argv");
    for (size_t i = 0; i < o->via.array.size; i++) {
        if (!q_bytes(&o->via.array.ptr[i], &p, &n))
            return DFAIL(d, "%sargv[%zu]: not a string", pre, i);
        if (memchr(p, '\0', n))
            return DFAIL(d, "%sargv[%zu]: contains a NUL byte", pre, i);
        pg->argv[i] = q_dup_bytes(p, n);
        if (!pg->argv[i])
            return q_job_oom(d, pre, "argv");
        pg->argc = i + 1;
    }
    return 0;
}

static int limit_index(const char *p, size_t n)
{
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if (strlen(q_limit_names[i]) == n && memcmp(q_limit_names[i], p, n) == 0)
            return i;
    return -1;
}

int q_job_decode_limits(const msgpack_object *o, const char *pre, q_prog *pg, q_job_dec *d)
{
    const msgpack_object_kv *kv;
    const char *p;
    size_t n;
    int li;

    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "%slimits: not a map", pre);
    for (size_t i = 0; i < o->via.map.size; i++) {
        kv = &o->via.map.ptr[i];
        if (!q_bytes(&kv->key, &p, &n))
            return DFAIL(d, "%slimits: key %zu not a string", pre, i);
        li = limit_index(p, n);
        if (li < 0 || kv->val.type == MSGPACK_OBJECT_NIL)
            continue; /* unknown keys are ignored, nil is absent, as everywhere */
        if (pg->limits_present & (1u << li))
            return DFAIL(d, "%slimits.%s: duplicate key", pre, q_limit_names[li]);
        if (q_whole_number(&kv->val, &pg->limits[li]) < 0)
            return DFAIL(d, "%slimits.%s: not a non-negative integer", pre, q_limit_names[li]);
        if (!pg->limits[li] && (Q_LIM_POSITIVE & (1u << li)))
            return DFAIL(d, "%slimits.%s: 0, must be positive", pre, q_limit_names[li]);
        pg->limits_present |= 1u << li;
    }
    return 0;
}

/* v holds the values of job_keys[0..PROG_KEYS); argv may be absent only
 * when !need_argv (a language preset gives it). */
static int decode_prog(const msgpack_object *const *v, const char *pre, q_prog *pg, bool need_argv, q_job_dec *d)
{
    if (((need_argv || v[K_ARGV]) && decode_argv(v[K_ARGV], pre, pg, d) < 0) ||
        q_job_decode_files(v[K_FILES], pre, pg, d) < 0)
        return -1;
    return q_job_decode_limits(v[K_LIMITS], pre, pg, d);
}

/* NULL when k[0..n) may name an environment variable, else why not. */
static const char *env_key_problem(const char *k, size_t n)
{
    if (n == 0)
        return "empty key";
    if (memchr(k, '=', n))
        return "key contains '='";
    if (memchr(k, '\0', n))
        return "key contains a NUL byte";
    return NULL;
}

/* Builds "K=V" from one env entry, or fails naming it. */
static char *env_entry(const msgpack_object_kv *kv, size_t i, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    const char *k, *v, *why;
    size_t kn, vn;
    char *s;

    if (!q_bytes(&kv->key, &k, &kn)) {
        (void)DFAIL(d, "env: key %zu not a string", i);
        return NULL;
    }
    why = env_key_problem(k, kn);
    if (!why && !q_bytes(&kv->val, &v, &vn))
        why = "value not a string";
    if (!why && memchr(v, '\0', vn))
        why = "value contains a NUL byte";
    if (why) {
        (void)DFAIL(d, "env[%s]: %s", q_quote(q, k, kn), why);
        return NULL;
    }
    s = malloc(kn + vn + 2);
    if (!s) {
        (void)q_job_oom(d, "", "env");
        return NULL;
    }
    memcpy(s, k, kn);
    s[kn] = '=';
    memcpy(s + kn + 1, v, vn);
    s[kn + 1 + vn] = '\0';
    return s;
}

/* Orders "K=V" strings by K alone. */
static int cmp_env_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
    int c = memcmp(x, y, nx < ny ? nx : ny);

    return c ? c : (nx > ny) - (nx < ny);
}

static int check_env_unique(q_job *j, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    char **s;
    int rc = 0;

    if (j->nenv < 2)
        return 0;
    s = malloc(j->nenv * sizeof *s);
    if (!s)
        return q_job_oom(d, "", "env");
    memcpy(s, j->env, j->nenv * sizeof *s);
    qsort(s, j->nenv, sizeof *s, cmp_env_name);
    for (size_t i = 1; i < j->nenv && rc == 0; i++)
        if (cmp_env_name(&s[i - 1], &s[i]) == 0)
            rc = DFAIL(d, "env[%s]: duplicate key", q_quote(q, s[i], strcspn(s[i], "=")));
    free(s);
    return rc;
}

static int decode_env(const msgpack_object *o, q_job *j, q_job_dec *d)
{
    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "env: not a map");
    if (o->via.map.size > d->b->max_env)
        return DFAIL(d, "env: %u entries exceeds the limit of %zu",
                     (unsigned)o->via.map.size, d->b->max_env);
    j->env = calloc((size_t)o->via.map.size + 1, sizeof *j->env);
    if (!j->env)
        return q_job_oom(d, "", "env");
    for (size_t i = 0; i < o->via.map.size; i++) {
        j->env[i] = env_entry(&o->via.map.ptr[i], i, d);
        if (!j->env[i])
            return -1;
        j->nenv = i + 1;
    }
    return check_env_unique(j, d);
}

size_t q_exec_bytes(const char *const *argv, const char *const *extra, const char *const *env)
{
    size_t total = env ? 0 : Q_EXEC_DEFAULT_ENV;
    const char *const *lists[3] = { argv, extra, env };
    for (int k = 0; k < 3; k++)
        for (const char *const *v = lists[k]; v && *v; v++)
            total += strlen(*v) + 1;
    return total;
}

/* The Q_EXEC_ limits of job.h for one argv (with the strings `extra` the
 * worker appends) and the environment it runs with; pre names the argv. */
static int check_exec_size(const char *pre, char *const *argv, const char *const *extra, char *const *env,
                           q_job_dec *d)
{
    for (int pass = 0; pass < 2; pass++)
        for (char *const *v = pass ? env : argv; v && *v; v++) {
            size_t n = strlen(*v) + 1;
            if (n >= Q_EXEC_STRING_MAX)
                return DFAIL(d, "%s%s: a string of %zu bytes exceeds the limit of %u per string", pre,
                             pass ? "env" : "argv", n - 1, Q_EXEC_STRING_MAX - 1);
        }
    size_t total = q_exec_bytes((const char *const *)argv, extra, (const char *const *)env);
    if (total > Q_EXEC_BYTES_MAX)
        return DFAIL(d, "%sargv%s and env: %zu bytes (each string with its NUL) exceed the limit of %u", pre,
                     extra ? " (with input output answer)" : "", total, Q_EXEC_BYTES_MAX);
    return 0;
}

/* What the grading runs besides the job's argv, each with the env it runs
 * with: the compile step with the job's env (checked alone above, with
 * the default one), the checker with its three file names appended. */
static int check_grading_exec(const q_job *j, q_job_dec *d)
{
    static const char *const checker_args[] = { "input", "output", "answer", NULL };
    const q_grade *g = j->grade;
    if (!g)
        return 0;
    if (g->has_compile && check_exec_size("compile.", g->compile.argv, NULL, j->env, d) < 0)
        return -1;
    if (g->checker == Q_CHECK_PROGRAM && check_exec_size("checker.", g->checker_prog.argv, checker_args, NULL, d) < 0)
        return -1;
    return 0;
}

int q_job_decode_prog_map(const msgpack_object *o, const char *name, const char *pre, q_prog *pg, q_job_dec *d)
{
    const msgpack_object *v[PROG_KEYS];
    unsigned dups;

    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "%s: not a map", name);
    dups = q_map_fields(&o->via.map, job_keys, PROG_KEYS, v);
    q_nil_absent(v, PROG_KEYS);
    if (dups)
        return DFAIL(d, "%s: duplicate key \"%s\"", name, job_keys[__builtin_ctz(dups)]);
    return decode_prog(v, pre, pg, true, d) < 0 ? -1 : check_exec_size(pre, pg->argv, NULL, NULL, d);
}

/* The worker places the job's stdin as the interactor's file `input`: a
 * file of the interactor's own there (or under it) is one or the other.
 * Without stdin the interactor's own `input` is its input. */
static int decode_interactor(const msgpack_object *o, q_job *j, q_job_dec *d)
{
    char q[Q_QUOTE_LEN];
    if (!o)
        return 0;
    j->has_interactor = o->type == MSGPACK_OBJECT_MAP;
    if (q_job_decode_prog_map(o, "interactor", "interactor.", &j->interactor, d) < 0)
        return -1;
    for (size_t i = 0; j->has_stdin && i < j->interactor.nfiles; i++) {
        const char *n = j->interactor.files[i].name;
        if (strcmp(n, "input") == 0 || strncmp(n, "input/", 6) == 0)
            return DFAIL(d, "interactor.files[%s]: the job's stdin is placed at \"input\" (give one or the other)",
                         q_quote(q, n, strlen(n)));
    }
    return 0;
}

static int decode_scalars(const msgpack_object *const *v, q_job *j, q_job_dec *d)
{
    const char *data;

    if (v[K_STDIN]) {
        if (!q_bytes(v[K_STDIN], &data, &j->stdin_len))
            return DFAIL(d, "stdin: not bytes (str or bin)");
        j->stdin_data = data;
        j->has_stdin = true;
    }
    if (v[K_NETWORK]) {
        if (v[K_NETWORK]->type != MSGPACK_OBJECT_BOOLEAN)
            return DFAIL(d, "network: not a boolean");
        j->network = v[K_NETWORK]->via.boolean;
    }
    if (v[K_TRANSCRIPT] && q_whole_number(v[K_TRANSCRIPT], &j->transcript_bytes) < 0)
        return DFAIL(d, "transcript_bytes: not a non-negative integer");
    return 0;
}

static int decode_root(const msgpack_object *root, q_job *j, q_job_dec *d)
{
    const msgpack_object *v[JOB_KEYS];
    unsigned dups;

    if (root->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "job: not a map");
    dups = q_map_fields(&root->via.map, job_keys, JOB_KEYS, v);
    q_nil_absent(v, JOB_KEYS);
    if (dups & (1u << K_ID))
        return DFAIL(d, "job: duplicate key \"id\"");
    if (decode_id(v[K_ID], j, d) < 0)
        return -1;
    if (dups)
        return DFAIL(d, "job: duplicate key \"%s\"", job_keys[__builtin_ctz(dups)]);
    if (q_grade_decode(root, j, d) < 0 ||
        decode_prog(v, "", &j->prog, !(j->grade && j->grade->language), d) < 0 || decode_scalars(v, j, d) < 0 ||
        decode_env(v[K_ENV], j, d) < 0 || check_exec_size("", j->prog.argv, NULL, j->env, d) < 0 ||
        check_grading_exec(j, d) < 0 || decode_interactor(v[K_INTERACTOR], j, d) < 0)
        return -1;
    return 0;
}

/* For bytes q_unpack refused: the id from the entries of the top-level map
 * before the refused object, when "id" appears there once with a valid id.
 * Best effort: an "id" after the refused object is not seen. */
static void salvage_id(const void *buf, size_t len, const q_bounds *b, q_job *j)
{
    const char *p;
    size_t n;

    if (q_prescan_lookup(buf, len, b, "id", &p, &n) != 1 || !p || !q_id_valid(p, n))
        return;
    memcpy(j->id, p, n);
    j->id[n] = '\0';
    j->has_id = true;
}

int q_job_decode(const void *buf, size_t len, const q_bounds *b, q_job *out,
                 char *err, size_t errlen)
{
    char why[Q_ERR_LEN], id[Q_ID_MAX + 1];
    msgpack_unpacked up;
    q_bounds defaults;
    q_job_dec d = {b, err, errlen};
    bool has_id;
    int rc;

    memset(out, 0, sizeof *out);
    if (!b) {
        q_bounds_default(&defaults);
        d.b = &defaults;
    }
    if (q_unpack(buf, len, d.b, &up, why, sizeof why) < 0) {
        rc = DFAIL(&d, "job: %s", why);
        salvage_id(buf, len, d.b, out);
    } else {
        rc = decode_root(&up.data, out, &d);
    }
    msgpack_unpacked_destroy(&up);
    if (rc < 0) {
        has_id = out->has_id;
        memcpy(id, out->id, sizeof id);
        q_job_free(out);
        out->has_id = has_id;
        memcpy(out->id, id, sizeof id);
    }
    return rc;
}

void q_prog_free(q_prog *pg)
{
    for (size_t i = 0; i < pg->argc; i++)
        free(pg->argv[i]);
    free(pg->argv);
    for (size_t i = 0; i < pg->nfiles; i++)
        free(pg->files[i].name);
    free(pg->files);
}

void q_job_free(q_job *j)
{
    q_prog_free(&j->prog);
    q_prog_free(&j->interactor);
    q_grade_free(j->grade);
    for (size_t i = 0; i < j->nenv; i++)
        free(j->env[i]);
    free(j->env);
    memset(j, 0, sizeof *j);
}
