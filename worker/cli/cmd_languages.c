/* cmd_languages.c -- `gradeq languages`: the presets of a languages file,
 * one a line, name first, with the version of each runtime as the box
 * runs it; --check runs their self-tests in real boxes (as the worker does
 * at start-up), --json prints one array for tools. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/cli/commands.h"
#include "worker/common/text.h"
#include "worker/lang/selftest.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq languages [--languages FILE] [--check] [--json] [NAME...]\n"
               "  Each preset: name, language, version, source, commands, and whether it is\n"
               "  available (its programs are where the box sees them) or why not.\n"
               "  --check   run the self-tests too (each preset's program, in the sandbox):\n"
               "            exit 1 when one of those listed fails\n"
               "  --json    one JSON array\n"
               "  NAME...   only these presets\n");
}

static void print_argv(FILE *f, char *const *argv, bool json)
{
    for (size_t i = 0; argv[i]; i++) {
        if (json) {
            fputs(i ? "," : "", f);
            wk_json_string(f, argv[i]);
        } else {
            fprintf(f, "%s%s", i ? " " : "", argv[i]);
        }
    }
}

static void print_plain(FILE *f, const wk_lang *l)
{
    fprintf(f, "%s\tlanguage=%s\tversion=%s\tsource=%s\tcompile=", l->name, l->title[0] ? l->title : l->name,
            l->version[0] ? l->version : "?", l->source);
    if (l->has_compile)
        print_argv(f, l->compile_argv, false);
    fputs("\trun=", f);
    print_argv(f, l->run_argv, false);
    if (!l->available)
        fprintf(f, "\tunavailable: %s\n", l->why);
    else if (l->checked)
        fprintf(f, "\tpassed (%.1f s)\n", l->check_ms / 1000.0);
    else
        fputs("\tavailable\n", f);
}

static void print_json(FILE *f, const wk_lang *l, bool first)
{
    fputs(first ? "{\"name\":" : ",{\"name\":", f);
    wk_json_string(f, l->name);
    fputs(",\"language\":", f);
    wk_json_string(f, l->title[0] ? l->title : l->name);
    fputs(",\"packages\":", f);
    wk_json_string(f, l->packages);
    fputs(",\"version\":", f);
    l->version[0] ? wk_json_string(f, l->version) : (void)fputs("null", f);
    fputs(",\"source\":", f);
    wk_json_string(f, l->source);
    fputs(",\"compile\":", f);
    if (l->has_compile) {
        fputc('[', f);
        print_argv(f, l->compile_argv, true);
        fputc(']', f);
    } else {
        fputs("null", f);
    }
    fputs(",\"run\":[", f);
    print_argv(f, l->run_argv, true);
    fprintf(f, "],\"available\":%s,\"why\":", l->available ? "true" : "false");
    l->available ? (void)fputs("null", f) : wk_json_string(f, l->why);
    fprintf(f, ",\"checked\":%s", l->checked ? "true" : "false");
    if (l->checked)
        fprintf(f, ",\"check_ms\":%llu", (unsigned long long)l->check_ms);
    if (l->time_factor_milli)
        fprintf(f, ",\"time_factor\":%g", l->time_factor_milli / 1000.0);
    fputc('}', f);
}

/* Marks in keep[] the presets named in names[0..n) (all when n is 0);
 * -1 when a name is not a preset. */
static int select_named(const wk_langs *l, char **names, int n, bool *keep)
{
    for (int i = 0; i < n; i++)
        if (!wk_lang_find(l, names[i])) {
            fputs("gradeq languages: no preset ", stderr);
            wk_json_string(stderr, names[i]);
            fputc('\n', stderr);
            return -1;
        }
    for (size_t i = 0; i < l->n; i++) {
        keep[i] = n == 0;
        for (int j = 0; j < n && !keep[i]; j++)
            keep[i] = strcmp(l->v[i].name, names[j]) == 0;
    }
    return 0;
}

int wk_cmd_languages(int argc, char **argv)
{
    const char *path = NULL;
    bool check = false, json = false;
    char err[512], *names[WK_LANG_MAX];
    int nnames = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--languages") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strcmp(argv[i], "--check") == 0)
            check = true;
        else if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(stdout), 0;
        else if (argv[i][0] != '-' && nnames < WK_LANG_MAX)
            names[nnames++] = argv[i];
        else
            return usage(stderr), 2;
    }
    wk_langs l;
    if (wk_langs_load(path, &l, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq languages: %s\n", err);
        return 2;
    }
    bool keep[WK_LANG_MAX];
    if (select_named(&l, names, nnames, keep) < 0) {
        wk_langs_free(&l);
        return 2;
    }
    sbx_host_options ho = { 0 };
    sbx_host *host = NULL;
    cpu_set_t cpus;
    unsigned ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? (unsigned)CPU_COUNT(&cpus) : 1;
    wk_check_opts o = { .parallel = ncpu, .selftest = check, .only = keep };
    int rc = 0;
    if (wk_langs_host_open(&l, &ho, &host, err, sizeof err) < 0 || wk_langs_check(&l, host, &o, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq languages: no versions, no self-tests: the sandbox cannot start: %s\n", err);
        rc = check ? 2 : 0;
    }
    sbx_host_close(host);
    fputs(json ? "[" : "", stdout);
    for (size_t i = 0, shown = 0; i < l.n; i++) {
        if (!keep[i])
            continue;
        json ? print_json(stdout, &l.v[i], shown++ == 0) : print_plain(stdout, &l.v[i]);
        if (check && !l.v[i].available && rc == 0)
            rc = 1;
    }
    fputs(json ? "]\n" : "", stdout);
    wk_langs_free(&l);
    return rc;
}
