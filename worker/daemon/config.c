/* config.c -- the worker's options as one table: flag, environment
 * variable (GRADEQ_ + the flag upper-cased), default, help. */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>

#include "queue/result.h"
#include "sandbox/sandbox.h"
#include "worker/common/convert.h"
#include "worker/common/log.h"
#include "worker/common/sizes.h"
#include "worker/daemon/config.h"
#include "worker/daemon/metrics.h"
#include "worker/engine/engine.h"

typedef enum { T_STR, T_UINT, T_SIZE, T_BOOL, T_LOGFMT, T_LEVEL } kind;

typedef struct option {
    const char *flag; /* without "--" */
    kind kind;
    size_t off;
    size_t size;      /* T_STR: buffer size */
    const char *def;  /* NULL: computed (threads, name) */
    const char *help;
} option;

#define F(field) offsetof(wk_config, field), sizeof(((wk_config *)0)->field)

static const option options[] = {
    { "redis", T_STR, F(redis), "redis://127.0.0.1:6379", "Redis URL: redis://[user:password@]host:port/db or unix:///path" },
    { "prefix", T_STR, F(prefix), "gradeq", "key prefix P (P:jobs, P:results, ...)" },
    { "name", T_STR, F(name), NULL, "worker name (default hostname:pid; hostname:pidnsINODE-pid in a PID namespace)" },
    { "threads", T_UINT, F(threads), NULL, "jobs run at once (default: the CPUs this process may use)" },
    { "result-ttl", T_UINT, F(result_ttl_s), "86400", "seconds P:result:<id> is kept" },
    { "result-lists", T_BOOL, F(result_lists), "yes", "write P:result:<id> (no: results only in P:results)" },
    { "results-maxlen", T_UINT, F(results_maxlen), "100000", "approximate length cap of P:results" },
    { "dead-maxlen", T_UINT, F(dead_maxlen), "100000", "approximate length cap of P:dead" },
    { "max-job-bytes", T_SIZE, F(max_job_bytes), "64M", "largest job accepted" },
    { "claim-idle-ms", T_UINT, F(claim_idle_ms), "30000", "a job idle this long is taken from its (dead) worker" },
    { "max-deliveries", T_UINT, F(max_deliveries), "3", "deliveries before a job is dead-lettered" },
    { "max-cpu-ms", T_UINT, F(max.cpu_ms), "60000", "largest cpu_ms a job may ask for" },
    { "max-wall-ms", T_UINT, F(max.wall_ms), "180000", "largest wall_ms" },
    { "max-memory", T_SIZE, F(max.memory_bytes), "4G", "largest memory_bytes" },
    { "max-stdout", T_SIZE, F(max.stdout_bytes), "32M", "largest stdout_bytes (and transcript_bytes)" },
    { "max-stderr", T_SIZE, F(max.stderr_bytes), "8M", "largest stderr_bytes" },
    { "max-processes", T_UINT, F(max.processes), "256", "largest processes" },
    { "max-file", T_SIZE, F(max.file_bytes), "1G", "largest file_bytes" },
    { "max-open-files", T_UINT, F(max.open_files), "1024", "largest open_files" },
    { "max-result-bytes", T_SIZE, F(max_result_bytes), "64M",
      "largest result published, its outputs included (2M..64M: what every client reads)" },
    { "require-isolation", T_BOOL, F(require_isolation), "yes", "refuse to start without full isolation (yes/no)" },
    { "log-format", T_LOGFMT, F(log_json), "text", "text or json" },
    { "log-level", T_LEVEL, F(log_level), "info", "debug, info, warn or error" },
    { "metrics-addr", T_STR, F(metrics_addr), "", "serve Prometheus metrics on HOST:PORT (empty: off)" },
    { "languages", T_STR, F(languages), "", "grading presets file (empty: deploy/languages beside the binary, if any)" },
    { "self-test", T_BOOL, F(self_test), "yes", "prove each preset at start-up (its self-test in a real box); no: versions only" },
    { "self-test-timeout", T_UINT, F(self_test_s), "120", "seconds for all the self-tests; one not done by then is refused" },
    { "languages-required", T_STR, F(languages_required), "", "presets that must pass (NAME,NAME... or all), else the worker does not start" },
    { "test-output-max", T_SIZE, F(test_output_max), "4K", "grading: each test's stdout and stderr kept in the result" },
    { "compile-cache", T_SIZE, F(compile_cache), "256M", "grading: memory for compile artifacts reused by a rejudge (0: off)" },
    { "problems", T_STR, F(problems), "", "grading: the folder of problems a job may name (empty: none)" },
    { "allow-hardlinks", T_BOOL, F(allow_hardlinks), "no", "grading: read problem files that have other hard links" },
};

