/* cmd_stats.c -- `gradeq stats`: the queue and its workers at a glance,
 * from bounded reads only (one script for the queue, one SCAN walk for the
 * workers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "queue/stream.h"
#include "worker/cli/cli.h"
#include "worker/cli/commands.h"

#define MAX_WORKERS 1024

static void print_json(const q_stats *s, const q_worker_info *w, size_t nw)
{
    printf("{\"length\":%lld,\"waiting\":%lld,\"pending\":%lld,\"oldest_waiting_ms\":%lld,"
           "\"oldest_pending_ms\":%lld,\"dead\":%lld,\"jobs_per_s\":%.2f,\"consumers\":{",
           s->length, s->waiting, s->pending, s->oldest_waiting_ms, s->oldest_pending_ms, s->dead, s->jobs_per_s);
    for (size_t i = 0; i < s->nconsumers; i++) {
        printf("%s", i ? "," : "");
        wk_json_string(stdout, s->consumers[i].name);
        printf(":%lld", s->consumers[i].pending);
    }
    printf("},\"counters\":{");
    for (size_t i = 0; i < s->ncounters; i++) {
        printf("%s", i ? "," : "");
        wk_json_string(stdout, s->counters[i].name);
        printf(":%lld", s->counters[i].value);
    }
    printf("},\"workers\":[");
    for (size_t i = 0; i < nw; i++) {
        printf("%s{\"name\":", i ? "," : "");
        wk_json_string(stdout, w[i].name);
        printf(",\"host\":");
        wk_json_string(stdout, w[i].host);
        printf(",\"pid\":%lld,\"threads\":%lld,\"busy\":%lld,\"jobs_done\":%lld,\"started_at\":%lld,\"last_seen\":%lld",
               w[i].pid, w[i].threads, w[i].busy, w[i].jobs_done, w[i].started_at, w[i].last_seen);
        /* As the worker wrote it: a JSON object in a string (the registry
         * is anyone's who can write to Redis, so never pasted in raw). */
        printf(",\"languages\":");
        wk_json_string(stdout, w[i].languages);
        printf("}");
    }
    printf("]}\n");
}

/* Names come from Redis, where anyone with write access may put any
 * bytes: shown escaped. */
static const char *esc(char out[4 * 65], const char *s)
{
    wk_text_escape(out, 4 * 65, s);
    return out;
}

static void print_table(const q_stats *s, const q_worker_info *w, size_t nw)
{
    char a[4 * 65], b[4 * 65];
    printf("queue: %lld waiting, %lld running (pending), %lld dead; %.1f jobs/s over the last minute\n",
           s->waiting, s->pending, s->dead, s->jobs_per_s);
    if (s->oldest_waiting_ms >= 0 || s->oldest_pending_ms >= 0)
        printf("oldest: waiting %.1f s, pending %.1f s\n", s->oldest_waiting_ms / 1e3, s->oldest_pending_ms / 1e3);
    if (s->ncounters) {
        printf("results:");
        for (size_t i = 0; i < s->ncounters; i++)
            printf(" %s=%lld", esc(a, s->counters[i].name), s->counters[i].value);
        printf("\n");
    }
    for (size_t i = 0; i < s->nconsumers; i++)
        printf("  pending %-40s %lld\n", esc(a, s->consumers[i].name), s->consumers[i].pending);
    printf("%zu live worker%s\n", nw, nw == 1 ? "" : "s");
    if (nw)
        printf("  %-32s %-16s %8s %10s %10s\n", "name", "host", "busy", "jobs", "seen");
    time_t now = time(NULL);
    for (size_t i = 0; i < nw; i++)
        printf("  %-32s %-16s %4lld/%-3lld %10lld %8llds ago\n", esc(a, w[i].name), esc(b, w[i].host), w[i].busy,
               w[i].threads, w[i].jobs_done, (long long)now - w[i].last_seen);
}

int wk_cmd_stats(int argc, char **argv)
{
    const char *redis = wk_default_redis(), *prefix = wk_default_prefix();
    bool json = false;
    uint64_t watch_ms = 0;
    for (int i = 1; i < argc; i++) {
        int opt = wk_cli_common_option(argc, argv, &i, &redis, &prefix, &json);
        if (opt == 2) {
            puts("usage: gradeq stats [--json] [--watch [--interval MS]] [--redis URL] [--prefix P]");
            return 0;
        }
        if (opt == 1)
            continue;
        if (opt == 0 && strcmp(argv[i], "--watch") == 0) {
            watch_ms = watch_ms ? watch_ms : 1000;
        } else if (opt == 0 && strcmp(argv[i], "--interval") == 0) {
            if (i + 1 >= argc || wk_parse_uint(argv[i + 1], &watch_ms) < 0 || !watch_ms)
                return wk_usage_error("stats", "--interval needs a positive number of milliseconds");
            i++;
        } else {
            return wk_usage_error("stats", opt < 0 ? "%s needs a value" : "unexpected %s", argv[i]);
        }
    }
    char err[Q_ERR_LEN];
    static q_stats st;
    static q_worker_info w[MAX_WORKERS];
    int code;
    q_conn *c = wk_cli_connect(redis, &code, err, sizeof err);
    if (!c)
        return fprintf(stderr, "gradeq stats: %s\n", err), code;
    for (;;) {
        bool trunc;
        int nw = q_stats_read(c, prefix, &st, err, sizeof err) == 0
                     ? q_workers_list(c, prefix, w, MAX_WORKERS, &trunc, err, sizeof err)
                     : -1;
        if (nw < 0) {
            fprintf(stderr, "gradeq stats: %s\n", err);
            q_conn_close(c);
            return WK_EXIT_REDIS;
        }
        if (watch_ms && !json)
            fputs("\033[H\033[2J", stdout); /* home, clear: a top(1)-like refresh */
        json ? print_json(&st, w, (size_t)nw) : print_table(&st, w, (size_t)nw);
        /* A closed stdout (SIGPIPE ignored) ends a watch: main says so. */
        if (!wk_output_flush() || !watch_ms)
            break;
        struct timespec ts = { (time_t)(watch_ms / 1000), (long)(watch_ms % 1000) * 1000000 };
        nanosleep(&ts, NULL);
    }
    q_conn_close(c);
    return 0;
}
