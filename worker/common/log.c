/* log.c -- event lines for operators. A line is built whole in a stack
 * buffer and written with one write(2), so lines of different threads never
 * interleave; a message too long is cut, never split; what is not text in
 * it (control bytes, broken UTF-8) is written as \xNN, in JSON too. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "worker/common/log.h"
#include "worker/common/text.h"

static bool as_json;
static int min_level = WK_LOG_INFO;
static const char *const names[] = { "debug", "info", "warn", "error" };

void wk_log_setup(bool json, int level)
{
    as_json = json;
    min_level = level;
}

int wk_log_level_parse(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* JSON string escaping of msg into out. */
static size_t escape(char *out, size_t size, const char *msg)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && n + 7 < size; p++) {
        if (*p == '"' || *p == '\\')
            n += (size_t)snprintf(out + n, size - n, "\\%c", *p);
        else if (*p < 0x20)
            n += (size_t)snprintf(out + n, size - n, "\\u%04x", *p);
        else
            out[n++] = (char)*p;
    }
    out[n] = 0;
    return n;
}

void wk_log(int level, const char *fmt, ...)
{
    if (level < min_level)
        return;
    char raw[1024], msg[4 * sizeof raw], line[2 * sizeof msg + 128], ts[40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* A message may quote what a job or a program chose (an argv, a file
     * name, Redis's echo of them): one line, nothing a terminal obeys. */
    wk_text_escape(msg, sizeof msg, raw);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    size_t t = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + t, sizeof ts - t, ".%03ldZ", now.tv_nsec / 1000000);
    int n;
    if (as_json) {
        char esc[2 * sizeof msg];
        escape(esc, sizeof esc, msg);
        n = snprintf(line, sizeof line, "{\"time\":\"%s\",\"level\":\"%s\",\"msg\":\"%s\"}\n", ts, names[level], esc);
    } else {
        n = snprintf(line, sizeof line, "%s %-5s %s\n", ts, names[level], msg);
    }
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1, line[n - 1] = '\n';
    ssize_t w = write(2, line, (size_t)n);
    (void)w; /* nowhere left to report a failed log write */
}
