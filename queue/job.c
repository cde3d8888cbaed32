/* job.c -- decode a job from untrusted msgpack; encode one for submission.
 *
 * DESIGN. Bytes reach msgpack-c only through q_unpack, so by the time this
 * file sees a msgpack_object every length and count is known to fit in the
 * input. Decoding picks the known keys out of the top-level map in one pass
 * (q_map_fields), then checks the fields in a fixed order, id first, so that
 * a job rejected for any later reason still carries its id. Encoding packs
 * the struct and then decodes what it packed, so the client and the worker
 * apply one set of rules.
 *
 * Invariants: every allocation is sized by a count already checked against
 * q_bounds, or by a length that lies inside the input; a job being decoded
 * is always in a state q_job_free can release (vectors are calloc'ed and
 * counts grow one element at a time); bytes from the job appear in error
 * messages only through quote(), which escapes them and caps their length.
 */
#include "queue/job.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Job bytes shown in an error message, at most this many: the longest
 * line, two quoted paths under "interactor.files", then fits Q_ERR_LEN. */
#define QUOTE_SHOWN 24
#define QUOTE_LEN (2 + QUOTE_SHOWN * 4 + 3 + 1)

typedef struct dec {
    const q_bounds *b;
    char *err;
    size_t errlen;
} dec;

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        (void)vsnprintf(err, errlen, fmt, ap); /* truncation is acceptable */
        va_end(ap);
    }
    return -1;
}

#define DFAIL(d, ...) fail((d)->err, (d)->errlen, __VA_ARGS__)

