/* metrics.h -- what the worker counts for operators, and the /metrics
 * endpoint (Prometheus text format) that shows it. Counting is lock-free
 * (atomics); the endpoint is one thread, bound to loopback unless told. */
#ifndef GRADEQ_WORKER_METRICS_H
#define GRADEQ_WORKER_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "worker/engine/engine.h"

#define WK_HIST_BUCKETS 21

typedef struct wk_hist {
    atomic_ullong count[WK_HIST_BUCKETS + 1]; /* per bucket; the last is +Inf */
    atomic_ullong sum_us;
} wk_hist;

typedef struct wk_metrics {
    wk_hist duration;        /* a run, submit-independent: the sandbox's wall */
    wk_hist queue_wait;      /* from XADD (entry id) to fetch */
    atomic_ullong output_bytes[2], output_truncated[2]; /* stdout, stderr */
    atomic_ullong sandbox_errors;
    /* Grading: jobs by the status of the whole, tests by theirs; indexed
     * as wk_grade_status_index (grade.h). */
    atomic_ullong grade_jobs[WK_GRADE_STATUSES], grade_tests[WK_GRADE_STATUSES];
} wk_metrics;

void wk_hist_observe(wk_hist *h, uint64_t us);

/* Where the endpoint listens: "PORT" is 127.0.0.1:PORT; "HOST:PORT", with
 * an IPv6 host in brackets ("[::1]:9100"); PORT 1..65535. Parsed (and the
 * host resolved) into *out when out is not NULL (freeaddrinfo it). Returns
 * 0, or -1 with err naming what is wrong. */
struct addrinfo;
int wk_metrics_addr_parse(const char *addr, struct addrinfo **out, char *err, size_t errlen);

struct wk_worker;
/* Serves GET /metrics on addr (wk_metrics_addr_parse's). A client gets
 * WK_METRICS_CLIENT_MS to send its request and take the page, so none
 * holds the one-client endpoint, or the worker's exit, for longer.
 * Returns 0, or -1 with err filled (bad address, port taken). */
#define WK_METRICS_CLIENT_MS 2000
int wk_metrics_start(struct wk_worker *w, const char *addr, char *err, size_t errlen);
void wk_metrics_stop(struct wk_worker *w);

#endif
