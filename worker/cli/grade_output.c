/* grade_output.c -- a grading result for people (a line per test, a
 * summary) and for tools (the grading members of the JSON object). Names
 * and messages are shown escaped where control bytes could reach a
 * terminal. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "worker/cli/grade_cli.h"

static void json_graded(FILE *f, const q_graded *t, bool test)
{
    fputs("{\"status\":", f);
    wk_json_string(f, t->status);
    fputs(",\"exit_code\":", f);
    t->has_exit_code ? fprintf(f, "%lld", (long long)t->exit_code) : fputs("null", f);
    fputs(",\"signal\":", f);
    t->has_signal ? fprintf(f, "%lld", (long long)t->signal) : fputs("null", f);
    fprintf(f, ",\"cpu_us\":%llu,\"wall_us\":%llu,\"memory_bytes\":%llu,\"stdout\":\"",
            (unsigned long long)t->cpu_us, (unsigned long long)t->wall_us, (unsigned long long)t->memory_bytes);
    wk_base64(f, t->stdout_buf, t->stdout_len);
    fputs("\",\"stderr\":\"", f);
    wk_base64(f, t->stderr_buf, t->stderr_len);
    fprintf(f, "\",\"stdout_truncated\":%s", t->stdout_truncated ? "true" : "false");
    if (test) {
        fputs(",\"name\":", f);
        wk_json_string(f, t->name);
        fputs(",\"checker_message\":", f);
        t->checker_message ? wk_json_string(f, t->checker_message) : (void)fputs("null", f);
    } else {
        fprintf(f, ",\"stderr_truncated\":%s", t->stderr_truncated ? "true" : "false");
    }
    fputc('}', f);
}

void wk_json_grade(FILE *f, const q_grade_result *g)
{
    if (g->has_compile) {
        fputs(",\"compile\":", f);
        json_graded(f, &g->compile, false);
    }
    fputs(",\"tests\":[", f);
    for (size_t i = 0; i < g->ntests; i++) {
        fputs(i ? "," : "", f);
        json_graded(f, &g->tests[i], true);
    }
    fprintf(f, "],\"passed\":%llu,\"total\":%llu", (unsigned long long)g->passed, (unsigned long long)g->total);
    if (g->time_factor_milli)
        fprintf(f, ",\"time_factor\":%g", g->time_factor_milli / 1000.0);
}

/* s with what is not text (wk_text_char) as '?', at most max bytes: a
 * result from the queue may hold any bytes. */
static void safe(FILE *f, const char *s, size_t max)
{
    size_t n = strnlen(s, max), k;
    for (size_t i = 0; i < n; i += k ? k : 1) {
        k = wk_text_char(s + i, n - i);
        k ? (void)fwrite(s + i, 1, k, f) : (void)fputc('?', f);
    }
}

void wk_print_test_line(FILE *f, const q_graded *t)
{
    fputs("test ", f);
    safe(f, t->name, Q_TEST_NAME_MAX);
    fprintf(f, "  %-16s", t->status);
    if (strcmp(t->status, "SKIPPED") != 0)
        fprintf(f, " %7.3f s %8.1f MiB", t->cpu_us / 1e6, t->memory_bytes / 1048576.0);
    if (t->checker_message) {
        fputs("  ", f);
        safe(f, t->checker_message, 256);
    }
    fputc('\n', f);
}

void wk_print_grade_plain(FILE *f, const q_result *r, bool lines)
{
    const q_grade_result *g = r->grade;
    if (lines)
        for (size_t i = 0; i < g->ntests; i++)
            wk_print_test_line(f, &g->tests[i]);
    if (strcmp(r->status, "COMPILE_ERROR") == 0) {
        fputs("compile error (", f);
        safe(f, g->has_compile ? g->compile.status : "?", 64);
        fputs(r->error ? "): " : ")", f);
        safe(f, r->error ? r->error : "", SIZE_MAX);
        fputc('\n', f);
        if (g->has_compile) {
            fwrite(g->compile.stderr_buf, 1, g->compile.stderr_len, f);
            fwrite(g->compile.stdout_buf, 1, g->compile.stdout_len, f);
        }
    }
    fprintf(f, "%llu/%llu passed", (unsigned long long)g->passed, (unsigned long long)g->total);
    for (size_t i = 0; i < g->ntests; i++) {
        const q_graded *t = &g->tests[i];
        if (strcmp(t->status, "OK") != 0 && strcmp(t->status, "SKIPPED") != 0) {
            fputs(", first failure: test ", f);
            safe(f, t->name, Q_TEST_NAME_MAX);
            fprintf(f, " %s", t->status);
            break;
        }
    }
    fprintf(f, " (%s)", r->status);
    if (g->time_factor_milli)
        fprintf(f, ", time limits x%g", g->time_factor_milli / 1000.0);
    fputc('\n', f);
}
