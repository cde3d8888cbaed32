/* languages.c -- read the languages file (format: deploy/languages).
 *
 * The file is the operator's, read once; every line is checked and an
 * error names the file and the line. Placeholders are tried against the
 * default limits while reading, so a mistake in one stops the start
 * instead of failing jobs. Whether each preset's programs are there is
 * probe.c's to say, once its section is complete.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/common/sizes.h"
#include "worker/common/words.h"
#include "worker/lang/expr.h"
#include "worker/lang/languages.h"

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* The values placeholders see with the sandbox's default limits: what a
 * placeholder is tried with while the file is read. */
static void sample_vars(const wk_lang *l, int64_t *v, char *why, size_t whylen, int *rc)
{
    sbx_limits d;
    sbx_limits_default(&d);
    int64_t mb = (int64_t)(d.memory_bytes >> 20);
    int64_t vals[WK_V_COUNT] = { mb, mb * 1024, (int64_t)d.memory_bytes, mb, mb * 1024, (int64_t)d.memory_bytes,
                                 mb, mb * 1024, (int64_t)d.cpu_ms, 3 * (int64_t)d.cpu_ms, (int64_t)d.processes,
                                 (int64_t)d.open_files };
    memcpy(v, vals, sizeof vals);
    *rc = 0;
    if (l->heap[0] && wk_expr_eval(l->heap, strlen(l->heap), v, &v[WK_V_HEAP_MB], why, whylen) < 0)
        *rc = -1;
    v[WK_V_HEAP_KB] = v[WK_V_HEAP_MB] * 1024;
    v[WK_V_HEAP_BYTES] = v[WK_V_HEAP_MB] << 20;
}

/* Every placeholder of words must expand with the default limits. */
static int try_placeholders(const wk_lang *l, const char *key, char *const *words, char *why, size_t whylen)
{
    int64_t v[WK_V_COUNT];
    char e[128], out[1024];
    int rc;
    sample_vars(l, v, e, sizeof e, &rc);
    for (size_t i = 0; words[i] && rc == 0; i++)
        if (wk_expand(words[i], v, out, sizeof out, e, sizeof e) < 0)
            return snprintf(why, whylen, "%s: %s", key, e), -1;
    return 0;
}

static int parse_limit(const char *key, const char *val, uint64_t *out, char *why, size_t whylen)
{
    bool size = strstr(key, "bytes") != NULL;
    if ((size ? wk_parse_size(val, out) : wk_parse_uint(val, out)) < 0)
        return snprintf(why, whylen, "%s: \"%s\" is not a %s", key, val,
                        size ? "size (bytes, or with K, M or G)" : "non-negative integer"), -1;
    return 0;
}

static int set_limit(wk_lang *l, const char *key, const char *val, char *why, size_t whylen)
{
    bool compile = strncmp(key, "compile.", 8) == 0;
    const char *name = compile ? key + 8 : key;
    for (int i = 0; i < Q_LIM_COUNT; i++) {
        if (strcmp(name, q_limit_names[i]) != 0)
            continue;
        uint64_t *v = &(compile ? l->compile_limits : l->limits)[i];
        if (parse_limit(key, val, v, why, whylen) < 0)
            return -1;
        if (!*v && (Q_LIM_POSITIVE & (1u << i)))
            return snprintf(why, whylen, "%s: 0, must be positive", key), -1;
        *(compile ? &l->compile_given : &l->limits_given) |= 1u << i;
        return 0;
    }
    return snprintf(why, whylen, "unknown key \"%s\"", key), -1;
}

/* Appends the words of val to list (at most max), their bytes in
 * buf[*used..]. */
static int add_words(const char *key, const char *val, char *buf, size_t bufsize, size_t *used, char **list,
                     size_t *n, size_t max, char *why, size_t whylen)
{
    char *words[WK_LANG_ENV + 1], e[64];
    int k = wk_split_braced(val, buf + *used, bufsize - *used, words, sizeof words / sizeof words[0], true, e, sizeof e);
    if (k < 0)
        return snprintf(why, whylen, "%s: %s", key, e), -1;
    if (*n + (size_t)k > max)
        return snprintf(why, whylen, "%s: more than %zu in all", key, max), -1;
    for (int i = 0; i < k; i++)
        list[(*n)++] = words[i];
    *used += (size_t)(words[k - 1] + strlen(words[k - 1]) + 1 - (buf + *used));
    list[*n] = NULL;
    return 0;
}

static int check_env(char *const *env, size_t n, char *why, size_t whylen)
{
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(env[i], '=');
        bool ok = eq && eq != env[i] && !isdigit((unsigned char)env[i][0]);
        for (const char *p = env[i]; ok && p < eq; p++)
            ok = isalnum((unsigned char)*p) || *p == '_';
        if (!ok)
            return snprintf(why, whylen, "env: \"%.40s\" is not NAME=VALUE", env[i]), -1;
    }
    return 0;
}