/* Writes p[0..n) as a double-quoted, escaped, length-capped string. */
static const char *quote(char out[QUOTE_LEN], const char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, i;

    out[o++] = '"';
    for (i = 0; i < n && i < QUOTE_SHOWN; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    if (i < n) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

static char *dup_bytes(const char *p, size_t n)
{
    char *s = malloc(n + 1);

    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

static int oom(dec *d, const char *pre, const char *field)
{
    return DFAIL(d, "%s%s: out of memory", pre, field);
}

static bool id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == ':' || c == '-';
}

static int decode_id(const msgpack_object *o, q_job *j, dec *d)
{
    char q[QUOTE_LEN];
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
        if (!id_char(p[i]))
            return DFAIL(d, "id: %s: byte %zu is not one of [A-Za-z0-9._:-]", quote(q, p, n), i);
    memcpy(j->id, p, n);
    j->id[n] = '\0';
    j->has_id = true;
    return 0;
}

static int decode_argv(const msgpack_object *o, const char *pre, q_prog *pg, dec *d)
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
        return oom(d, pre, "argv");
    for (size_t i = 0; i < o->via.array.size; i++) {
        if (!q_bytes(&o->via.array.ptr[i], &p, &n))
            return DFAIL(d, "%sargv[%zu]: not a string", pre, i);
        if (memchr(p, '\0', n))
            return DFAIL(d, "%sargv[%zu]: contains a NUL byte", pre, i);
        pg->argv[i] = dup_bytes(p, n);
        if (!pg->argv[i])
            return oom(d, pre, "argv");
        pg->argc = i + 1;
    }
    return 0;
}

/* NULL when p[0..n) may name a file under /box, else why not. */
static const char *path_problem(const char *p, size_t n)
{
    size_t start = 0;

    if (n == 0)
        return "empty path";
    if (n > Q_PATH_MAX)
        return "path over 255 bytes";
    if (memchr(p, '\0', n))
        return "path contains a NUL byte";
    if (p[0] == '/')
        return "absolute path escapes /box";
    for (size_t i = 0; i <= n; i++) {
        if (i < n && p[i] != '/')
            continue;
        if (i == start)
            return "empty path component";
        if (i - start == 1 && p[start] == '.')
            return "'.' path component";
        if (i - start == 2 && p[start] == '.' && p[start + 1] == '.')
            return "path escapes /box ('..' component)";
        start = i + 1;
    }
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Orders "K=V" strings by K alone. */
static int cmp_env_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
    int c = memcmp(x, y, nx < ny ? nx : ny);

    return c ? c : (nx > ny) - (nx < ny);
}

/* Index of the first of the n sorted strings not below key. */
static size_t lower_bound(char *const *s, size_t n, const char *key)
{
    size_t lo = 0, hi = n, mid;

    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (strcmp(s[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A path must not be given twice, nor be a file and a directory of another
 * file. s is sorted, so the paths under "a/" follow the first one not
 * below "a/"; the lookup is O(log n) per path whatever the paths hold. */
static int check_paths(char *const *s, size_t n, const char *pre, dec *d)
{
    char q[QUOTE_LEN], qdir[QUOTE_LEN], dir[Q_PATH_MAX + 2];
    size_t dn, k;

    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(s[i - 1], s[i]) == 0)
            return DFAIL(d, "%sfiles[%s]: duplicate path", pre, quote(q, s[i], strlen(s[i])));
        dn = strlen(s[i]);
        memcpy(dir, s[i], dn);
        memcpy(dir + dn, "/", 2);
        k = lower_bound(s, n, dir);
        if (k < n && strncmp(s[k], dir, dn + 1) == 0)
            return DFAIL(d, "%sfiles[%s]: %s is a file, not a directory", pre,
                         quote(q, s[k], strlen(s[k])), quote(qdir, s[i], dn));
    }
    return 0;
}

static int check_files_paths(const q_prog *pg, const char *pre, dec *d)
{
    char **names = malloc(pg->nfiles * sizeof *names);
    int rc;

    if (!names)
        return oom(d, pre, "files");
    for (size_t i = 0; i < pg->nfiles; i++)
        names[i] = pg->files[i].name;
    qsort(names, pg->nfiles, sizeof *names, cmp_str);
    rc = check_paths(names, pg->nfiles, pre, d);
    free(names);
    return rc;
}

static int decode_files(const msgpack_object *o, const char *pre, q_prog *pg, dec *d)
{
    char q[QUOTE_LEN];
    const msgpack_object_kv *kv;
    const char *why, *p, *data;
    size_t n;

    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "%sfiles: not a map", pre);
    if (o->via.map.size > d->b->max_files)
        return DFAIL(d, "%sfiles: %u entries exceeds the limit of %zu", pre,
                     (unsigned)o->via.map.size, d->b->max_files);
    if (o->via.map.size == 0)
        return 0;
    pg->files = calloc(o->via.map.size, sizeof *pg->files);
    if (!pg->files)
        return oom(d, pre, "files");
    for (size_t i = 0; i < o->via.map.size; i++) {
        kv = &o->via.map.ptr[i];
        if (!q_bytes(&kv->key, &p, &n))
            return DFAIL(d, "%sfiles: key %zu not a string", pre, i);
        why = path_problem(p, n);
        if (why)
            return DFAIL(d, "%sfiles[%s]: %s", pre, quote(q, p, n), why);
        if (!q_bytes(&kv->val, &data, &pg->files[i].len))
            return DFAIL(d, "%sfiles[%s]: not bytes (str or bin)", pre, quote(q, p, n));
        pg->files[i].data = data;
        pg->files[i].name = dup_bytes(p, n);
        if (!pg->files[i].name)
            return oom(d, pre, "files");
        pg->nfiles = i + 1;
    }
    return check_files_paths(pg, pre, d);
}

static int limit_index(const char *p, size_t n)
{
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if (strlen(q_limit_names[i]) == n && memcmp(q_limit_names[i], p, n) == 0)
            return i;
    return -1;
}

static int decode_limits(const msgpack_object *o, const char *pre, q_prog *pg, dec *d)
{
    char q[QUOTE_LEN];
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
        if (li < 0)
            return DFAIL(d, "%slimits[%s]: unknown limit", pre, quote(q, p, n));
        if (pg->limits_present & (1u << li))
            return DFAIL(d, "%slimits.%s: duplicate key", pre, q_limit_names[li]);
        if (kv->val.type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            return DFAIL(d, "%slimits.%s: not a non-negative integer", pre, q_limit_names[li]);
        pg->limits[li] = kv->val.via.u64;
        pg->limits_present |= 1u << li;
    }
    return 0;
}

/* v holds the values of job_keys[0..PROG_KEYS). */
static int decode_prog(const msgpack_object *const *v, const char *pre, q_prog *pg, dec *d)
{
    if (decode_argv(v[K_ARGV], pre, pg, d) < 0 || decode_files(v[K_FILES], pre, pg, d) < 0)
        return -1;
    return decode_limits(v[K_LIMITS], pre, pg, d);
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
static char *env_entry(const msgpack_object_kv *kv, size_t i, dec *d)
{
    char q[QUOTE_LEN];
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
        (void)DFAIL(d, "env[%s]: %s", quote(q, k, kn), why);
        return NULL;
    }
    s = malloc(kn + vn + 2);
    if (!s) {
        (void)oom(d, "", "env");
        return NULL;
    }
    memcpy(s, k, kn);
    s[kn] = '=';
    memcpy(s + kn + 1, v, vn);
    s[kn + 1 + vn] = '\0';
    return s;
}

static int check_env_unique(q_job *j, dec *d)
{
    char q[QUOTE_LEN];
    char **s;
    int rc = 0;

    if (j->nenv < 2)
        return 0;
    s = malloc(j->nenv * sizeof *s);
    if (!s)
        return oom(d, "", "env");
    memcpy(s, j->env, j->nenv * sizeof *s);
    qsort(s, j->nenv, sizeof *s, cmp_env_name);
    for (size_t i = 1; i < j->nenv && rc == 0; i++)
        if (cmp_env_name(&s[i - 1], &s[i]) == 0)
            rc = DFAIL(d, "env[%s]: duplicate key", quote(q, s[i], strcspn(s[i], "=")));
    free(s);
    return rc;
}

static int decode_env(const msgpack_object *o, q_job *j, dec *d)
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
        return oom(d, "", "env");
    for (size_t i = 0; i < o->via.map.size; i++) {
        j->env[i] = env_entry(&o->via.map.ptr[i], i, d);
        if (!j->env[i])
            return -1;
        j->nenv = i + 1;
    }
    return check_env_unique(j, d);
}

static int decode_interactor(const msgpack_object *o, q_job *j, dec *d)
{
    const msgpack_object *v[PROG_KEYS];
    unsigned dups;

    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "interactor: not a map");
    dups = q_map_fields(&o->via.map, job_keys, PROG_KEYS, v);
    if (dups)
        return DFAIL(d, "interactor: duplicate key \"%s\"", job_keys[__builtin_ctz(dups)]);
    j->has_interactor = true;
    return decode_prog(v, "interactor.", &j->interactor, d);
}