#define NOPTIONS (sizeof options / sizeof options[0])

static void env_name(const option *o, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "GRADEQ_");
    for (const char *p = o->flag; *p && n + 1 < size; p++)
        out[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    out[n] = 0;
}

static int set(wk_config *c, const option *o, const char *v, char *err, size_t errlen)
{
    char *field = (char *)c + o->off;
    uint64_t x;
    switch (o->kind) {
    case T_STR:
        if (strlen(v) >= o->size)
            return snprintf(err, errlen, "--%s: longer than %zu characters", o->flag, o->size - 1), -1;
        strcpy(field, v);
        return 0;
    case T_UINT:
    case T_SIZE:
        if ((o->kind == T_SIZE ? wk_parse_size(v, &x) : wk_parse_uint(v, &x)) < 0)
            return snprintf(err, errlen, "--%s: \"%s\" is not a %s", o->flag, v,
                            o->kind == T_SIZE ? "size (bytes, or with K/M/G)" : "non-negative integer"), -1;
        if (o->size == sizeof(unsigned)) {
            if (x > 1u << 20)
                return snprintf(err, errlen, "--%s: %s is too large", o->flag, v), -1;
            *(unsigned *)field = (unsigned)x;
        } else {
            *(uint64_t *)field = x;
        }
        return 0;
    case T_BOOL:
        if (strcmp(v, "yes") == 0 || strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
            *(bool *)field = true;
        else if (strcmp(v, "no") == 0 || strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
            *(bool *)field = false;
        else
            return snprintf(err, errlen, "--%s: \"%s\" is not yes or no", o->flag, v), -1;
        return 0;
    case T_LOGFMT:
        if (strcmp(v, "text") != 0 && strcmp(v, "json") != 0)
            return snprintf(err, errlen, "--%s: \"%s\" is not text or json", o->flag, v), -1;
        *(bool *)field = strcmp(v, "json") == 0;
        return 0;
    case T_LEVEL:
        if (wk_log_level_parse(v) < 0)
            return snprintf(err, errlen, "--%s: \"%s\" is not debug, info, warn or error", o->flag, v), -1;
        *(int *)field = wk_log_level_parse(v);
        return 0;
    }
    return -1;
}

/* Values Redis takes whole (as a 64-bit count of milliseconds, a stream
 * length): larger ones would be refused on every call, or wrap. */
#define CLAIM_IDLE_MS_MAX (24ull * 3600 * 1000)
#define RESULT_TTL_MAX (10ull * 366 * 24 * 3600)
#define MAXLEN_MAX 1000000000ull
#define JOB_BYTES_MAX (1ull << 30)
#define RESULT_BYTES_MIN (2ull << 20)

/* Every maximum a job's limit is clamped to is one the sandbox runs, and
 * none is 0 where a run needs some (a wall of 0 would mean 3x cpu, past
 * --max-wall-ms). */
static int check_maxima(const wk_config *c, char *err, size_t errlen)
{
    static const char *const flags[Q_LIM_COUNT] = { "--max-cpu-ms", "--max-wall-ms", "--max-memory",
                                                    "--max-stdout", "--max-stderr", "--max-processes",
                                                    "--max-file",   "--max-open-files" };
    char why[96];
    int i = wk_limits_refused(&c->max, why, sizeof why);
    if (i >= 0)
        return snprintf(err, errlen, "%s: %s", flags[i], why), -1;
    if (!c->max.wall_ms)
        return snprintf(err, errlen, "--max-wall-ms: 0, must be positive"), -1;
    return 0;
}

/* A result is published whole or not at all: the largest a job can make
 * must fit --max-result-bytes. An interactive run's is the largest: its
 * transcript (up to --max-stdout), its own stderr and the interactor's. */
static int check_result_size(const wk_config *c, char *err, size_t errlen)
{
    if (c->max_result_bytes < RESULT_BYTES_MIN || c->max_result_bytes > Q_RESULT_BYTES_MAX)
        return snprintf(err, errlen, "--max-result-bytes: %llu, not 2M..64M (64M: the most every client reads)",
                        (unsigned long long)c->max_result_bytes), -1;
    /* The caps are at most SBX_LIMIT_STREAM_MAX each: no overflow. */
    uint64_t need = c->max.stdout_bytes + 2 * c->max.stderr_bytes;
    size_t room = wk_output_budget(c->max_result_bytes, false);
    if (need > room)
        return snprintf(err, errlen, "--max-stdout (%llu) and twice --max-stderr (%llu: the program's and an "
                        "interactor's) make results of up to %llu bytes of output, more than the %zu that "
                        "--max-result-bytes (%llu) leaves for them: lower them",
                        (unsigned long long)c->max.stdout_bytes, (unsigned long long)c->max.stderr_bytes,
                        (unsigned long long)need, room, (unsigned long long)c->max_result_bytes), -1;
    return 0;
}

static int check(wk_config *c, char *err, size_t errlen)
{
    if (!c->threads)
        return snprintf(err, errlen, "--threads must be at least 1"), -1;
    if (c->claim_idle_ms < 300 || c->claim_idle_ms > CLAIM_IDLE_MS_MAX)
        return snprintf(err, errlen, "--claim-idle-ms must be 300..%llu (a day)", CLAIM_IDLE_MS_MAX), -1;
    if (!c->max_deliveries || !c->result_ttl_s || !c->results_maxlen || !c->dead_maxlen)
        return snprintf(err, errlen, "--max-deliveries, --result-ttl, --results-maxlen, --dead-maxlen must be positive"), -1;
    if (c->result_ttl_s > RESULT_TTL_MAX)
        return snprintf(err, errlen, "--result-ttl: at most %llu s (ten years)", RESULT_TTL_MAX), -1;
    if (c->results_maxlen > MAXLEN_MAX || c->dead_maxlen > MAXLEN_MAX)
        return snprintf(err, errlen, "--results-maxlen, --dead-maxlen: at most %llu", MAXLEN_MAX), -1;
    if (!c->max_job_bytes || c->max_job_bytes > JOB_BYTES_MAX)
        return snprintf(err, errlen, "--max-job-bytes: not 1..1G"), -1;
    if (check_maxima(c, err, errlen) < 0 || check_result_size(c, err, errlen) < 0)
        return -1;
    if (c->metrics_addr[0] && wk_metrics_addr_parse(c->metrics_addr, NULL, err, errlen) < 0)
        return -1;
    if (!c->prefix[0] || !c->name[0])
        return snprintf(err, errlen, "--prefix and --name must not be empty"), -1;
    for (const char *p = c->name; *p; p++)
        if (*p <= ' ' || *p > '~' || *p == '/')
            return snprintf(err, errlen, "--name: only printable characters, no spaces or '/'"), -1;
    return 0;
}

int wk_config_load(wk_config *c, int argc, char **argv, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    /* hostname:pid, the pid as the host knows it; in a PID namespace whose
     * outer pid cannot be seen, the namespace tells containers with one
     * host name (host networking) apart: every one's worker is pid 1. */
    char host[64] = "worker", tag[48];
    gethostname(host, sizeof host - 1);
    sbx_self_id(tag, sizeof tag);
    snprintf(c->name, sizeof c->name, "%.40s:%s", host, tag);
    cpu_set_t allowed;
    c->threads = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? (unsigned)CPU_COUNT(&allowed) : 1;
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].def && set(c, &options[i], options[i].def, err, errlen) < 0)
            return -1;
    for (size_t i = 0; i < NOPTIONS; i++) {
        char env[64];
        env_name(&options[i], env, sizeof env);
        const char *v = getenv(env);
        if (v && set(c, &options[i], v, err, errlen) < 0)
            return snprintf(err + strlen(err), errlen - strlen(err), " (from %s)", env), -1;
    }
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0)
            return wk_config_help(stdout), 1;
        if (strcmp(argv[a], "--version") == 0)
            return printf("gradeq-worker %s\n", WK_VERSION), 1;
        const option *o = NULL;
        const char *v = NULL;
        for (size_t i = 0; i < NOPTIONS && !o; i++) {
            size_t fl = strlen(options[i].flag);
            if (strncmp(argv[a], "--", 2) != 0 || strncmp(argv[a] + 2, options[i].flag, fl) != 0)
                continue;
            if (argv[a][2 + fl] == '=')
                o = &options[i], v = argv[a] + 3 + fl;
            else if (argv[a][2 + fl] == 0)
                o = &options[i], v = a + 1 < argc ? argv[++a] : NULL;
        }
        if (!o)
            return snprintf(err, errlen, "unknown option %s (see --help)", argv[a]), -1;
        if (!v)
            return snprintf(err, errlen, "--%s needs a value", o->flag), -1;
        if (set(c, o, v, err, errlen) < 0)
            return -1;
    }
    return check(c, err, errlen);
}

