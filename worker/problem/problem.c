/* problem.c -- which kind of problem a material holds, and reading it
 * (problem.h): problem.xml is Polygon's, problem.yaml Kattis's, init.yml
 * DMOJ's, else a folder of tests. An archive (a regular file given as
 * the problem) is read into memory first and is the material.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "worker/common/readfile.h"
#include "worker/problem/groups.h"
#include "worker/problem/problem.h"
#include "worker/problem/testdir.h"
#include "worker/problem/zip.h"

const char *wk_format_name(wk_format f)
{
    static const char *const n[] = { "tests", "polygon", "kattis", "dmoj" };
    return f <= WK_FMT_DMOJ ? n[f] : "?";
}

void wk_problem_free(wk_problem *p)
{
    for (size_t i = 0; p->tests && i < p->ntests; i++) {
        free(p->tests[i].name);
        for (size_t k = 0; p->ptests && k < p->ptests[i].nargs; k++)
            free(p->ptests[i].args[k]);
    }
    free(p->tests);
    free(p->ptests);
    wk_groups_free(p->groups, p->ngroups);
    for (size_t i = 0; i < p->nchecker_flags; i++)
        free(p->checker_flags[i]);
    for (size_t i = 0; i < p->ngens; i++)
        free(p->gen_names[i]);
    for (size_t i = 0; i < p->nheaders; i++)
        free(p->headers[i].name);
    wk_mat_close(p->m);
    wk_mat_close(p->data);
    void *zips[] = { p->archive, p->data_archive };
    for (size_t i = 0; i < 2; i++)
        if (zips[i]) {
            wk_zip_free(zips[i]);
            free(zips[i]);
        }
    memset(p, 0, sizeof *p);
}

int wk_problem_tests(wk_problem *p, size_t n, char *err, size_t errlen)
{
    if (n == 0)
        return snprintf(err, errlen, "%s: no tests", wk_mat_name(p->m)), -1;
    if (n > Q_TESTS_MAX)
        return snprintf(err, errlen, "%s: %zu tests (at most %d)", wk_mat_name(p->m), n, Q_TESTS_MAX), -1;
    p->tests = calloc(n, sizeof *p->tests);
    p->ptests = calloc(n, sizeof *p->ptests);
    if (!p->tests || !p->ptests)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t i = 0; i < n; i++)
        p->ptests[i].gen = -1;
    p->ntests = n;
    return 0;
}

static bool digits(const char *s)
{
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The language preset a package's type (Polygon's "cpp.g++17", DMOJ's
 * "CPP17") or else a file name's extension means; NULL: none gradeq has. */
static const char *language_of(const char *type, const char *path)
{
    if (type && *type) {
        if (strncmp(type, "cpp.", 4) == 0 || (strncmp(type, "CPP", 3) == 0 && digits(type + 3)))
            return "cpp";
        if (strncmp(type, "c.", 2) == 0 || strcmp(type, "C") == 0 || strcmp(type, "C11") == 0)
            return "c";
        if (strcmp(type, "python.3") == 0 || strcmp(type, "python.pypy3") == 0 || strcmp(type, "PY3") == 0 ||
            strcmp(type, "PYPY3") == 0)
            return "python3";
        return NULL;
    }
    const char *dot = strrchr(path, '.');
    static const struct { const char *ext, *lang; } exts[] = {
        { ".cpp", "cpp" }, { ".cc", "cpp" }, { ".cxx", "cpp" }, { ".c", "c" }, { ".py", "python3" },
    };
    for (size_t i = 0; dot && i < sizeof exts / sizeof exts[0]; i++)
        if (strcasecmp(dot, exts[i].ext) == 0)
            return exts[i].lang;
    return NULL;
}

