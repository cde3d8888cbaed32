/* kattis.c -- a Kattis/ICPC problem package (problem.yaml, data/sample,
 * data/secret, output_validators/) read into a problem (problem.h).
 *
 * From problem.yaml: the type (pass-fail is read; scoring and interactive
 * problems are refused, with why), the validation, validator_flags,
 * limits.time_limit (or DOMjudge's .timelimit file), limits.memory and
 * limits.output in MiB. Tests are data/sample then data/secret, each
 * NAME.in with NAME.ans, in lexicographic order as Kattis runs them (one
 * level of subfolders of secret read in order too), named sample/NAME and
 * secret/NAME; the first rejected test ends judging, as Kattis does.
 *
 * The answer rule: the default output validator as gradeq's token rule
 * (with a float tolerance flag, the float rule; the default validator's
 * other flags are refused), or the package's one output validator, built
 * from its single C, C++ or Python source (other files of its folder
 * placed beside it) and run by Kattis's convention.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "worker/common/text.h"
#include "worker/problem/numbers.h"
#include "worker/problem/problem.h"
#include "worker/problem/yaml.h"

typedef struct ky {
    wk_problem *p;
    char type[64], validation[64], flags[512];
    bool seen_type, seen_validation, seen_flags, seen_time, seen_memory, seen_output;
    bool interactive, scoring;
    char *err;
    size_t errlen;
} ky;

static int fail(ky *k, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(ky *k, size_t line, const char *fmt, ...)
{
    int n = snprintf(k->err, k->errlen, "%s/problem.yaml, line %zu: ", wk_mat_name(k->p->m), line);
    if (n >= 0 && (size_t)n < k->errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(k->err + n, k->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int once(ky *k, bool *seen, const wk_yaml_ev *ev)
{
    if (*seen)
        return fail(k, ev->line, "%s given twice", ev->key);
    *seen = true;
    return 0;
}

static int text(ky *k, char *dst, size_t size, const wk_yaml_ev *ev)
{
    if (ev->type != WK_YAML_SCALAR)
        return fail(k, ev->line, "%s: not a string", ev->key);
    if (ev->len >= size)
        return fail(k, ev->line, "%s: over %zu bytes", ev->key, size - 1);
    snprintf(dst, size, "%s", ev->null ? "" : ev->value);
    return 0;
}

/* A limit in `unit`s of problem.yaml: seconds (scale 3: milliseconds) or
 * MiB (scale 0, times 2^20). */
static int limit(ky *k, const wk_yaml_ev *ev, unsigned scale, uint64_t max, uint64_t *out)
{
    char q[WK_MAT_QUOTE_MAX];
    if (ev->type != WK_YAML_SCALAR || ev->null)
        return fail(k, ev->line, "limits.%s: not a number", ev->key);
    const char *why = wk_num_scaled(ev->value, ev->len, scale, max, out);
    if (!why && *out == 0)
        why = "is zero";
    if (why)
        return fail(k, ev->line, "limits.%s \"%s\" %s (at most %llu)", ev->key, wk_mat_quote(q, sizeof q, ev->value),
                    why, (unsigned long long)max);
    return 0;
}

