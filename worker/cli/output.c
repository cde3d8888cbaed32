/* output.c -- printing a run's result: JSON for tools, or the program's own
 * output passed through (escaped on a terminal) with a time(1)-like
 * summary line on stderr. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "worker/cli/cli.h"
#include "worker/cli/grade_cli.h"

/* "status", "exit_code" and "signal": how a process ended. */
static void json_ending(FILE *f, const char *status, bool has_exit, int64_t exit_code, bool has_signal,
                        int64_t signal)
{
    fputs("\"status\":", f);
    wk_json_string(f, status);
    fputs(",\"exit_code\":", f);
    has_exit ? fprintf(f, "%lld", (long long)exit_code) : fputs("null", f);
    fputs(",\"signal\":", f);
    has_signal ? fprintf(f, "%lld", (long long)signal) : fputs("null", f);
}

void wk_print_json(FILE *f, const q_result *r)
{
    fputc('{', f);
    if (r->id) {
        fputs("\"id\":", f);
        wk_json_string(f, r->id);
        fputc(',', f);
    }
    json_ending(f, r->status, r->has_exit_code, r->exit_code, r->has_signal, r->signal);
    fputs(",\"stdout\":\"", f);
    wk_base64(f, r->stdout_buf, r->stdout_len);
    fputs("\",\"stderr\":\"", f);
    wk_base64(f, r->stderr_buf, r->stderr_len);
    fprintf(f, "\",\"stdout_truncated\":%s,\"stderr_truncated\":%s,\"cpu_us\":%llu,\"wall_us\":%llu,"
               "\"memory_bytes\":%llu,",
            r->stdout_truncated ? "true" : "false", r->stderr_truncated ? "true" : "false",
            (unsigned long long)r->cpu_us, (unsigned long long)r->wall_us,
            (unsigned long long)r->memory_bytes);
    if (r->worker) {
        fputs("\"worker\":", f);
        wk_json_string(f, r->worker);
        fprintf(f, ",\"attempt\":%llu,", (unsigned long long)r->attempt);
    }
    if (r->has_interactor) {
        const q_proc_result *i = &r->interactor;
        fputs("\"interactor\":{", f);
        json_ending(f, i->status, i->has_exit_code, i->exit_code, i->has_signal, i->signal);
        fputs(",\"stderr\":\"", f);
        wk_base64(f, i->stderr_buf, i->stderr_len);
        fprintf(f, "\",\"cpu_us\":%llu,\"wall_us\":%llu,\"memory_bytes\":%llu},", (unsigned long long)i->cpu_us,
                (unsigned long long)i->wall_us, (unsigned long long)i->memory_bytes);
    }
    if (r->transcript) {
        fputs("\"transcript\":\"", f);
        wk_base64(f, r->transcript, r->transcript_len);
        fputs("\",", f);
    }
    fputs("\"error\":", f);
    r->error ? wk_json_string(f, r->error) : (void)fputs("null", f);
    fputs(",\"isolation\":[", f);
    for (size_t i = 0; i < r->nisolation; i++) {
        fputs(i ? "," : "", f);
        wk_json_string(f, r->isolation[i]);
    }
    fputc(']', f);
    if (r->grade)
        wk_json_grade(f, r->grade);
    fputs("}\n", f);
}

static void human_bytes(char *out, size_t size, uint64_t b)
{
    if (b >= 10u << 20)
        snprintf(out, size, "%.0f MiB", b / 1048576.0);
    else if (b >= 1u << 20)
        snprintf(out, size, "%.1f MiB", b / 1048576.0);
    else
        snprintf(out, size, "%.0f KiB", b / 1024.0);
}

/* A result from the queue may hold any bytes, and a local one the
 * program's: every string is shown escaped, the outputs too on a terminal
 * (wk_text_output). */
static void field(FILE *f, const char *s)
{
    wk_text_write(f, s, strlen(s), false);
}

/* Why stdout last failed, for wk_output_done: a flush before the end
 * takes errno with it. The command's one thread owns it. */
static int stdout_errno;

bool wk_output_flush(void)
{
    /* A failed write sets errno and the error flag; stdio does nothing
     * after it that would set errno otherwise. */
    if (fflush(stdout) == 0 && !ferror(stdout))
        return true;
    stdout_errno = errno;
    return false;
}

void wk_print_plain(const q_result *r)
{
    wk_text_output(stdout, r->stdout_buf, r->stdout_len);
    wk_output_flush();
    wk_text_output(stderr, r->stderr_buf, r->stderr_len);
    char how[64] = "", mem[32];
    const char *abbrev = r->has_signal ? sigabbrev_np((int)r->signal) : NULL;
    if (r->has_signal)
        snprintf(how, sizeof how, " signal %lld (SIG%s)", (long long)r->signal, abbrev ? abbrev : "?");
    else if (r->has_exit_code)
        snprintf(how, sizeof how, " exit %lld", (long long)r->exit_code);
    human_bytes(mem, sizeof mem, r->memory_bytes);
    if (r->has_interactor) {
        const q_proc_result *i = &r->interactor;
        wk_text_output(stderr, i->stderr_buf, i->stderr_len);
        fputs("gradeq: interactor ", stderr);
        field(stderr, i->status);
        if (i->has_signal)
            fprintf(stderr, " signal %lld", (long long)i->signal);
        else if (i->has_exit_code)
            fprintf(stderr, " exit %lld", (long long)i->exit_code);
        fprintf(stderr, " cpu %.3f s wall %.3f s\n", i->cpu_us / 1e6, i->wall_us / 1e6);
    }
    fputs("gradeq: ", stderr);
    field(stderr, r->status);
    fprintf(stderr, "%s cpu %.3f s wall %.3f s memory %s%s%s%s", how, r->cpu_us / 1e6, r->wall_us / 1e6, mem,
            r->stdout_truncated ? " stdout truncated" : "", r->stderr_truncated ? " stderr truncated" : "",
            r->error ? ": " : "");
    field(stderr, r->error ? r->error : "");
    fputc('\n', stderr);
}

int wk_output_done(const char *cmd, int status)
{
    int e = fflush(stdout) != 0 ? errno : stdout_errno;
    bool out = ferror(stdout);
    stdout_errno = 0;
    /* A failed flush leaves the stream's error flag set: ferror says both. */
    bool err = fflush(stderr) != 0 || ferror(stderr);
    /* Told once: a second call (main's after a command's own) finds none. */
    clearerr(stdout);
    clearerr(stderr);
    if (!out && !err)
        return status;
    if (out && !err) {
        fprintf(stderr, "gradeq %s: its output could not be written (stdout%s%s)\n", cmd, e ? ": " : "",
                e ? strerror(e) : "");
        if (fflush(stderr) != 0)
            clearerr(stderr);
    }
    return status == WK_EXIT_OK ? WK_EXIT_OUTPUT : status;
}