/* What --help shows after the flag: the kind of value it takes. */
static const char *placeholder(const option *o)
{
    static const struct { const char *flag, *arg; } named[] = {
        { "redis", "URL" }, { "prefix", "P" }, { "name", "NAME" }, { "metrics-addr", "HOST:PORT" },
        { "languages", "FILE" }, { "languages-required", "NAMES" },
    };
    switch (o->kind) {
    case T_UINT: return "N";
    case T_SIZE: return "SIZE";
    case T_BOOL: return "yes|no";
    case T_LOGFMT: return "text|json";
    case T_LEVEL: return "LEVEL";
    case T_STR: break;
    }
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(o->flag, named[i].flag) == 0)
            return named[i].arg;
    return "VALUE";
}

void wk_config_help(FILE *f)
{
    fprintf(f, "usage: gradeq-worker [options]\n\n"
               "Pops jobs from Redis (P:jobs, group \"workers\"), runs each in the sandbox and\n"
               "publishes its result. SIGTERM/SIGINT: finish running jobs and exit; a second\n"
               "one: stop them and exit without acknowledging (they go to another worker).\n"
               "SIGHUP and SIGQUIT do the same. SIZE is bytes or a number with K, M or G.\n"
               "--version prints the version. Exit status: 0 drained, 1 could not start or\n"
               "aborted, 2 a bad option or value (a malformed --redis URL too).\n\n");
    for (size_t i = 0; i < NOPTIONS; i++) {
        char env[64], flag[48];
        env_name(&options[i], env, sizeof env);
        snprintf(flag, sizeof flag, "--%s %s", options[i].flag, placeholder(&options[i]));
        fprintf(f, "  %-22s %s\n  %-22s env %s, default %s\n", flag, options[i].help, "", env,
                options[i].def ? (options[i].def[0] ? options[i].def : "(empty)") : "(see above)");
    }
}