static int on_event(void *ctx, const wk_yaml_ev *ev, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    ky *k = ctx;
    if (ev->depth == 0 && ev->type != WK_YAML_MAP && ev->type != WK_YAML_END)
        return fail(k, ev->line, "not a mapping of keys");
    if (ev->depth == 1 && ev->key) {
        if (strcmp(ev->key, "type") == 0) {
            if (once(k, &k->seen_type, ev) < 0)
                return -1;
            if (ev->type == WK_YAML_SCALAR)
                return text(k, k->type, sizeof k->type, ev);
            return 0; /* a list: its entries below */
        }
        if (strcmp(ev->key, "validation") == 0)
            return once(k, &k->seen_validation, ev) < 0 ? -1 : text(k, k->validation, sizeof k->validation, ev);
        if (strcmp(ev->key, "validator_flags") == 0)
            return once(k, &k->seen_flags, ev) < 0 ? -1 : text(k, k->flags, sizeof k->flags, ev);
        if (strcmp(ev->key, "limits") == 0 && ev->type == WK_YAML_SCALAR && !ev->null)
            return fail(k, ev->line, "limits: not a mapping");
        return 0;
    }
    if (ev->depth == 2 && ev->keys[1] && strcmp(ev->keys[1], "type") == 0 && ev->type == WK_YAML_SCALAR) {
        if (strcmp(ev->value, "interactive") == 0 || strcmp(ev->value, "multi-pass") == 0)
            k->interactive = true;
        else if (strcmp(ev->value, "scoring") == 0)
            k->scoring = true;
        return 0;
    }
    if (ev->depth == 2 && ev->keys[1] && strcmp(ev->keys[1], "limits") == 0 && ev->key) {
        wk_problem *p = k->p;
        if (strcmp(ev->key, "time_limit") == 0)
            return once(k, &k->seen_time, ev) < 0 ? -1 : limit(k, ev, 3, WK_PROBLEM_MAX_MS, &p->cpu_ms);
        if (strcmp(ev->key, "memory") == 0 || strcmp(ev->key, "output") == 0) {
            bool out = ev->key[0] == 'o';
            uint64_t mib;
            if (once(k, out ? &k->seen_output : &k->seen_memory, ev) < 0 || limit(k, ev, 0, 65536, &mib) < 0)
                return -1;
            *(out ? &p->output_bytes : &p->memory_bytes) = mib << 20;
        }
    }
    return 0;
}