/* A read-only path for every box: absolute and plain (no "..", "//", "."
 * parts or trailing "/"), printable, and not one of the box's own trees. */
static int check_path(const char *p, char *why, size_t whylen)
{
    static const char *const own[] = { "/proc", "/dev", "/box", "/tmp", "/sys" };
    bool ok = p[0] == '/' && p[1] && p[strlen(p) - 1] != '/' && !strstr(p, "//") && !strstr(p, "/./") &&
              !strstr(p, "/../") && strcmp(p + strlen(p) - 2, "/.") != 0 && strcmp(p + strlen(p) - 3, "/..") != 0 &&
              strlen(p) < 256;
    for (const char *c = p; ok && *c; c++)
        ok = *c > ' ' && *c < 127;
    for (size_t i = 0; ok && i < sizeof own / sizeof own[0]; i++) {
        size_t n = strlen(own[i]);
        ok = !(strncmp(p, own[i], n) == 0 && (p[n] == 0 || p[n] == '/'));
    }
    if (!ok)
        return snprintf(why, whylen, "paths: \"%.60s\" is not a plain absolute path outside /proc, /dev, /sys, /box "
                                     "and /tmp", p), -1;
    return 0;
}

/* "2", "1.5", "1.25": more time for each test, in thousandths. */
static int set_factor(wk_lang *l, const char *val, char *why, size_t whylen)
{
    uint64_t whole = 0, frac = 0, scale = 1000;
    const char *p = val;
    for (; isdigit((unsigned char)*p) && whole <= 100; p++)
        whole = whole * 10 + (uint64_t)(*p - '0');
    if (*p == '.' && isdigit((unsigned char)p[1]))
        for (p++; isdigit((unsigned char)*p) && scale > 1; p++)
            frac += (uint64_t)(*p - '0') * (scale /= 10);
    uint64_t milli = whole * 1000 + frac;
    if (p == val || *p || milli == 0 || milli > 100000)
        return snprintf(why, whylen, "time_factor: \"%s\" is not a number above 0 and at most 100, with up to three "
                                     "decimals", val), -1;
    l->time_factor_milli = milli == 1000 ? 0 : (uint32_t)milli;
    return 0;
}

/* The self-test program: one line, with \n, \t and \\ for what a line
 * cannot hold. */
static int set_selftest(wk_lang *l, const char *val, char *why, size_t whylen)
{
    size_t n = 0;
    for (const char *p = val; *p; p++) {
        char c = *p;
        if (c == '\\') {
            c = p[1] == 'n' ? '\n' : p[1] == 't' ? '\t' : p[1] == '\\' ? '\\' : 0;
            if (!c)
                return snprintf(why, whylen, "selftest: only \\n, \\t and \\\\ are escapes"), -1;
            p++;
        }
        if (n + 1 >= sizeof l->selftest)
            return snprintf(why, whylen, "selftest: longer than %zu bytes", sizeof l->selftest - 1), -1;
        l->selftest[n++] = c;
    }
    l->selftest[n] = 0;
    l->selftest_len = n;
    return 0;
}

static int set_command(wk_lang *l, const char *key, const char *val, char *why, size_t whylen)
{
    char e[64], **argv = key[0] == 'c' ? l->compile_argv : key[0] == 'r' ? l->run_argv : l->version_argv;
    char *buf = key[0] == 'c' ? l->compile_buf : key[0] == 'r' ? l->run_buf : l->version_buf;
    size_t size = key[0] == 'c' ? sizeof l->compile_buf : key[0] == 'r' ? sizeof l->run_buf : sizeof l->version_buf;
    if (wk_split_braced(val, buf, size, argv, WK_LANG_ARGS, key[0] != 'v', e, sizeof e) < 0)
        return snprintf(why, whylen, "%s: %s", key, e), -1;
    l->has_compile |= key[0] == 'c';
    return key[0] == 'v' ? 0 : try_placeholders(l, key, argv, why, whylen);
}

static int set_text(char *field, size_t size, const char *key, const char *val, char *why, size_t whylen)
{
    if (strlen(val) >= size)
        return snprintf(why, whylen, "%s: longer than %zu characters", key, size - 1), -1;
    snprintf(field, size, "%s", val);
    return 0;
}