static int decode_scalars(const msgpack_object *const *v, q_job *j, dec *d)
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
    if (v[K_TRANSCRIPT]) {
        if (v[K_TRANSCRIPT]->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
            return DFAIL(d, "transcript_bytes: not a non-negative integer");
        j->transcript_bytes = v[K_TRANSCRIPT]->via.u64;
    }
    return 0;
}

static int decode_root(const msgpack_object *root, q_job *j, dec *d)
{
    const msgpack_object *v[JOB_KEYS];
    unsigned dups;

    if (root->type != MSGPACK_OBJECT_MAP)
        return DFAIL(d, "job: not a map");
    dups = q_map_fields(&root->via.map, job_keys, JOB_KEYS, v);
    if (dups & (1u << K_ID))
        return DFAIL(d, "job: duplicate key \"id\"");
    if (decode_id(v[K_ID], j, d) < 0)
        return -1;
    if (dups)
        return DFAIL(d, "job: duplicate key \"%s\"", job_keys[__builtin_ctz(dups)]);
    if (decode_prog(v, "", &j->prog, d) < 0 || decode_scalars(v, j, d) < 0 ||
        decode_env(v[K_ENV], j, d) < 0)
        return -1;
    return decode_interactor(v[K_INTERACTOR], j, d);
}

