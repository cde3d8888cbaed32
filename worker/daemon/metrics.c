/* metrics.c -- the /metrics endpoint: one thread, one request per
 * connection, a bounded request read and write (one deadline per client),
 * a text page built from atomics. It never blocks the job threads: all it
 * reads is counters. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "worker/engine/compile_cache.h"
#include "worker/engine/engine.h"
#include "worker/common/log.h"
#include "worker/daemon/metrics.h"
#include "worker/daemon/worker.h"

/* Seconds: 1 ms .. a day (the sandbox's largest wall limit, so every
 * --max-wall-ms has buckets up to it), then +Inf. */
static const double bounds[WK_HIST_BUCKETS] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 180, 300,
                                                 600, 3600, 86400 };

void wk_hist_observe(wk_hist *h, uint64_t us)
{
    int b = 0;
    while (b < WK_HIST_BUCKETS && us > bounds[b] * 1e6)
        b++;
    atomic_fetch_add(&h->count[b], 1);
    atomic_fetch_add(&h->sum_us, us);
}

typedef struct page {
    char *buf;
    size_t len, size;
} page;

__attribute__((format(printf, 2, 3))) static void put(page *p, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(p->buf + p->len, p->size - p->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < p->size - p->len) {
            p->len += (size_t)n;
            return;
        }
        size_t size = p->size * 2;
        char *nb = n >= 0 ? realloc(p->buf, size) : NULL;
        if (!nb)
            return; /* a shorter page rather than none */
        p->buf = nb;
        p->size = size;
    }
}

