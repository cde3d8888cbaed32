/* languages.c -- read the languages file (format: deploy/languages).
 *
 * The file is the operator's, read once; every line is checked and an
 * error names the file and the line. A preset is available when the first
 * word of its compile command (else of its run command, unless that is a
 * file of /box such as ./main) is an executable of the sandbox's PATH.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/engine/languages.h"

#define MAX_LANGS 64
/* The directories the sandbox's PATH holds (it sees /usr and /bin). */
static const char *const path_dirs[] = { "/usr/local/bin", "/usr/bin", "/bin" };

int wk_split_words(const char *cmd, char *buf, size_t bufsize, char **argv, size_t max, char *err, size_t errlen)
{
    if (strlen(cmd) >= bufsize)
        return snprintf(err, errlen, "command too long"), -1;
    char *out = buf;
    size_t n = 0;
    for (const char *p = cmd; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        if (n + 1 >= max)
            return snprintf(err, errlen, "more than %zu words", max - 1), -1;
        argv[n++] = out;
        char quote = 0;
        for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
            if (!quote && (*p == '\'' || *p == '"'))
                quote = *p;
            else if (quote && *p == quote)
                quote = 0;
            else
                *out++ = *p;
        }
        if (quote)
            return snprintf(err, errlen, "unbalanced quote"), -1;
        *out++ = 0;
    }
    argv[n] = NULL;
    if (!n)
        return snprintf(err, errlen, "empty command"), -1;
    return (int)n;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

static bool installed(const char *prog)
{
    char p[PATH_MAX];
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    for (size_t i = 0; i < sizeof path_dirs / sizeof path_dirs[0]; i++)
        if (snprintf(p, sizeof p, "%s/%s", path_dirs[i], prog) < (int)sizeof p && access(p, X_OK) == 0)
            return true;
    return false;
}

/* The compiler and the interpreter must be there; a program the compile
 * step builds in /box (./main) is not looked for. */
static void check_available(wk_lang *l)
{
    const char *need[2] = { l->has_compile ? l->compile_argv[0] : NULL, l->run_argv[0] };
    l->available = true;
    for (int i = 0; i < 2 && l->available; i++) {
        if (!need[i] || (i == 1 && l->has_compile && strncmp(need[i], "./", 2) == 0) || installed(need[i]))
            continue;
        l->available = false;
        snprintf(l->why, sizeof l->why, "%s is not installed", need[i]);
    }
}

static int set_limit(wk_lang *l, const char *key, const char *val, char *why, size_t whylen)
{
    bool compile = strncmp(key, "compile.", 8) == 0;
    const char *name = compile ? key + 8 : key;
    for (int i = 0; i < Q_LIM_COUNT; i++) {
        if (strcmp(name, q_limit_names[i]) != 0)
            continue;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(val, &end, 10);
        if (errno || end == val || *end || *val == '-')
            return snprintf(why, whylen, "%s: \"%s\" is not a non-negative integer", key, val), -1;
        if (!v && (Q_LIM_POSITIVE & (1u << i)))
            return snprintf(why, whylen, "%s: 0, must be positive", key), -1;
        (compile ? l->compile_limits : l->limits)[i] = v;
        *(compile ? &l->compile_given : &l->limits_given) |= 1u << i;
        return 0;
    }
    return snprintf(why, whylen, "unknown key \"%s\"", key), -1;
}

static int set_key(wk_lang *l, const char *key, const char *val, char *why, size_t whylen)
{
    if (strcmp(key, "source") == 0) {
        if (!*val || strlen(val) > Q_PATH_MAX || val[0] == '/' || strstr(val, ".."))
            return snprintf(why, whylen, "source: not a relative file name"), -1;
        snprintf(l->source, sizeof l->source, "%s", val);
        return 0;
    }
    if (strcmp(key, "compile") == 0 || strcmp(key, "run") == 0) {
        bool c = key[0] == 'c';
        char e[64];
        if (wk_split_words(val, c ? l->compile_buf : l->run_buf, sizeof l->run_buf, c ? l->compile_argv : l->run_argv,
                           WK_LANG_ARGS, e, sizeof e) < 0)
            return snprintf(why, whylen, "%s: %s", key, e), -1;
        l->has_compile |= c;
        return 0;
    }
    return set_limit(l, key, val, why, whylen);
}

static int finish(wk_lang *l, char *why, size_t whylen)
{
    if (!l->source[0] || !l->run_argv[0])
        return snprintf(why, whylen, "[%s] needs source and run", l->name), -1;
    check_available(l);
    return 0;
}

static int parse(FILE *f, wk_langs *out, char *why, size_t whylen, int *lineno)
{
    char line[2048];
    wk_lang *cur = NULL;
    while (fgets(line, sizeof line, f)) {
        ++*lineno;
        if (!strchr(line, '\n') && !feof(f))
            return snprintf(why, whylen, "line too long"), -1;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            size_t n = end ? (size_t)(end - s - 1) : 0;
            const char *blank = strpbrk(s + 1, " \t");
            if (!end || end[1] || n == 0 || n > Q_LANGUAGE_MAX || (blank && blank < end))
                return snprintf(why, whylen, "a section is [NAME], NAME 1..%d visible characters", Q_LANGUAGE_MAX), -1;
            if (cur && finish(cur, why, whylen) < 0)
                return -1;
            if (out->n == MAX_LANGS)
                return snprintf(why, whylen, "more than %d presets", MAX_LANGS), -1;
            cur = &out->v[out->n++];
            memcpy(cur->name, s + 1, n);
            cur->name[n] = 0;
            if (wk_lang_find(out, cur->name) != cur)
                return snprintf(why, whylen, "[%s] given twice", cur->name), -1;
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
    out->v = calloc(MAX_LANGS, sizeof *out->v);
    char why[192] = "out of memory";
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
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return &l->v[i];
    return NULL;
}

static void print_argv(FILE *f, char *const *argv)
{
    for (size_t i = 0; argv[i]; i++)
        fprintf(f, "%s%s", i ? " " : "", argv[i]);
}

void wk_langs_print(const wk_langs *l, FILE *f)
{
    for (size_t i = 0; i < l->n; i++) {
        const wk_lang *g = &l->v[i];
        fprintf(f, "%s\tsource=%s\tcompile=", g->name, g->source);
        if (g->has_compile)
            print_argv(f, g->compile_argv);
        fputs("\trun=", f);
        print_argv(f, g->run_argv);
        fprintf(f, "\t%s%s\n", g->available ? "available" : "unavailable: ", g->available ? "" : g->why);
    }
}