int q_job_decode(const void *buf, size_t len, const q_bounds *b, q_job *out,
                 char *err, size_t errlen)
{
    char why[Q_ERR_LEN], id[Q_ID_MAX + 1];
    msgpack_unpacked up;
    q_bounds defaults;
    dec d = {b, err, errlen};
    bool has_id;
    int rc;

    memset(out, 0, sizeof *out);
    if (!b) {
        q_bounds_default(&defaults);
        d.b = &defaults;
    }
    if (q_unpack(buf, len, d.b, &up, why, sizeof why) < 0)
        rc = DFAIL(&d, "job: %s", why);
    else
        rc = decode_root(&up.data, out, &d);
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

static void prog_free(q_prog *pg)
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
    prog_free(&j->prog);
    prog_free(&j->interactor);
    for (size_t i = 0; i < j->nenv; i++)
        free(j->env[i]);
    free(j->env);
    memset(j, 0, sizeof *j);
}

/* Encoding. */

typedef struct enc {
    msgpack_packer pk;
    char *err;
    size_t errlen;
} enc;

static int packed(enc *e, int rc)
{
    return rc < 0 ? fail(e->err, e->errlen, "job: out of memory") : 0;
}

/* msgpack-c casts every length and count to 32 bits without a check. */
static int fits(enc *e, size_t n)
{
    if (n > UINT32_MAX)
        return fail(e->err, e->errlen, "job: %zu items or bytes exceed msgpack's 32 bits", n);
    return 0;
}

static int put_map(enc *e, size_t n)
{
    return fits(e, n) < 0 ? -1 : packed(e, msgpack_pack_map(&e->pk, n));
}

static int put_array(enc *e, size_t n)
{
    return fits(e, n) < 0 ? -1 : packed(e, msgpack_pack_array(&e->pk, n));
}

static int put_str(enc *e, const void *p, size_t n)
{
    return fits(e, n) < 0 ? -1 : packed(e, msgpack_pack_str_with_body(&e->pk, p, n));
}

static int put_cstr(enc *e, const char *s)
{
    return put_str(e, s, strlen(s));
}

static int put_bin(enc *e, const char *key, const void *p, size_t n)
{
    if (put_cstr(e, key) < 0 || fits(e, n) < 0)
        return -1;
    return packed(e, msgpack_pack_bin_with_body(&e->pk, p, n));
}

static int put_uint(enc *e, const char *key, uint64_t v)
{
    return put_cstr(e, key) < 0 ? -1 : packed(e, msgpack_pack_uint64(&e->pk, v));
}

static int put_files(enc *e, const q_prog *pg)
{
    if (put_cstr(e, "files") < 0 || put_map(e, pg->nfiles) < 0)
        return -1;
    for (size_t i = 0; i < pg->nfiles; i++)
        if (put_bin(e, pg->files[i].name, pg->files[i].data, pg->files[i].len) < 0)
            return -1;
    return 0;
}

static int put_limits(enc *e, const q_prog *pg)
{
    size_t n = (size_t)__builtin_popcount(pg->limits_present);

    if (put_cstr(e, "limits") < 0 || put_map(e, n) < 0)
        return -1;
    for (int i = 0; i < Q_LIM_COUNT; i++)
        if ((pg->limits_present & (1u << i)) && put_uint(e, q_limit_names[i], pg->limits[i]) < 0)
            return -1;
    return 0;
}

static size_t prog_entries(const q_prog *pg)
{
    return 1 + (pg->nfiles > 0) + (pg->limits_present != 0);
}

/* Writes the argv, files and limits entries of pg, not a map header. */
static int put_prog(enc *e, const q_prog *pg)
{
    if (put_cstr(e, "argv") < 0 || put_array(e, pg->argc) < 0)
        return -1;
    for (size_t i = 0; i < pg->argc; i++)
        if (put_cstr(e, pg->argv[i]) < 0)
            return -1;
    if (pg->nfiles && put_files(e, pg) < 0)
        return -1;
    return pg->limits_present ? put_limits(e, pg) : 0;
}