static void put_hist(page *p, const char *name, const char *help, wk_hist *h)
{
    put(p, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    unsigned long long cum = 0;
    for (int b = 0; b <= WK_HIST_BUCKETS; b++) {
        cum += atomic_load(&h->count[b]);
        if (b < WK_HIST_BUCKETS)
            put(p, "%s_bucket{le=\"%g\"} %llu\n", name, bounds[b], cum);
        else
            put(p, "%s_bucket{le=\"+Inf\"} %llu\n", name, cum);
    }
    put(p, "%s_sum %.6f\n%s_count %llu\n", name, atomic_load(&h->sum_us) / 1e6, name, cum);
}

static void build(wk_worker *w, page *p)
{
    static const char *const extra[] = { [WK_WRONG_ANSWER] = "WRONG_ANSWER",
                                         [WK_INTERACTOR_ERROR] = "INTERACTOR_ERROR", [WK_BAD_JOB] = "BAD_JOB",
                                         [WK_PARTIAL] = "PARTIAL" };
    put(p, "# HELP gradeq_build_info The worker's version.\n# TYPE gradeq_build_info gauge\n"
           "gradeq_build_info{version=\"%s\"} 1\n", WK_VERSION);
    put(p, "# HELP gradeq_jobs_total Results published, by status.\n# TYPE gradeq_jobs_total counter\n");
    for (int i = 0; i < WK_NSTATUS; i++) {
        const char *name = i <= SBX_SANDBOX_ERROR ? sbx_status_name((sbx_status)i) : extra[i];
        put(p, "gradeq_jobs_total{status=\"%s\"} %llu\n", name, atomic_load(&w->by_status[i]));
    }
    put(p, "# HELP gradeq_grading_jobs_total Grading jobs published, by the status of the whole.\n"
           "# TYPE gradeq_grading_jobs_total counter\n");
    for (int i = 0; i < WK_GRADE_STATUSES; i++)
        put(p, "gradeq_grading_jobs_total{status=\"%s\"} %llu\n", wk_grade_status_name(i),
            atomic_load(&w->metrics.grade_jobs[i]));
    put(p, "# HELP gradeq_grading_tests_total Tests of grading jobs, by status.\n"
           "# TYPE gradeq_grading_tests_total counter\n");
    for (int i = 0; i < WK_GRADE_STATUSES; i++)
        put(p, "gradeq_grading_tests_total{status=\"%s\"} %llu\n", wk_grade_status_name(i),
            atomic_load(&w->metrics.grade_tests[i]));
    uint64_t hits = 0, misses = 0;
    if (w->cache)
        wk_cc_stats(w->cache, &hits, &misses);
    put(p, "# HELP gradeq_compile_cache_total Compile steps of grading jobs, by whether the cache had them.\n"
           "# TYPE gradeq_compile_cache_total counter\n"
           "gradeq_compile_cache_total{result=\"hit\"} %llu\ngradeq_compile_cache_total{result=\"miss\"} %llu\n",
        (unsigned long long)hits, (unsigned long long)misses);
    put(p, "# HELP gradeq_dead_letters_total Entries this worker put into P:dead.\n"
           "# TYPE gradeq_dead_letters_total counter\ngradeq_dead_letters_total %llu\n"
           "# HELP gradeq_claims_total Entries claimed from silent workers.\n"
           "# TYPE gradeq_claims_total counter\ngradeq_claims_total %llu\n"
           "# HELP gradeq_redeliveries_total Entries handled on a delivery after the first.\n"
           "# TYPE gradeq_redeliveries_total counter\ngradeq_redeliveries_total %llu\n"
           "# HELP gradeq_results_held Results waiting in memory for Redis to take them.\n"
           "# TYPE gradeq_results_held gauge\ngradeq_results_held %u\n"
           "# HELP gradeq_results_refused_total Results Redis refused whole for good, published without their "
           "outputs and dead-lettered.\n"
           "# TYPE gradeq_results_refused_total counter\ngradeq_results_refused_total %llu\n",
        atomic_load(&w->dead_letters), atomic_load(&w->claims), atomic_load(&w->redeliveries),
        atomic_load(&w->held_results), atomic_load(&w->refused_results));
    put_hist(p, "gradeq_job_duration_seconds", "Wall time of each run in the sandbox.", &w->metrics.duration);
    put_hist(p, "gradeq_queue_wait_seconds", "From submission to a worker taking the job.", &w->metrics.queue_wait);
    unsigned busy = atomic_load(&w->busy);
    put(p, "# HELP gradeq_threads Job threads by state.\n# TYPE gradeq_threads gauge\n"
           "gradeq_threads{state=\"busy\"} %u\ngradeq_threads{state=\"idle\"} %u\n",
        busy, w->cfg.threads > busy ? w->cfg.threads - busy : 0);
    put(p, "# HELP gradeq_sandbox_errors_total Runs that failed in the sandbox itself.\n"
           "# TYPE gradeq_sandbox_errors_total counter\ngradeq_sandbox_errors_total %llu\n",
        atomic_load(&w->metrics.sandbox_errors));
    unsigned long long reconnects = 0, round_trips = 0;
    for (unsigned i = 0; i < w->cfg.threads; i++) {
        reconnects += atomic_load(&w->slots[i].reconnects);
        round_trips += atomic_load(&w->slots[i].round_trips);
    }
    put(p, "# HELP gradeq_redis_round_trips_total Round trips to Redis by the job threads.\n"
           "# TYPE gradeq_redis_round_trips_total counter\ngradeq_redis_round_trips_total %llu\n"
           "# HELP gradeq_redis_reconnects_total Reconnections to Redis by the job threads.\n"
           "# TYPE gradeq_redis_reconnects_total counter\ngradeq_redis_reconnects_total %llu\n"
           "# HELP gradeq_redis_errors_total Failed Redis commands.\n"
           "# TYPE gradeq_redis_errors_total counter\ngradeq_redis_errors_total %llu\n"
           "# HELP gradeq_redis_auth_errors_total Of them, refused credentials or rights (WRONGPASS, NOPERM).\n"
           "# TYPE gradeq_redis_auth_errors_total counter\ngradeq_redis_auth_errors_total %llu\n",
        round_trips, reconnects, atomic_load(&w->redis_errors), atomic_load(&w->redis_auth_errors));
    put(p, "# HELP gradeq_output_bytes_total Output bytes captured.\n# TYPE gradeq_output_bytes_total counter\n"
           "gradeq_output_bytes_total{stream=\"stdout\"} %llu\ngradeq_output_bytes_total{stream=\"stderr\"} %llu\n"
           "# HELP gradeq_output_truncated_total Streams cut at their cap.\n"
           "# TYPE gradeq_output_truncated_total counter\n"
           "gradeq_output_truncated_total{stream=\"stdout\"} %llu\ngradeq_output_truncated_total{stream=\"stderr\"} %llu\n",
        atomic_load(&w->metrics.output_bytes[0]), atomic_load(&w->metrics.output_bytes[1]),
        atomic_load(&w->metrics.output_truncated[0]), atomic_load(&w->metrics.output_truncated[1]));
}

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Waits for ev on c until the client's deadline (or the worker's stop, in
 * short slices). True when c is ready. */
static bool ready(wk_worker *w, int c, short ev, uint64_t deadline)
{
    struct pollfd pfd = { c, ev, 0 };
    for (uint64_t now = now_ms(); now < deadline && !atomic_load(&w->metrics_stop); now = now_ms()) {
        uint64_t left = deadline - now;
        int rc = poll(&pfd, 1, left < 200 ? (int)left : 200);
        if (rc != 0)
            return rc == 1 && !(pfd.revents & (POLLERR | POLLNVAL));
    }
    return false;
}