int wk_problem_source(wk_problem *p, const char *path, const char *type, wk_source *out, char *err, size_t errlen)
{
    char q[WK_MAT_QUOTE_MAX], qt[WK_MAT_QUOTE_MAX];
    const char *lang = language_of(type, path);
    if (!lang)
        return snprintf(err, errlen, "%s/%s: a source in %s%s%s, which gradeq builds with no preset (C, C++ and "
                        "Python 3 are read)", wk_mat_name(p->m), wk_mat_quote(q, sizeof q, path),
                        type && *type ? "language \"" : "a language of unknown extension",
                        type && *type ? wk_mat_quote(qt, sizeof qt, type) : "", type && *type ? "\"" : ""), -1;
    const void *data;
    size_t len;
    int rc = wk_mat_read(p->m, path, &data, &len, err, errlen);
    if (rc > 0)
        return snprintf(err, errlen, "%s/%s: no such file (the package names it)", wk_mat_name(p->m),
                        wk_mat_quote(q, sizeof q, path)), -1;
    if (rc < 0)
        return -1;
    *out = (wk_source){ NULL, data, len, "" };
    snprintf(out->lang, sizeof out->lang, "%s", lang);
    /* The path as the material's listing keeps it, for messages. */
    const q_file *read;
    size_t n;
    read = wk_mat_files_read(p->m, &n);
    for (size_t i = n; i-- > 0;)
        if (strcmp(read[i].name, path) == 0) {
            out->path = read[i].name;
            break;
        }
    return 0;
}

static int read_tests_folder(wk_problem *p, char *err, size_t errlen)
{
    q_test *t;
    size_t n;
    if (wk_testdir_read(p->m, "", true, &t, &n, err, errlen) < 0)
        return -1;
    p->format = WK_FMT_TESTS;
    p->tests = t;
    p->ntests = n;
    p->ptests = calloc(n, sizeof *p->ptests);
    if (!p->ptests)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t i = 0; i < n; i++)
        p->ptests[i].gen = -1;
    p->checker = Q_CHECK_LINES;
    return 0;
}

int wk_problem_read(wk_mat *m, wk_problem *p, char *err, size_t errlen)
{
    void *archive = p->archive; /* the archive m's files live in, if any */
    memset(p, 0, sizeof *p);
    p->m = m;
    p->archive = archive;
    int rc;
    if (wk_mat_kind_of(m, "problem.xml") != WK_MAT_NONE)
        rc = wk_polygon_read(p, err, errlen);
    else if (wk_mat_kind_of(m, "problem.yaml") != WK_MAT_NONE)
        rc = wk_kattis_read(p, err, errlen);
    else if (wk_mat_kind_of(m, "init.yml") != WK_MAT_NONE)
        rc = wk_dmoj_read(p, err, errlen);
    else {
        rc = read_tests_folder(p, err, errlen);
        if (rc < 0 && strstr(err, ": no tests ("))
            snprintf(err, errlen, "%s: not a problem: no problem.xml (Polygon), problem.yaml (Kattis), "
                     "init.yml (DMOJ), nor tests (NAME.in with NAME.out or NAME.ans, or NN with NN.a)",
                     wk_mat_name(m));
    }
    if (rc < 0)
        wk_problem_free(p);
    return rc;
}

int wk_problem_open(const char *path, const wk_problem_opts *o, wk_problem *p, char *err, size_t errlen)
{
    char q[WK_MAT_QUOTE_MAX];
    struct stat st;
    wk_mat_opts mo = { .allow_hardlinks = o && o->allow_hardlinks, .max_bytes = o ? o->max_bytes : 0 };
    uint64_t max = mo.max_bytes ? mo.max_bytes : WK_MAT_BYTES_DEFAULT;
    memset(p, 0, sizeof *p);
    if (stat(path, &st) < 0)
        return snprintf(err, errlen, "%s: %s", wk_mat_quote(q, sizeof q, path), strerror(errno)), -1;
    wk_mat *m;
    if (S_ISDIR(st.st_mode)) {
        if (wk_mat_open_dir(path, &mo, &m, err, errlen) < 0)
            return -1;
        return wk_problem_read(m, p, err, errlen);
    }
    char *buf;
    size_t len;
    if (wk_read_file(path, max, &buf, &len, err, errlen) < 0)
        return -1;
    wk_zip *z = calloc(1, sizeof *z);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int rc = z ? wk_zip_read(buf, len, base, max, z, err, errlen) : (snprintf(err, errlen, "out of memory"), -1);
    free(buf);
    if (rc == 0)
        rc = wk_mat_open_mem(z->files, z->n, base, &mo, &m, err, errlen);
    if (rc < 0) {
        if (z)
            wk_zip_free(z);
        free(z);
        return -1;
    }
    p->archive = z;
    return wk_problem_read(m, p, err, errlen);
}