static int put_env(enc *e, const q_job *j)
{
    size_t kn;

    if (put_cstr(e, "env") < 0 || put_map(e, j->nenv) < 0)
        return -1;
    for (size_t i = 0; i < j->nenv; i++) {
        kn = strcspn(j->env[i], "=");
        if (put_str(e, j->env[i], kn) < 0 || put_cstr(e, j->env[i] + kn + 1) < 0)
            return -1;
    }
    return 0;
}

static int put_interactor(enc *e, const q_prog *pg)
{
    if (put_cstr(e, "interactor") < 0 || put_map(e, prog_entries(pg)) < 0)
        return -1;
    return put_prog(e, pg);
}

static int put_job(enc *e, const q_job *j)
{
    size_t n = 2 + prog_entries(&j->prog) + j->has_stdin + (j->env != NULL) +
               j->has_interactor + (j->transcript_bytes != 0);

    if (put_map(e, n) < 0 || put_cstr(e, "id") < 0 || put_cstr(e, j->id) < 0 ||
        put_prog(e, &j->prog) < 0)
        return -1;
    if (j->has_stdin && put_bin(e, "stdin", j->stdin_data, j->stdin_len) < 0)
        return -1;
    if (j->env && put_env(e, j) < 0)
        return -1;
    if (put_cstr(e, "network") < 0 ||
        packed(e, j->network ? msgpack_pack_true(&e->pk) : msgpack_pack_false(&e->pk)) < 0)
        return -1;
    if (j->has_interactor && put_interactor(e, &j->interactor) < 0)
        return -1;
    if (j->transcript_bytes && put_uint(e, "transcript_bytes", j->transcript_bytes) < 0)
        return -1;
    return 0;
}

/* The pointers put_job follows must be there; everything else is left to
 * the decode that checks the result. */
static int check_pointers(const q_prog *pg, const char *pre, char *err, size_t errlen)
{
    if (pg->argc && !pg->argv)
        return fail(err, errlen, "%sargv: NULL with argc %zu", pre, pg->argc);
    for (size_t i = 0; i < pg->argc; i++)
        if (!pg->argv[i])
            return fail(err, errlen, "%sargv[%zu]: NULL", pre, i);
    if (pg->nfiles && !pg->files)
        return fail(err, errlen, "%sfiles: NULL with nfiles %zu", pre, pg->nfiles);
    for (size_t i = 0; i < pg->nfiles; i++)
        if (!pg->files[i].name || (!pg->files[i].data && pg->files[i].len))
            return fail(err, errlen, "%sfiles[%zu]: NULL name or data", pre, i);
    return 0;
}

static int check_job_pointers(const q_job *j, char *err, size_t errlen)
{
    if (check_pointers(&j->prog, "", err, errlen) < 0 ||
        (j->has_interactor && check_pointers(&j->interactor, "interactor.", err, errlen) < 0))
        return -1;
    if (j->has_stdin && !j->stdin_data && j->stdin_len)
        return fail(err, errlen, "stdin: NULL with %zu bytes", j->stdin_len);
    if (j->nenv && !j->env)
        return fail(err, errlen, "env: NULL with nenv %zu", j->nenv);
    for (size_t i = 0; i < j->nenv; i++)
        if (!j->env[i] || !strchr(j->env[i], '='))
            return fail(err, errlen, "env[%zu]: not a \"NAME=value\" string", i);
    if (!memchr(j->id, '\0', sizeof j->id))
        return fail(err, errlen, "id: not NUL-terminated");
    return 0;
}

int q_job_encode(const q_job *j, msgpack_sbuffer *out, char *err, size_t errlen)
{
    enc e = {.err = err, .errlen = errlen};
    size_t start = out->size;
    q_job check;
    int rc;

    if (check_job_pointers(j, err, errlen) < 0)
        return -1;
    msgpack_packer_init(&e.pk, out, msgpack_sbuffer_write);
    rc = put_job(&e, j);
    if (rc == 0) {
        rc = q_job_decode(out->data + start, out->size - start, NULL, &check, err, errlen);
        q_job_free(&check);
    }
    if (rc < 0)
        out->size = start;
    return rc;
}