static void serve_one(wk_worker *w, int c)
{
    char req[2048];
    size_t n = 0;
    /* The request head and the page share one deadline: a client that
     * trickles bytes, or reads none, is dropped when it passes. */
    uint64_t deadline = now_ms() + WK_METRICS_CLIENT_MS;
    while (n < sizeof req - 1 && ready(w, c, POLLIN, deadline)) {
        ssize_t r = read(c, req + n, sizeof req - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        req[n] = 0;
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
            break;
    }
    req[n] = 0;
    page p = { malloc(8192), 0, 8192 };
    bool ok = strncmp(req, "GET /metrics ", 13) == 0 || strncmp(req, "GET /metrics?", 13) == 0;
    if (p.buf && ok)
        build(w, &p);
    char head[160];
    int hn = snprintf(head, sizeof head, "HTTP/1.0 %s\r\nContent-Type: text/plain; version=0.0.4\r\n"
                                         "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                      ok ? "200 OK" : "404 Not Found", ok ? p.len : 0);
    const char *parts[2] = { head, ok ? p.buf : NULL };
    size_t lens[2] = { (size_t)hn, ok ? p.len : 0 };
    for (int i = 0; i < 2; i++)
        for (size_t off = 0; off < lens[i];) {
            ssize_t s = ready(w, c, POLLOUT, deadline)
                            ? send(c, parts[i] + off, lens[i] - off, MSG_NOSIGNAL | MSG_DONTWAIT) : -1;
            if (s <= 0 && !(s < 0 && (errno == EAGAIN || errno == EINTR))) {
                i = 2;
                break;
            }
            off += s > 0 ? (size_t)s : 0;
        }
    free(p.buf);
}

static void *metrics_main(void *arg)
{
    wk_worker *w = arg;
    struct pollfd pfd = { w->metrics_fd, POLLIN, 0 };
    while (!atomic_load(&w->metrics_stop)) {
        if (poll(&pfd, 1, 200) != 1)
            continue;
        int c = accept4(w->metrics_fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        serve_one(w, c);
        close(c);
    }
    return NULL;
}

int wk_metrics_addr_parse(const char *addr, struct addrinfo **out, char *err, size_t errlen)
{
    char host[128] = "127.0.0.1";
    const char *colon = strrchr(addr, ':'), *port = colon ? colon + 1 : addr;
    if (colon) {
        const char *h = addr, *end = colon;
        if (addr[0] == '[') {
            if (end - addr < 3 || end[-1] != ']')
                return snprintf(err, errlen, "--metrics-addr \"%s\": an IPv6 host is [ADDRESS]:PORT", addr), -1;
            h = addr + 1;
            end--;
        } else if (memchr(addr, ':', (size_t)(colon - addr))) {
            return snprintf(err, errlen, "--metrics-addr \"%s\": an IPv6 host goes in brackets ([::1]:PORT)",
                            addr), -1;
        }
        size_t hl = (size_t)(end - h);
        if (hl == 0 || hl >= sizeof host)
            return snprintf(err, errlen, "--metrics-addr \"%s\": %s", addr,
                            hl ? "host name too long" : "no host (a PORT alone listens on 127.0.0.1)"), -1;
        memcpy(host, h, hl);
        host[hl] = 0;
    }
    size_t pl = strlen(port);
    unsigned long pn = pl && pl <= 5 && strspn(port, "0123456789") == pl ? strtoul(port, NULL, 10) : 0;
    if (pn < 1 || pn > 65535)
        return snprintf(err, errlen, "--metrics-addr \"%s\": the port is not 1..65535", addr), -1;
    struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM }, *ai;
    int rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0)
        return snprintf(err, errlen, "--metrics-addr \"%s\": %s", addr, gai_strerror(rc)), -1;
    if (out)
        *out = ai;
    else
        freeaddrinfo(ai);
    return 0;
}

int wk_metrics_start(wk_worker *w, const char *addr, char *err, size_t errlen)
{
    struct addrinfo *ai;
    if (wk_metrics_addr_parse(addr, &ai, err, errlen) < 0)
        return -1;
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 16) < 0) {
        snprintf(err, errlen, "--metrics-addr %s: %s", addr, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    w->metrics_fd = fd;
    int rc = pthread_create(&w->metrics_thread, NULL, metrics_main, w);
    if (rc != 0) {
        close(fd);
        w->metrics_fd = -1;
        return snprintf(err, errlen, "metrics thread: %s", strerror(rc)), -1;
    }
    return 0;
}

void wk_metrics_stop(wk_worker *w)
{
    if (w->metrics_fd < 0)
        return;
    atomic_store(&w->metrics_stop, 1);
    pthread_join(w->metrics_thread, NULL);
    close(w->metrics_fd);
    w->metrics_fd = -1;
}