static size_t env_used(const wk_lang *l)
{
    size_t used = 0;
    for (size_t i = 0; i < l->nenv; i++)
        used = (size_t)(l->env[i] + strlen(l->env[i]) + 1 - l->env_buf);
    for (size_t i = 0; i < l->ncompile_env; i++)
        used = (size_t)(l->compile_env[i] + strlen(l->compile_env[i]) + 1 - l->env_buf) > used
                   ? (size_t)(l->compile_env[i] + strlen(l->compile_env[i]) + 1 - l->env_buf)
                   : used;
    return used;
}

static int set_key(wk_lang *l, const char *key, const char *val, char *why, size_t whylen)
{
    if (strcmp(key, "source") == 0) {
        if (!*val || strlen(val) > Q_PATH_MAX || val[0] == '/' || strstr(val, ".."))
            return snprintf(why, whylen, "source: not a relative file name"), -1;
        snprintf(l->source, sizeof l->source, "%s", val);
        return 0;
    }
    if (strcmp(key, "compile") == 0 || strcmp(key, "run") == 0 || strcmp(key, "version") == 0)
        return set_command(l, key, val, why, whylen);
    if (strcmp(key, "language") == 0)
        return set_text(l->title, sizeof l->title, key, val, why, whylen);
    if (strcmp(key, "packages") == 0)
        return set_text(l->packages, sizeof l->packages, key, val, why, whylen);
    if (strcmp(key, "env") == 0 || strcmp(key, "compile.env") == 0) {
        bool c = key[0] == 'c';
        size_t used = env_used(l), *n = c ? &l->ncompile_env : &l->nenv, from = *n;
        char **list = c ? l->compile_env : l->env;
        if (add_words(key, val, l->env_buf, sizeof l->env_buf, &used, list, n, WK_LANG_ENV - 1, why, whylen) < 0 ||
            check_env(list + from, *n - from, why, whylen) < 0)
            return -1;
        return try_placeholders(l, key, list + from, why, whylen);
    }
    if (strcmp(key, "paths") == 0) {
        size_t used = l->npaths ? (size_t)(l->paths[l->npaths - 1] + strlen(l->paths[l->npaths - 1]) + 1 -
                                           l->paths_buf) : 0, from = l->npaths;
        if (add_words(key, val, l->paths_buf, sizeof l->paths_buf, &used, l->paths, &l->npaths, WK_LANG_PATHS - 1,
                      why, whylen) < 0)
            return -1;
        for (size_t i = from; i < l->npaths; i++)
            if (check_path(l->paths[i], why, whylen) < 0)
                return -1;
        return 0;
    }
    if (strcmp(key, "heap_mb") == 0) {
        if (set_text(l->heap, sizeof l->heap, key, val, why, whylen) < 0)
            return -1;
        int64_t v[WK_V_COUNT];
        char e[96];
        int rc;
        sample_vars(l, v, e, sizeof e, &rc);
        if (rc == 0 && strstr(val, "heap_"))
            snprintf(e, sizeof e, "heap_mb cannot name heap_mb, heap_kb or heap_bytes"), rc = -1;
        return rc < 0 ? snprintf(why, whylen, "heap_mb: %s", e), -1 : 0;
    }
    if (strcmp(key, "oom") == 0) {
        size_t used = l->noom ? (size_t)(l->oom[l->noom - 1] + strlen(l->oom[l->noom - 1]) + 1 - l->oom_buf) : 0;
        if (!*val || l->noom + 1 >= WK_LANG_OOM || strlen(val) + 1 > sizeof l->oom_buf - used)
            return snprintf(why, whylen, "oom: a pattern, at most %d of them in %zu bytes", WK_LANG_OOM - 1,
                            sizeof l->oom_buf), -1;
        l->oom[l->noom++] = strcpy(l->oom_buf + used, val);
        return 0;
    }
    if (strcmp(key, "runtime_processes") == 0) {
        if (wk_parse_uint(val, &l->runtime_processes) < 0 || l->runtime_processes > 4096)
            return snprintf(why, whylen, "runtime_processes: an integer from 0 to 4096"), -1;
        return 0;
    }
    if (strcmp(key, "time_factor") == 0)
        return set_factor(l, val, why, whylen);
    if (strcmp(key, "selftest") == 0)
        return set_selftest(l, val, why, whylen);
    return set_limit(l, key, val, why, whylen);
}

static int finish(wk_lang *l, char *why, size_t whylen)
{
    if (!l->source[0] || !l->run_argv[0])
        return snprintf(why, whylen, "[%s] needs source and run", l->name), -1;
    /* Placeholders written before heap_mb was are tried again with it. */
    if (try_placeholders(l, "run", l->run_argv, why, whylen) < 0 ||
        (l->has_compile && try_placeholders(l, "compile", l->compile_argv, why, whylen) < 0) ||
        try_placeholders(l, "env", l->env, why, whylen) < 0 ||
        try_placeholders(l, "compile.env", l->compile_env, why, whylen) < 0)
        return -1;
    wk_lang_probe(l);
    return 0;
}