static int refuse(ky *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(ky *k, const char *fmt, ...)
{
    int n = snprintf(k->err, k->errlen, "%s: ", wk_mat_name(k->p->m));
    if (n >= 0 && (size_t)n < k->errlen) {
        va_list ap;
        va_start(ap, fmt);
        wk_vformat_safe(k->err + n, k->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool ends(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n > m && strcmp(s + n - m, suf) == 0;
}

/* The tests of folder dir (data/sample, data/secret, or one below it),
 * NAME.in with NAME.ans, appended to p's; subfolders of secret too when
 * deeper is set. */
static int collect(ky *k, const char *dir, const char *label, bool deeper, q_test *t, size_t *n)
{
    wk_problem *p = k->p;
    const char *const *names;
    size_t count;
    char q[WK_MAT_QUOTE_MAX];
    int rc = wk_mat_list(p->m, dir, &names, &count, k->err, k->errlen);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    for (size_t i = 0; i < count; i++) {
        char path[Q_PATH_MAX + 2], sub[Q_PATH_MAX + 2];
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path)
            return refuse(k, "%s/%s: a path over %d bytes", dir, wk_mat_quote(q, sizeof q, names[i]), Q_PATH_MAX);
        wk_mat_kind kind = wk_mat_kind_of(p->m, path);
        if (kind == WK_MAT_DIR && deeper) {
            snprintf(sub, sizeof sub, "%s/%s", label, names[i]);
            if (collect(k, path, sub, false, t, n) < 0)
                return -1;
            continue;
        }
        if (kind == WK_MAT_DIR)
            return refuse(k, "%s: test folders nested deeper than data/secret/GROUP are not read",
                          wk_mat_quote(q, sizeof q, path));
        if (!ends(names[i], ".in"))
            continue;
        if (*n == Q_TESTS_MAX)
            return refuse(k, "more than %d tests", Q_TESTS_MAX);
        size_t base = strlen(names[i]) - 3;
        char name[Q_PATH_MAX + 2], ans[Q_PATH_MAX + 2];
        snprintf(name, sizeof name, "%s/%.*s", label, (int)base, names[i]);
        snprintf(ans, sizeof ans, "%.*s.ans", (int)(strlen(path) - 3), path);
        for (const char *c = name; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
                return refuse(k, "%s: a test name that is not printable ASCII", wk_mat_quote(q, sizeof q, path));
        if (strlen(name) > Q_TEST_NAME_MAX)
            return refuse(k, "%s: a test name over %d bytes", wk_mat_quote(q, sizeof q, path), Q_TEST_NAME_MAX);
        q_test *x = &t[(*n)++];
        if (!(x->name = strdup(name)))
            return refuse(k, "out of memory");
        x->named = true;
        if (wk_mat_read(p->m, path, &x->stdin_data, &x->stdin_len, k->err, k->errlen) != 0)
            return -1;
        rc = wk_mat_read(p->m, ans, &x->expected, &x->expected_len, k->err, k->errlen);
        if (rc > 0)
            return refuse(k, "%s has no %s", wk_mat_quote(q, sizeof q, path), "answer (NAME.ans)");
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int read_tests(ky *k)
{
    wk_problem *p = k->p;
    q_test *t = calloc(Q_TESTS_MAX, sizeof *t);
    size_t n = 0;
    if (!t)
        return refuse(k, "out of memory");
    int rc = collect(k, "data/sample", "sample", false, t, &n);
    if (rc == 0)
        rc = collect(k, "data/secret", "secret", true, t, &n);
    if (rc == 0 && n == 0)
        rc = refuse(k, "no tests (data/sample/NAME.in and data/secret/NAME.in, each with NAME.ans)");
    if (rc == 0 && wk_problem_tests(p, n, k->err, k->errlen) < 0)
        rc = -1;
    if (rc == 0)
        memcpy(p->tests, t, n * sizeof *t);
    else
        for (size_t i = 0; i < n; i++)
            free(t[i].name);
    free(t);
    return rc;
}

/* The default validator's flags: only a float tolerance is read. */
static int default_validator(ky *k)
{
    wk_problem *p = k->p;
    char buf[sizeof k->flags], *save, q[WK_MAT_QUOTE_MAX];
    snprintf(buf, sizeof buf, "%s", k->flags);
    p->checker = Q_CHECK_TOKENS;
    for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (strcmp(w, "float_tolerance") && strcmp(w, "float_relative_tolerance") &&
            strcmp(w, "float_absolute_tolerance"))
            return refuse(k, "problem.yaml: validator_flags %s: gradeq's token rule reads only a float tolerance",
                          wk_mat_quote(q, sizeof q, w));
        char *v = strtok_r(NULL, " \t", &save);
        uint64_t micro;
        if (!v || wk_num_scaled(v, strlen(v), 12, UINT64_MAX, &micro))
            return refuse(k, "problem.yaml: validator_flags %s needs a number", w);
        p->checker = Q_CHECK_FLOAT;
        p->eps = (double)micro / 1e12;
    }
    return 0;
}

/* The one output validator: output_validators/NAME/ or output_validator/. */
static int custom_validator(ky *k)
{
    wk_problem *p = k->p;
    const char *const *names, *const *files;
    size_t n, nf;
    char dir[Q_PATH_MAX + 1], q[WK_MAT_QUOTE_MAX], src[Q_PATH_MAX + 2] = "";
    if (k->flags[0])
        return refuse(k, "problem.yaml: validator_flags for a custom output validator: not passed (gradeq appends "
                         "input answer feedback_dir last)");
    if (wk_mat_kind_of(p->m, "output_validator") == WK_MAT_DIR) {
        snprintf(dir, sizeof dir, "output_validator");
    } else {
        int rc = wk_mat_list(p->m, "output_validators", &names, &n, k->err, k->errlen);
        if (rc < 0)
            return -1;
        if (rc > 0 || n != 1)
            return refuse(k, "validation is custom: one folder in output_validators/ (or output_validator/) was "
                             "expected, %zu found", rc > 0 ? 0 : n);
        if (snprintf(dir, sizeof dir, "output_validators/%s", names[0]) >= (int)sizeof dir)
            return refuse(k, "output_validators/: a name too long");
    }
    if (wk_mat_list(p->m, dir, &files, &nf, k->err, k->errlen) != 0)
        return refuse(k, "%s: not a folder", wk_mat_quote(q, sizeof q, dir));
    for (size_t i = 0; i < nf; i++) {
        char path[Q_PATH_MAX + 2];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        const char *dot = strrchr(files[i], '.');
        bool source = dot && (!strcasecmp(dot, ".c") || !strcasecmp(dot, ".cpp") || !strcasecmp(dot, ".cc") ||
                              !strcasecmp(dot, ".py"));
        if (!strcmp(files[i], "build") || !strcmp(files[i], "run"))
            return refuse(k, "%s: a build or run script (gradeq builds one source with its presets)",
                          wk_mat_quote(q, sizeof q, path));
        if (source) {
            if (src[0])
                return refuse(k, "%s: more than one source (one C, C++ or Python file is read)",
                              wk_mat_quote(q, sizeof q, dir));
            snprintf(src, sizeof src, "%s", path);
            continue;
        }
        if (wk_mat_kind_of(p->m, path) != WK_MAT_FILE)
            return refuse(k, "%s: only files are read beside the validator's source", wk_mat_quote(q, sizeof q, path));
        if (p->nheaders == WK_PROBLEM_HEADERS)
            return refuse(k, "%s: more than %d files", wk_mat_quote(q, sizeof q, dir), WK_PROBLEM_HEADERS);
        const void *data;
        size_t len;
        if (wk_mat_read(p->m, path, &data, &len, k->err, k->errlen) != 0)
            return -1;
        if (!(p->headers[p->nheaders].name = strdup(files[i])))
            return refuse(k, "out of memory");
        p->headers[p->nheaders].data = data;
        p->headers[p->nheaders++].len = len;
    }
    if (!src[0])
        return refuse(k, "%s: no source (a .c, .cpp or .py file)", wk_mat_quote(q, sizeof q, dir));
    p->checker = Q_CHECK_PROGRAM;
    p->convention = Q_CONV_KATTIS;
    return wk_problem_source(p, src, NULL, &p->checker_src, k->err, k->errlen);
}

int wk_kattis_read(wk_problem *p, char *err, size_t errlen)
{
    const void *y, *tl;
    size_t len, tlen;
    ky k = { .p = p, .err = err, .errlen = errlen };
    p->format = WK_FMT_KATTIS;
    int rc = wk_mat_read(p->m, "problem.yaml", &y, &len, err, errlen);
    if (rc != 0)
        return rc > 0 ? refuse(&k, "no problem.yaml") : -1;
    char perr[512] = "";
    k.err = perr;
    k.errlen = sizeof perr;
    rc = wk_yaml_parse(y, len, on_event, &k, perr, sizeof perr);
    k.err = err;
    k.errlen = errlen;
    if (rc < 0)
        return strstr(perr, "/problem.yaml") ? (snprintf(err, errlen, "%s", perr), -1)
                                             : refuse(&k, "problem.yaml: %s", perr);
    if (!strcmp(k.type, "interactive") || !strcmp(k.type, "multi-pass") || strstr(k.validation, "interactive"))
        k.interactive = true;
    if (!strcmp(k.type, "scoring") || strstr(k.validation, "score"))
        k.scoring = true;
    if (k.interactive)
        return refuse(&k, "an interactive problem: not read (its validator is an interactor by Kattis's conventions)");
    if (k.scoring)
        return refuse(&k, "a scoring problem: not read (its scores come from testdata.yaml and the validator)");
    if (k.type[0] && strcmp(k.type, "pass-fail"))
        return refuse(&k, "problem.yaml: type %s is not pass-fail", k.type);
    if (!k.seen_time) {
        rc = wk_mat_read(p->m, ".timelimit", &tl, &tlen, err, errlen);
        if (rc < 0)
            return -1;
        while (rc == 0 && tlen && (((const char *)tl)[tlen - 1] == '\n' || ((const char *)tl)[tlen - 1] == ' '))
            tlen--;
        const char *why = rc == 0 ? wk_num_scaled(tl, tlen, 3, WK_PROBLEM_MAX_MS, &p->cpu_ms) : "";
        if (why || !p->cpu_ms)
            return refuse(&k, rc > 0 ? "no time limit: limits.time_limit in problem.yaml, or a .timelimit file "
                                       "(Kattis's, computed from its accepted submissions, is not computed here)"
                                     : ".timelimit: not a number of seconds up to 60");
    }
    if (read_tests(&k) < 0)
        return -1;
    p->stop_on_failure = true;
    /* The 2023-07 format has no validation key: a validator folder says. */
    bool folder = wk_mat_kind_of(p->m, "output_validator") == WK_MAT_DIR ||
                  wk_mat_kind_of(p->m, "output_validators") == WK_MAT_DIR;
    if (!k.validation[0])
        return folder ? custom_validator(&k) : default_validator(&k);
    if (!strcmp(k.validation, "default"))
        return default_validator(&k);
    if (strcmp(k.validation, "custom"))
        return refuse(&k, "problem.yaml: validation %s is neither default nor custom", k.validation);
    return custom_validator(&k);
}
