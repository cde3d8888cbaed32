/* grade_output.c -- a grading result for people (a line per test, a
 * summary) and for tools (the grading members of the JSON object). Every
 * string is shown escaped, and the compiler's output on a terminal (it
 * quotes the student's source byte for byte). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "queue/stream.h"
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
        char a[Q_POINTS_TEXT], b[Q_POINTS_TEXT];
        fputs(",\"name\":", f);
        wk_json_string(f, t->name);
        fputs(",\"checker_message\":", f);
        t->checker_message ? wk_json_string(f, t->checker_message) : (void)fputs("null", f);
        fputs(",\"group\":", f);
        t->group ? wk_json_string(f, t->group) : (void)fputs("null", f);
        fprintf(f, ",\"score\":%s,\"max_score\":%s", q_points_format(t->score, a), q_points_format(t->max_score, b));
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
    fputc(']', f);
    char a[Q_POINTS_TEXT], b[Q_POINTS_TEXT];
    if (g->ngroups) {
        fputs(",\"groups\":[", f);
        for (size_t i = 0; i < g->ngroups; i++) {
            const q_group_result *gr = &g->groups[i];
            fputs(i ? ",{\"name\":" : "{\"name\":", f);
            wk_json_string(f, gr->name);
            fputs(",\"status\":", f);
            wk_json_string(f, gr->status);
            fprintf(f, ",\"score\":%s,\"max_score\":%s,\"message\":", q_points_format(gr->score, a),
                    q_points_format(gr->max_score, b));
            gr->message ? wk_json_string(f, gr->message) : (void)fputs("null", f);
            fputc('}', f);
        }
        fputc(']', f);
    }
    /* Scores as JSON numbers: decimal text, exact as written. */
    fprintf(f, ",\"passed\":%llu,\"total\":%llu,\"score\":%s,\"max_score\":%s", (unsigned long long)g->passed,
            (unsigned long long)g->total, q_points_format(g->score, a), q_points_format(g->max_score, b));
    if (g->time_factor_milli)
        fprintf(f, ",\"time_factor\":%g", g->time_factor_milli / 1000.0);
}

/* s escaped (wk_text_write), at most max bytes: a result from the queue
 * may hold any bytes. */
static void safe(FILE *f, const char *s, size_t max)
{
    wk_text_write(f, s, strnlen(s, max), false);
}

/* "score/max" */
static void score(FILE *f, q_points got, q_points max)
{
    char a[Q_POINTS_TEXT], b[Q_POINTS_TEXT];
    fprintf(f, "%s/%s", q_points_format(got, a), q_points_format(max, b));
}

void wk_print_test_line(FILE *f, const q_graded *t)
{
    fputs("test ", f);
    safe(f, t->name, Q_TEST_NAME_MAX);
    char st[4 * Q_STATUS_MAX + 1];
    wk_text_escape(st, sizeof st, t->status);
    fprintf(f, "  %-16s", st);
    if (strcmp(t->status, "SKIPPED") != 0)
        fprintf(f, " %7.3f s %8.1f MiB", t->cpu_us / 1e6, t->memory_bytes / 1048576.0);
    fputs("  ", f);
    score(f, t->score, t->max_score);
    if (t->checker_message) {
        fputs("  ", f);
        safe(f, t->checker_message, 256);
    }
    fputc('\n', f);
}

static void print_group(FILE *f, const q_group_result *g)
{
    fputs("group ", f);
    safe(f, g->name, Q_TEST_NAME_MAX);
    fputs("  ", f);
    safe(f, g->status, 64);
    fputs("  ", f);
    score(f, g->score, g->max_score);
    if (g->message) {
        fputs("  ", f);
        safe(f, g->message, 256);
    }
    fputc('\n', f);
}

void wk_print_grade_plain(FILE *f, const q_result *r, bool lines)
{
    const q_grade_result *g = r->grade;
    if (lines)
        for (size_t i = 0; i < g->ntests; i++)
            wk_print_test_line(f, &g->tests[i]);
    for (size_t i = 0; i < g->ngroups; i++)
        print_group(f, &g->groups[i]);
    if (strcmp(r->status, "COMPILE_ERROR") == 0) {
        fputs("compile error (", f);
        safe(f, g->has_compile ? g->compile.status : "?", 64);
        fputs(r->error ? "): " : ")", f);
        safe(f, r->error ? r->error : "", SIZE_MAX);
        fputc('\n', f);
        if (g->has_compile) {
            wk_text_output(f, g->compile.stderr_buf, g->compile.stderr_len);
            wk_text_output(f, g->compile.stdout_buf, g->compile.stdout_len);
        }
    }
    fprintf(f, "%llu/%llu passed, score ", (unsigned long long)g->passed, (unsigned long long)g->total);
    score(f, g->score, g->max_score);
    for (size_t i = 0; i < g->ntests; i++) {
        const q_graded *t = &g->tests[i];
        if (strcmp(t->status, "OK") != 0 && strcmp(t->status, "SKIPPED") != 0) {
            fputs(", first failure: test ", f);
            safe(f, t->name, Q_TEST_NAME_MAX);
            fputc(' ', f);
            safe(f, t->status, Q_STATUS_MAX);
            break;
        }
    }
    fputs(" (", f);
    safe(f, r->status, Q_STATUS_MAX);
    fputc(')', f);
    if (g->time_factor_milli)
        fprintf(f, ", time limits x%g", g->time_factor_milli / 1000.0);
    fputc('\n', f);
}