static int section(char *s, wk_langs *out, wk_lang **cur, char *why, size_t whylen)
{
    char *end = strchr(s, ']');
    size_t n = end ? (size_t)(end - s - 1) : 0;
    const char *blank = strpbrk(s + 1, " \t");
    if (!end || end[1] || n == 0 || n > Q_LANGUAGE_MAX || (blank && blank < end))
        return snprintf(why, whylen, "a section is [NAME], NAME 1..%d visible characters", Q_LANGUAGE_MAX), -1;
    if (*cur && finish(*cur, why, whylen) < 0)
        return -1;
    if (out->n == WK_LANG_MAX)
        return snprintf(why, whylen, "more than %d presets", WK_LANG_MAX), -1;
    *cur = &out->v[out->n++];
    memcpy((*cur)->name, s + 1, n);
    (*cur)->name[n] = 0;
    if (wk_lang_find(out, (*cur)->name) != *cur)
        return snprintf(why, whylen, "[%s] given twice", (*cur)->name), -1;
    return 0;
}

static int parse(FILE *f, wk_langs *out, char *why, size_t whylen, int *lineno)
{
    char line[WK_SELFTEST_MAX * 2 + 64];
    wk_lang *cur = NULL;
    while (fgets(line, sizeof line, f)) {
        ++*lineno;
        if (!strchr(line, '\n') && !feof(f))
            return snprintf(why, whylen, "line too long"), -1;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        if (*s == '[') {
            if (section(s, out, &cur, why, whylen) < 0)
                return -1;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq || !cur)
            return snprintf(why, whylen, cur ? "expected KEY = VALUE" : "expected a [NAME] section first"), -1;
        *eq = 0;
        if (set_key(cur, trim(s), trim(eq + 1), why, whylen) < 0)
            return -1;
    }
    if (ferror(f))
        return snprintf(why, whylen, "%s", strerror(errno)), -1;
    return cur ? finish(cur, why, whylen) : 0;
}

/* The default file's path: found beside the executable. */
static int default_path(char *out, size_t size)
{
    const char *env = getenv("GRADEQ_LANGUAGES");
    if (env && *env)
        return snprintf(out, size, "%s", env) < (int)size ? 0 : -1;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = 0;
    static const char *const rel[] = { "../share/gradeq/languages", "../deploy/languages" };
    for (size_t i = 0; i < 2; i++)
        if (snprintf(out, size, "%s/%s", exe, rel[i]) < (int)size && access(out, R_OK) == 0)
            return 0;
    return -1;
}

int wk_langs_load(const char *path, wk_langs *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (path)
        snprintf(out->path, sizeof out->path, "%s", path);
    else if (default_path(out->path, sizeof out->path) < 0)
        return snprintf(err, errlen, "no languages file (give --languages FILE; deploy/languages is the default)"),
               -1;
    FILE *f = fopen(out->path, "r");
    if (!f)
        return snprintf(err, errlen, "%s: %s", out->path, strerror(errno)), -1;
    out->v = calloc(WK_LANG_MAX, sizeof *out->v);
    char why[256] = "out of memory";
    int line = 0, rc = out->v ? parse(f, out, why, sizeof why, &line) : -1;
    fclose(f);
    if (rc < 0) {
        snprintf(err, errlen, "%s:%d: %s", out->path, line, why);
        wk_langs_free(out);
    }
    return rc;
}

void wk_langs_free(wk_langs *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

const wk_lang *wk_lang_find(const wk_langs *l, const char *name)
{
    for (size_t i = 0; l && i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return &l->v[i];
    return NULL;
}

/* The union of the presets' read-only paths, NULL-terminated, pointing
 * into l. */
static size_t paths_of(const wk_langs *l, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; l && i < l->n; i++)
        for (size_t k = 0; k < l->v[i].npaths; k++) {
            bool dup = false;
            for (size_t j = 0; j < n && !dup; j++)
                dup = strcmp(out[j], l->v[i].paths[k]) == 0;
            if (!dup && n + 1 < max)
                out[n++] = l->v[i].paths[k];
        }
    out[n] = NULL;
    return n;
}

int wk_langs_host_open(const wk_langs *l, const sbx_host_options *o, sbx_host **out, char *err, size_t errlen)
{
    const char *paths[WK_LANG_MAX * WK_LANG_PATHS + 1];
    paths_of(l, paths, sizeof paths / sizeof paths[0]);
    *out = NULL;
    if (sbx_host_open(out, o, err, errlen) < 0)
        return -1;
    if (sbx_host_ro_paths(*out, paths, err, errlen) < 0) {
        sbx_host_close(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}
