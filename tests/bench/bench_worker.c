/* bench_worker.c -- the worker end to end through Redis, each number beside
 * a baseline measured in the same run (variants interleaved, so machine
 * noise hits both).
 *
 *   1. jobs/s of trivial jobs (/bin/true, default limits): N jobs prefilled
 *      into P:jobs (pipelined XADDs of q_job_encode bytes), then
 *      build/gradeq-worker --threads T with full isolation, timed from its
 *      first result to its N-th (followed on P:results with XREAD BLOCK);
 *   2. the same Redis cycle with no isolation, run by T threads of this
 *      program: XREADGROUP COUNT 1, unpack argv, posix_spawn (vfork) with
 *      stdout/stderr pipes drained, wait4, then one pipelined
 *      MULTI; XADD P:results; XACK; EXEC. Same N, same prefill, T = 2, 3, 4;
 *   3. submit-to-result latency (q_submit on one connection, paced at half
 *      the best gradeq rate) for the gradeq worker, beside the plain loop
 *      at the same rate;
 *   4. worker RSS: (a) the peak while 8 output floods (yes, stdout cap
 *      16 MiB, so each is killed at its cap) run at once, against the
 *      budget 32 MiB + the caps of the jobs running; (b) after 1,000 and
 *      after up to 100,000 trivial jobs (bounded in time, refilled as the
 *      queue drains).
 *
 * Where the time goes, per job: machine CPU (/proc/stat) between the first
 * and the last result, and over the whole run the worker process itself,
 * its zygotes + programs (reaped into this process's children) and
 * redis-server; for the latency, the run's own wall_us (from the result)
 * against the rest (queueing, Redis, the worker's work around the run).
 *
 * For every run: machine busy % and steal % from /proc/stat, and "other":
 * CPU the machine spent outside this program's process tree (this process,
 * its reaped children -- the worker, its zygotes and their programs, the
 * plain loop's /bin/true -- and redis-server), i.e. foreign load plus
 * kernel threads; a /proc scan at both ends says how much of it was kernel
 * threads and long-lived foreign processes. A run with other > 10 % is
 * marked NOISY: compare it with a rerun before believing it.
 *
 * The worker is stopped as in production (SIGTERM: drain), its job threads
 * woken from XREADGROUP BLOCK by CLIENT UNBLOCK so a stop costs no 2 s.
 *
 * Waits are on events (XREAD BLOCK, a pidfd) with deadlines. The only timed
 * sleeps are measurement clocks: the latency run's submit pacing, the RSS
 * sampling period and the idle-load sample at start. Progress goes to
 * stderr, the table to stdout. Exit status 1 when a run could not be done
 * (worker died, results missing, wrong statuses); missed targets are only
 * flagged in the table.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>
#include <msgpack.h>

#include "queue/job.h"
#include "queue/redis.h"
#include "queue/stream.h"
#include "tests/lib/redis_server.h"

extern char **environ;

#define MIB (1024.0 * 1024.0)
#define IDLE_DEADLINE_US 30e6  /* no new result for this long: the run failed */
#define FLOOD_CAP (16ull << 20)
#define MAX_THREADS 16

/* ------------------------------------------------------------ basics */

static rs_server srv;
static char worker_bin[512];
static pid_t g_worker;         /* the running gradeq-worker, 0 when none */
static int g_worker_pidfd = -1;
static char g_worker_log[600];
static long clk_tck;
static unsigned floods = 8; /* output floods at once in 4a (-F) */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void log_tail(void)
{
    if (!g_worker_log[0])
        return;
    FILE *f = fopen(g_worker_log, "re");
    if (!f)
        return;
    static char buf[8192];
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    fprintf(stderr, "--- tail of %s:\n%s---\n", g_worker_log, buf);
}

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_worker: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (g_worker > 0) {
        kill(g_worker, SIGKILL);
        waitpid(g_worker, NULL, 0);
        log_tail();
    }
    rs_destroy(&srv);
    exit(1);
}

/* ------------------------------------------------------------ redis */

static redisContext *rconnect(void)
{
    struct timeval tv = { 10, 0 };
    redisContext *c = redisConnectUnixWithTimeout(srv.sock, tv);
    if (!c || c->err)
        die("connect %s: %s", srv.sock, c ? c->errstr : "out of memory");
    if (redisSetTimeout(c, tv) != REDIS_OK)
        die("redisSetTimeout failed");
    return c;
}

static redisReply *rcheck(redisContext *c, redisReply *r)
{
    if (!r)
        die("redis: %s", c->errstr);
    if (r->type == REDIS_REPLY_ERROR)
        die("redis: %s", r->str);
    return r;
}

static redisReply *rcmd(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    return rcheck(c, r);
}

static void rdo(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    freeReplyObject(rcheck(c, r));
}

/* Reads n pipelined replies, dying on any error. */
static void rdrain(redisContext *c, long n)
{
    for (long i = 0; i < n; i++) {
        void *r = NULL;
        if (redisGetReply(c, &r) != REDIS_OK)
            die("redis: %s", c->errstr);
        freeReplyObject(rcheck(c, r));
    }
}

static long long stat_get(redisContext *c, const char *prefix, const char *field)
{
    redisReply *r = rcmd(c, "HGET %s:stats %s", prefix, field);
    long long v = r->type == REDIS_REPLY_STRING ? atoll(r->str) : 0;
    freeReplyObject(r);
    return v;
}

static void fresh_queue(redisContext *c, const char *prefix)
{
    rdo(c, "FLUSHALL");
    rdo(c, "XGROUP CREATE %s:jobs workers 0 MKSTREAM", prefix);
}

/* ------------------------------------------------------------ jobs */

static void encode_job(msgpack_sbuffer *sb, const char *id, const char *const *argv, uint64_t stdout_cap)
{
    q_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.id, sizeof j.id, "%s", id);
    j.has_id = true;
    j.prog.argv = (char **)argv;
    while (argv[j.prog.argc])
        j.prog.argc++;
    if (stdout_cap) {
        j.prog.limits[Q_LIM_STDOUT_BYTES] = stdout_cap;
        j.prog.limits_present = 1u << Q_LIM_STDOUT_BYTES;
    }
    char err[512];
    msgpack_sbuffer_clear(sb);
    if (q_job_encode(&j, sb, err, sizeof err) < 0)
        die("q_job_encode: %s", err);
}

static const char *const true_argv[] = { "/bin/true", NULL };
static const char *const yes_argv[] = { "/usr/bin/yes", NULL };

/* XADDs jobs tag-from .. tag-(from+n-1), pipelined 500 per round trip. */
static void prefill(redisContext *c, const char *prefix, const char *tag, long from, long n,
                    const char *const *argv, uint64_t stdout_cap)
{
    char key[160], id[96];
    snprintf(key, sizeof key, "%s:jobs", prefix);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    long pending = 0;
    for (long i = from; i < from + n; i++) {
        snprintf(id, sizeof id, "%s-%ld", tag, i);
        encode_job(&sb, id, argv, stdout_cap);
        if (redisAppendCommand(c, "XADD %s * job %b", key, sb.data, sb.size) != REDIS_OK)
            die("redisAppendCommand: out of memory");
        if (++pending == 500) {
            rdrain(c, pending);
            pending = 0;
        }
    }
    rdrain(c, pending);
    msgpack_sbuffer_destroy(&sb);
}

/* ------------------------------------------------------------ load */

typedef struct cpu_snap {
    double t;                          /* us */
    unsigned long long busy, total, steal; /* /proc/stat, all CPUs, ticks */
    unsigned long long ours;           /* this tree: self + reaped children + redis-server */
    unsigned long long redis;          /* redis-server alone */
    unsigned long long self, children; /* this process; its reaped children */
} cpu_snap;

/* utime+stime of pid in ticks, and cutime+cstime in *children (if not
 * NULL); 0 if unreadable. */
static unsigned long long proc_ticks(pid_t pid, unsigned long long *children)
{
    if (children)
        *children = 0;
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    /* p + 2 is field 3 (state); utime is field 14. */
    unsigned long long v[4] = { 0 };
    char *save = NULL, *tok = strtok_r(p + 2, " ", &save);
    for (int field = 3; tok && field <= 17; field++, tok = strtok_r(NULL, " ", &save))
        if (field >= 14)
            v[field - 14] = strtoull(tok, NULL, 10);
    if (children)
        *children = v[2] + v[3];
    return v[0] + v[1];
}

static void snap(cpu_snap *s)
{
    s->t = now_us();
    unsigned long long f[8] = { 0 };
    FILE *fp = fopen("/proc/stat", "re");
    if (!fp || fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4],
                      &f[5], &f[6], &f[7]) != 8)
        die("cannot read /proc/stat");
    fclose(fp);
    s->busy = f[0] + f[1] + f[2] + f[5] + f[6];
    s->steal = f[7];
    s->total = s->busy + f[3] + f[4] + f[7];
    s->redis = srv.pid ? proc_ticks(srv.pid, NULL) : 0;
    s->self = proc_ticks(getpid(), &s->children);
    s->ours = s->self + s->children + s->redis;
}

typedef struct load {
    double secs, busy, steal, other; /* % of all CPUs */
} load;

static load load_between(const cpu_snap *a, const cpu_snap *b)
{
    double total = (double)(b->total - a->total);
    if (total <= 0)
        total = 1;
    double busy = (double)(b->busy - a->busy), ours = (double)(b->ours - a->ours);
    double other = busy - ours;
    return (load){ (b->t - a->t) / 1e6, 100 * busy / total, 100 * (double)(b->steal - a->steal) / total,
                   other > 0 ? 100 * other / total : 0 };
}

/* Machine CPU per job between two snapshots, in us. */
static double cpu_per_job(const cpu_snap *a, const cpu_snap *b, long jobs)
{
    return jobs > 0 ? (double)(b->busy - a->busy) * 1e6 / (double)clk_tck / (double)jobs : 0;
}

/* Who else ran: every process outside this bench's tree, by /proc scan at
 * both ends of a run (one that came and went between is not seen). */
typedef struct pent {
    int pid, ppid;
    unsigned long long start, ticks;
    bool kthread, ours;
} pent;

typedef struct pscan {
    int n;
    pent e[4096];
} pscan;

static pscan scan_begin, scan_end;

static void scan_procs(pscan *s)
{
    s->n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *de;
    char path[64], buf[2048];
    while ((de = readdir(d)) && s->n < (int)(sizeof s->e / sizeof s->e[0])) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        char *p = n > 0 ? (buf[n] = 0, strrchr(buf, ')')) : NULL;
        if (!p)
            continue;
        pent *e = &s->e[s->n];
        memset(e, 0, sizeof *e);
        e->pid = atoi(de->d_name);
        char *save = NULL, *tok = strtok_r(p + 2, " ", &save);
        for (int field = 3; tok && field <= 22; field++, tok = strtok_r(NULL, " ", &save)) {
            unsigned long long v = strtoull(tok, NULL, 10);
            if (field == 4)
                e->ppid = (int)v;
            else if (field == 9)
                e->kthread = (v & 0x00200000) != 0; /* PF_KTHREAD */
            else if (field == 14 || field == 15)
                e->ticks += v;
            else if (field == 22)
                e->start = v;
        }
        s->n++;
    }
    closedir(d);
    int self = getpid();
    for (int i = 0; i < s->n; i++) {
        int pid = s->e[i].pid;
        for (int hops = 0; hops < 64 && pid > 1 && pid != self; hops++) {
            int next = 0;
            for (int k = 0; k < s->n; k++)
                if (s->e[k].pid == pid) {
                    next = s->e[k].ppid;
                    break;
                }
            pid = next;
        }
        s->e[i].ours = pid == self;
    }
}

#define MAX_LOADS 32
static struct {
    char what[48];
    load l;
    double kthreads, procs; /* % of all CPUs, seen by the scans */
} loads[MAX_LOADS];
static int nloads;

static void window_begin(cpu_snap *s0)
{
    scan_procs(&scan_begin);
    snap(s0);
}

static void window_end(const char *what, const cpu_snap *s0, cpu_snap *out)
{
    cpu_snap s1;
    snap(&s1);
    if (out)
        *out = s1;
    scan_procs(&scan_end);
    if (nloads == MAX_LOADS)
        return;
    double kt = 0, pr = 0, total = (double)(s1.total - s0->total);
    for (int i = 0; i < scan_end.n; i++) {
        const pent *b = &scan_end.e[i];
        if (b->ours)
            continue;
        unsigned long long before = 0;
        for (int k = 0; k < scan_begin.n; k++)
            if (scan_begin.e[k].pid == b->pid && scan_begin.e[k].start == b->start) {
                before = scan_begin.e[k].ticks;
                break;
            }
        double d = b->ticks >= before ? (double)(b->ticks - before) : 0;
        *(b->kthread ? &kt : &pr) += d;
    }
    snprintf(loads[nloads].what, sizeof loads[nloads].what, "%s", what);
    loads[nloads].l = load_between(s0, &s1);
    loads[nloads].kthreads = total > 0 ? 100 * kt / total : 0;
    loads[nloads].procs = total > 0 ? 100 * pr / total : 0;
    nloads++;
}

/* ------------------------------------------------------------ worker process */

static long proc_status_kb(pid_t pid, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long v = -1;
    size_t fl = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
            v = atol(line + fl + 1);
            break;
        }
    fclose(f);
    return v;
}

static void worker_start(const char *prefix, unsigned threads, const char *name)
{
    snprintf(g_worker_log, sizeof g_worker_log, "%s/%s.log", srv.dir, name);
    char th[16];
    snprintf(th, sizeof th, "%u", threads);
    const char *argv[] = { worker_bin, "--threads", th, "--prefix", prefix, "--redis", srv.url,
                           "--name", name, "--log-level", "warn", NULL };
    int log = open(g_worker_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0)
        die("open %s: %s", g_worker_log, strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        /* Only async-signal-safe calls: the worker dies with this bench. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
            _exit(126);
        int nul = open("/dev/null", O_RDONLY);
        if (nul < 0 || dup2(nul, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
            _exit(126);
        execv(worker_bin, (char *const *)argv);
        _exit(127);
    }
    close(log);
    g_worker = pid;
    g_worker_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (g_worker_pidfd < 0)
        die("pidfd_open: %s", strerror(errno));
}

static void worker_check_alive(void)
{
    struct pollfd p = { g_worker_pidfd, POLLIN, 0 };
    if (poll(&p, 1, 0) == 1) {
        int st = 0;
        waitpid(g_worker, &st, 0);
        g_worker = 0;
        die("gradeq-worker exited early (status 0x%x)", st);
    }
}

/* Wakes the worker's job threads out of XREADGROUP BLOCK (their Redis
 * client names are "<name>/<i>"), so a drain takes no 2 s. */
static void worker_unblock(redisContext *c, const char *name)
{
    redisReply *r = rcmd(c, "CLIENT LIST");
    size_t nl = strlen(name);
    long sent = 0;
    for (char *line = r->str; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        char *id = strstr(line, "id="), *nm = strstr(line, " name=");
        if (id && nm && strncmp(nm + 6, name, nl) == 0 && nm[6 + nl] == '/') {
            if (redisAppendCommand(c, "CLIENT UNBLOCK %lld", atoll(id + 3)) != REDIS_OK)
                die("out of memory");
            sent++;
        }
        line = end ? end + 1 : NULL;
    }
    freeReplyObject(r);
    rdrain(c, sent);
}

/* SIGTERM (drain), nudges, waits on the pidfd with a deadline; returns the
 * wait status. */
static int worker_stop(redisContext *c, const char *name)
{
    kill(g_worker, SIGTERM);
    double deadline = now_us() + 20e6;
    for (;;) {
        worker_unblock(c, name);
        struct pollfd p = { g_worker_pidfd, POLLIN, 0 };
        if (poll(&p, 1, 100) == 1)
            break;
        if (now_us() > deadline) {
            fprintf(stderr, "bench_worker: worker did not drain within 20 s: SIGKILL\n");
            kill(g_worker, SIGKILL);
            break;
        }
    }
    int st = 0;
    waitpid(g_worker, &st, 0);
    close(g_worker_pidfd);
    g_worker_pidfd = -1;
    g_worker = 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "bench_worker: worker ended with status 0x%x\n", st);
    /* It logs at warn level: anything it said is worth seeing. */
    FILE *f = fopen(g_worker_log, "re");
    char line[512];
    for (int i = 0; f && fgets(line, sizeof line, f); i++)
        if (i < 5)
            fprintf(stderr, "  worker %s said: %s%s", name, line, strchr(line, '\n') ? "" : "\n");
        else if (i == 5)
            fprintf(stderr, "  worker %s said more: see its log\n", name);
    if (f)
        fclose(f);
    return st;
}

/* ------------------------------------------------------------ following results */

/* One result seen on P:results: its id and result fields (NULL/0 when
 * absent) and when it was read. */
typedef void (*entry_fn)(void *ctx, const char *id, size_t len, const char *res, size_t res_len, double t);

typedef struct follower {
    redisContext *c;
    char key[160];
    char last[64];
    long count;
} follower;

static void follower_init(follower *f, redisContext *c, const char *prefix)
{
    memset(f, 0, sizeof *f);
    f->c = c;
    snprintf(f->key, sizeof f->key, "%s:results", prefix);
    snprintf(f->last, sizeof f->last, "0-0");
}

/* Waits up to block_ms for new P:results entries; returns how many came. */
static long follow(follower *f, int block_ms, long max, entry_fn fn, void *ctx)
{
    redisReply *r = rcmd(f->c, "XREAD COUNT %ld BLOCK %d STREAMS %s %s", max, block_ms, f->key, f->last);
    double t = now_us();
    if (r->type == REDIS_REPLY_NIL) {
        freeReplyObject(r);
        return 0;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 || r->element[0]->type != REDIS_REPLY_ARRAY ||
        r->element[0]->elements != 2 || r->element[0]->element[1]->type != REDIS_REPLY_ARRAY)
        die("XREAD: unexpected reply");
    redisReply *es = r->element[0]->element[1];
    for (size_t i = 0; i < es->elements; i++) {
        redisReply *e = es->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[0]->type != REDIS_REPLY_STRING)
            die("XREAD: unexpected entry");
        if (i + 1 == es->elements)
            snprintf(f->last, sizeof f->last, "%s", e->element[0]->str);
        redisReply *fv = e->element[1];
        if (!fn || fv->type != REDIS_REPLY_ARRAY)
            continue;
        const redisReply *id = NULL, *res = NULL;
        for (size_t k = 0; k + 1 < fv->elements; k += 2) {
            if (fv->element[k]->len == 2 && memcmp(fv->element[k]->str, "id", 2) == 0)
                id = fv->element[k + 1];
            else if (fv->element[k]->len == 6 && memcmp(fv->element[k]->str, "result", 6) == 0)
                res = fv->element[k + 1];
        }
        if (id)
            fn(ctx, id->str, id->len, res ? res->str : NULL, res ? res->len : 0, t);
    }
    long n = (long)es->elements;
    f->count += n;
    freeReplyObject(r);
    return n;
}

typedef struct timing {
    cpu_snap first, last;
    long first_count;    /* results already in at the first snapshot */
} timing;

/* Follows until n results, snapshotting at the first and the n-th. */
static void wait_results(follower *f, long n, timing *tm, bool gradeq)
{
    double progress = now_us();
    tm->first_count = 0;
    while (f->count < n) {
        long got = follow(f, 500, 1000, NULL, NULL);
        if (got > 0) {
            progress = now_us();
            if (f->count == got) {
                snap(&tm->first);
                tm->first_count = got;
            }
        } else if (gradeq) {
            worker_check_alive();
        }
        if (now_us() - progress > IDLE_DEADLINE_US)
            die("no result for %.0f s (%ld of %ld in)", IDLE_DEADLINE_US / 1e6, f->count, n);
    }
    snap(&tm->last);
}

static double rate_of(const timing *tm, long n)
{
    double dt = tm->last.t - tm->first.t;
    return dt > 0 ? (double)(n - tm->first_count) * 1e6 / dt : 0;
}

/* ------------------------------------------------------------ the plain loop */

typedef struct plain_thread {
    pthread_t th;
    int index;
    const char *prefix;
    long done, failed;
} plain_thread;

/* argv and id out of the job's msgpack map; strings copied into buf. */
static int unpack_job(const char *data, size_t len, char *id, size_t idsize, char **argv, size_t maxargs,
                      char *buf, size_t bufsize)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0, used = 0, argc = 0;
    int rc = -1;
    id[0] = 0;
    if (msgpack_unpack_next(&u, data, len, &off) != MSGPACK_UNPACK_SUCCESS || u.data.type != MSGPACK_OBJECT_MAP)
        goto out;
    const msgpack_object_map *m = &u.data.via.map;
    for (uint32_t i = 0; i < m->size; i++) {
        const msgpack_object *k = &m->ptr[i].key, *v = &m->ptr[i].val;
        if (k->type != MSGPACK_OBJECT_STR)
            continue;
        if (k->via.str.size == 2 && memcmp(k->via.str.ptr, "id", 2) == 0 && v->type == MSGPACK_OBJECT_STR &&
            v->via.str.size < idsize) {
            memcpy(id, v->via.str.ptr, v->via.str.size);
            id[v->via.str.size] = 0;
        } else if (k->via.str.size == 4 && memcmp(k->via.str.ptr, "argv", 4) == 0 &&
                   v->type == MSGPACK_OBJECT_ARRAY) {
            for (uint32_t a = 0; a < v->via.array.size && argc + 1 < maxargs; a++) {
                const msgpack_object *s = &v->via.array.ptr[a];
                if (s->type != MSGPACK_OBJECT_STR || used + s->via.str.size + 1 > bufsize)
                    goto out;
                memcpy(buf + used, s->via.str.ptr, s->via.str.size);
                buf[used + s->via.str.size] = 0;
                argv[argc++] = buf + used;
                used += s->via.str.size + 1;
            }
        }
    }
    argv[argc] = NULL;
    rc = argc > 0 && id[0] ? 0 : -1;
out:
    msgpack_unpacked_destroy(&u);
    return rc;
}

/* posix_spawn (vfork) with stdout and stderr pipes drained, wait4.
 * Returns the exit code (128 + signal), -1 when it could not start. */
static int spawn_drain(char *const argv[], long long *cpu_us, long long *wall_us)
{
    int out[2], errp[2];
    if (pipe2(out, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(errp, O_CLOEXEC) < 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_USEVFORK);
    double t0 = now_us();
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(out[1]);
    close(errp[1]);
    if (rc != 0) {
        close(out[0]);
        close(errp[0]);
        return -1;
    }
    struct pollfd p[2] = { { out[0], POLLIN, 0 }, { errp[0], POLLIN, 0 } };
    int open_fds = 2;
    double deadline = t0 + 3e6; /* 3 x the default cpu_ms, as the sandbox's wall */
    char buf[16384];
    while (open_fds > 0) {
        int ms = (int)((deadline - now_us()) / 1000);
        if (ms <= 0 || poll(p, 2, ms) == 0) {
            kill(pid, SIGKILL);
            break;
        }
        for (int i = 0; i < 2; i++)
            if (p[i].fd >= 0 && p[i].revents) {
                ssize_t n = read(p[i].fd, buf, sizeof buf);
                if (n <= 0 && !(n < 0 && errno == EINTR)) {
                    close(p[i].fd);
                    p[i].fd = -1;
                    open_fds--;
                }
            }
    }
    for (int i = 0; i < 2; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
        ;
    *wall_us = (long long)(now_us() - t0);
    *cpu_us = (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec + (long long)ru.ru_stime.tv_sec * 1000000 +
              ru.ru_stime.tv_usec;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void pack_str(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

static void *plain_main(void *arg)
{
    plain_thread *p = arg;
    redisContext *c = rconnect();
    char jobs[160], results[160], id[160], strbuf[4096];
    char *argv[65];
    snprintf(jobs, sizeof jobs, "%s:jobs", p->prefix);
    snprintf(results, sizeof results, "%s:results", p->prefix);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    for (;;) {
        redisReply *r =
            rcmd(c, "XREADGROUP GROUP workers c%d COUNT 1 BLOCK 2000 STREAMS %s >", p->index, jobs);
        if (r->type == REDIS_REPLY_NIL) {
            freeReplyObject(r);
            continue;
        }
        /* [[key, [[entry-id, [field, value, ...]]]]] */
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 || r->element[0]->elements != 2 ||
            r->element[0]->element[1]->elements != 1)
            die("plain: unexpected XREADGROUP reply");
        redisReply *e = r->element[0]->element[1]->element[0], *fv = e->element[1];
        const char *eid = e->element[0]->str;
        const redisReply *job = NULL;
        bool stop = false;
        for (size_t k = 0; k + 1 < fv->elements; k += 2) {
            if (strcmp(fv->element[k]->str, "job") == 0)
                job = fv->element[k + 1];
            else if (strcmp(fv->element[k]->str, "stop") == 0)
                stop = true;
        }
        if (stop) { /* the bench's poison pill: one per thread */
            rdo(c, "XACK %s workers %s", jobs, eid);
            freeReplyObject(r);
            break;
        }
        if (!job || unpack_job(job->str, job->len, id, sizeof id, argv, 65, strbuf, sizeof strbuf) < 0)
            die("plain: entry %s: bad job", eid);
        long long cpu = 0, wall = 0;
        int code = spawn_drain(argv, &cpu, &wall);
        if (code != 0)
            p->failed++;
        msgpack_sbuffer_clear(&sb);
        msgpack_pack_map(&pk, 5);
        pack_str(&pk, "id");
        pack_str(&pk, id);
        pack_str(&pk, "status");
        pack_str(&pk, code == 0 ? "OK" : code < 0 ? "EXEC_ERROR" : "RUNTIME_ERROR");
        pack_str(&pk, "exit_code");
        msgpack_pack_int(&pk, code);
        pack_str(&pk, "cpu_us");
        msgpack_pack_long_long(&pk, cpu);
        pack_str(&pk, "wall_us");
        msgpack_pack_long_long(&pk, wall);
        /* One round trip: MULTI; XADD; XACK; EXEC. */
        if (redisAppendCommand(c, "MULTI") != REDIS_OK ||
            redisAppendCommand(c, "XADD %s MAXLEN ~ 100000 * id %s result %b", results, id, sb.data, sb.size) !=
                REDIS_OK ||
            redisAppendCommand(c, "XACK %s workers %s", jobs, eid) != REDIS_OK ||
            redisAppendCommand(c, "EXEC") != REDIS_OK)
            die("out of memory");
        rdrain(c, 3);
        void *x = NULL;
        if (redisGetReply(c, &x) != REDIS_OK)
            die("redis: %s", c->errstr);
        redisReply *ex = rcheck(c, x);
        if (ex->type != REDIS_REPLY_ARRAY || ex->elements != 2)
            die("plain: EXEC failed");
        freeReplyObject(ex);
        freeReplyObject(r);
        p->done++;
    }
    msgpack_sbuffer_destroy(&sb);
    redisFree(c);
    return NULL;
}

static plain_thread plain[MAX_THREADS];

static void plain_start(const char *prefix, unsigned threads)
{
    for (unsigned i = 0; i < threads; i++) {
        plain[i] = (plain_thread){ .index = (int)i, .prefix = prefix };
        if (pthread_create(&plain[i].th, NULL, plain_main, &plain[i]) != 0)
            die("pthread_create failed");
    }
}

/* Returns the failed job count. */
static long plain_stop(redisContext *c, const char *prefix, unsigned threads)
{
    for (unsigned i = 0; i < threads; i++)
        if (redisAppendCommand(c, "XADD %s:jobs * stop 1", prefix) != REDIS_OK)
            die("out of memory");
    rdrain(c, threads);
    long failed = 0;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(plain[i].th, NULL);
        failed += plain[i].failed;
    }
    return failed;
}

/* ------------------------------------------------------------ item 1 and 2 */

typedef struct tp_result {
    double rate, cpu_us_job, busy;
    double tree_us_job, redis_us_job; /* whole window: worker (or loop) and its programs; redis-server */
    double self_us_job, progs_us_job; /* the tree split: worker (or loop) itself; zygotes + programs */
    double other;                     /* % of the machine outside this bench's tree */
    long rss_kb;
} tp_result;

static tp_result throughput_run(redisContext *ctl, redisContext *fc, bool gradeq, unsigned threads, long n)
{
    char prefix[64], name[64], what[48];
    snprintf(prefix, sizeof prefix, "bw-%s-t%u", gradeq ? "gradeq" : "plain", threads);
    snprintf(name, sizeof name, "bench-t%u", threads);
    fresh_queue(ctl, prefix);
    prefill(ctl, prefix, "j", 0, n, true_argv, 0);
    follower f;
    follower_init(&f, fc, prefix);
    cpu_snap s0;
    timing tm;
    tp_result res = { 0 };
    unsigned long long wself = 0;
    window_begin(&s0);
    if (gradeq) {
        worker_start(prefix, threads, name);
        wait_results(&f, n, &tm, true);
        res.rss_kb = proc_status_kb(g_worker, "VmRSS");
        wself = proc_ticks(g_worker, NULL);
        worker_stop(ctl, name);
        long long ok = stat_get(ctl, prefix, "OK");
        if (ok != n)
            die("gradeq T=%u: %lld of %ld results OK (see P:stats)", threads, ok, n);
    } else {
        plain_start(prefix, threads);
        wait_results(&f, n, &tm, false);
        long failed = plain_stop(ctl, prefix, threads);
        if (failed)
            die("plain T=%u: %ld jobs failed", threads, failed);
    }
    snprintf(what, sizeof what, "1/2. %s T=%u, %ld jobs", gradeq ? "gradeq" : "plain", threads, n);
    cpu_snap s1;
    window_end(what, &s0, &s1);
    double us_tick = 1e6 / (double)clk_tck;
    res.tree_us_job = (double)((s1.ours - s1.redis) - (s0.ours - s0.redis)) * us_tick / (double)n;
    /* gradeq: the worker process itself vs its zygotes and programs (reaped
     * into this bench's children); plain: the loop threads (this process)
     * vs the programs. */
    double kids = (double)(s1.children - s0.children);
    res.self_us_job = (gradeq ? (double)wself : (double)(s1.self - s0.self)) * us_tick / (double)n;
    res.progs_us_job = (gradeq ? kids - (double)wself : kids) * us_tick / (double)n;
    res.redis_us_job = (double)(s1.redis - s0.redis) * us_tick / (double)n;
    res.other = loads[nloads - 1].l.other;
    res.rate = rate_of(&tm, n);
    res.cpu_us_job = cpu_per_job(&tm.first, &tm.last, n - tm.first_count);
    res.busy = load_between(&tm.first, &tm.last).busy;
    fprintf(stderr, "  %-8s T=%u: %6.0f jobs/s, machine %.0f us/job (tree %.0f, redis %.0f), busy %.0f %%, other %.1f %%\n",
            gradeq ? "gradeq" : "plain", threads, res.rate, res.cpu_us_job, res.tree_us_job, res.redis_us_job, res.busy,
            loads[nloads - 1].l.other);
    return res;
}

/* ------------------------------------------------------------ item 3 */

typedef struct lat_ctx {
    follower f;
    long total;
    double *recv, *run; /* when each result came; the run's own wall time (ms) */
    long received;
    bool failed;
} lat_ctx;

/* The unsigned integer under `key` in a msgpack map; -1 when absent. */
static double msgpack_map_uint(const char *data, size_t len, const char *key)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0, kl = strlen(key);
    double v = -1;
    if (data && msgpack_unpack_next(&u, data, len, &off) == MSGPACK_UNPACK_SUCCESS &&
        u.data.type == MSGPACK_OBJECT_MAP)
        for (uint32_t i = 0; i < u.data.via.map.size; i++) {
            const msgpack_object *k = &u.data.via.map.ptr[i].key, *o = &u.data.via.map.ptr[i].val;
            if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == kl && memcmp(k->via.str.ptr, key, kl) == 0 &&
                o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
                v = (double)o->via.u64;
        }
    msgpack_unpacked_destroy(&u);
    return v;
}

static void lat_entry(void *ctx, const char *id, size_t len, const char *res, size_t res_len, double t)
{
    lat_ctx *l = ctx;
    if (len < 5 || memcmp(id, "lat-", 4) != 0)
        return;
    long i = strtol(id + 4, NULL, 10);
    if (i >= 0 && i < l->total && l->recv[i] == 0) {
        l->recv[i] = t;
        l->run[i] = msgpack_map_uint(res, res_len, "wall_us") / 1e3;
        l->received++;
    }
}

static void *lat_follow_main(void *arg)
{
    lat_ctx *l = arg;
    double progress = now_us();
    while (l->received < l->total) {
        if (follow(&l->f, 500, 1000, lat_entry, l) > 0)
            progress = now_us();
        else if (now_us() - progress > IDLE_DEADLINE_US) {
            l->failed = true;
            break;
        }
    }
    return NULL;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct lat_result {
    double p50, p90, p99, max, rate;
    long n;
    double run_p50, run_p99, rest_p50, rest_p99;
    double other;
} lat_result;

static lat_result latency_run(redisContext *ctl, redisContext *fc, bool gradeq, unsigned threads, double rate,
                              double seconds)
{
    char prefix[64], name[64], what[48], err[512];
    snprintf(prefix, sizeof prefix, "bw-lat-%s", gradeq ? "gradeq" : "plain");
    snprintf(name, sizeof name, "bench-lat");
    fresh_queue(ctl, prefix);
    follower warm;
    follower_init(&warm, fc, prefix);
    cpu_snap s0;
    window_begin(&s0);
    if (gradeq)
        worker_start(prefix, threads, name);
    else
        plain_start(prefix, threads);
    /* Warm up: one job per thread, through the same submit path. */
    q_redis_addr addr;
    if (q_redis_url_parse(srv.url, &addr, err, sizeof err) < 0)
        die("%s", err);
    q_conn *qc = q_conn_open(&addr, NULL, err, sizeof err);
    if (!qc)
        die("q_conn_open: %s", err);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    char entry[Q_ID_LEN], id[64];
    for (unsigned i = 0; i < threads; i++) {
        snprintf(id, sizeof id, "warm-%u", i);
        encode_job(&sb, id, true_argv, 0);
        if (q_submit(qc, prefix, sb.data, sb.size, 0, entry, err, sizeof err) != 1)
            die("q_submit: %s", err);
    }
    timing tw;
    wait_results(&warm, threads, &tw, gradeq);
    /* All jobs encoded up front: the paced loop only submits. */
    long total = (long)(rate * seconds);
    if (total < 10)
        total = 10;
    char *blob = NULL;
    size_t *off = calloc((size_t)total + 1, sizeof *off);
    size_t cap = 0;
    for (long i = 0; i < total; i++) {
        snprintf(id, sizeof id, "lat-%ld", i);
        encode_job(&sb, id, true_argv, 0);
        if (off[i] + sb.size > cap) {
            cap = (off[i] + sb.size) * 2;
            blob = realloc(blob, cap);
            if (!blob)
                die("out of memory");
        }
        memcpy(blob + off[i], sb.data, sb.size);
        off[i + 1] = off[i] + sb.size;
    }
    msgpack_sbuffer_destroy(&sb);
    lat_ctx l = { .total = total, .recv = calloc((size_t)total, sizeof(double)),
                  .run = calloc((size_t)total, sizeof(double)) };
    double *sent = calloc((size_t)total, sizeof(double));
    if (!off || !l.recv || !l.run || !sent)
        die("out of memory");
    l.f = warm;
    l.f.c = rconnect(); /* the follower thread's own connection */
    pthread_t th;
    if (pthread_create(&th, NULL, lat_follow_main, &l) != 0)
        die("pthread_create failed");
    double period_ns = 1e9 / rate;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double t0 = start.tv_sec * 1e9 + start.tv_nsec + 5e6;
    for (long i = 0; i < total; i++) {
        double due = t0 + (double)i * period_ns;
        struct timespec ts = { (time_t)(due / 1e9), (long)(due - (double)(time_t)(due / 1e9) * 1e9) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        sent[i] = now_us();
        if (q_submit(qc, prefix, blob + off[i], off[i + 1] - off[i], 0, entry, err, sizeof err) != 1)
            die("q_submit: %s", err);
    }
    double submit_s = (now_us() - sent[0]) / 1e6;
    pthread_join(th, NULL);
    redisFree(l.f.c);
    q_conn_close(qc);
    if (gradeq) {
        worker_check_alive();
        worker_stop(ctl, name);
    } else if (plain_stop(ctl, prefix, threads)) {
        die("plain latency run: jobs failed");
    }
    snprintf(what, sizeof what, "3. latency %s T=%u", gradeq ? "gradeq" : "plain", threads);
    window_end(what, &s0, NULL);
    if (l.failed || l.received != total)
        die("latency run (%s): %ld of %ld results came back", gradeq ? "gradeq" : "plain", l.received, total);
    if (gradeq && stat_get(ctl, prefix, "OK") != total + threads)
        die("latency run: not every result is OK");
    double *lat = calloc((size_t)total, sizeof(double));
    if (!lat)
        die("out of memory");
    for (long i = 0; i < total; i++)
        lat[i] = (l.recv[i] - sent[i]) / 1e3;
    qsort(lat, (size_t)total, sizeof *lat, cmp_d);
    lat_result res = { lat[total / 2], lat[(long)(0.9 * (total - 1))], lat[(long)(0.99 * (total - 1))],
                       lat[total - 1], (double)(total - 1) / submit_s, total };
    /* Where it went: the run itself (wall_us of the result) and the rest
     * (queueing, Redis, the worker's own work around the run). */
    for (long i = 0; i < total; i++)
        lat[i] = l.run[i];
    qsort(lat, (size_t)total, sizeof *lat, cmp_d);
    res.run_p50 = lat[total / 2];
    res.run_p99 = lat[(long)(0.99 * (total - 1))];
    for (long i = 0; i < total; i++)
        lat[i] = (l.recv[i] - sent[i]) / 1e3 - l.run[i];
    qsort(lat, (size_t)total, sizeof *lat, cmp_d);
    res.rest_p50 = lat[total / 2];
    res.rest_p99 = lat[(long)(0.99 * (total - 1))];
    res.other = loads[nloads - 1].l.other;
    fprintf(stderr, "  %-8s latency at %.0f jobs/s: p50 %.2f ms, p99 %.2f ms, max %.2f ms (n=%ld)\n",
            gradeq ? "gradeq" : "plain", res.rate, res.p50, res.p99, res.max, total);
    free(lat);
    free(sent);
    free(l.recv);
    free(l.run);
    free(off);
    free(blob);
    return res;
}

/* ------------------------------------------------------------ item 4a */

typedef struct flood_result {
    long idle_kb, peak_kb, hwm_kb, after_kb[2], peak_round_kb[2], redis_kb;
    double secs[2];
    long samples;
} flood_result;

static flood_result flood_run(redisContext *ctl, redisContext *fc)
{
    const char *prefix = "bw-flood", *name = "bench-flood";
    fresh_queue(ctl, prefix);
    prefill(ctl, prefix, "warm", 0, floods, true_argv, 0);
    follower f;
    follower_init(&f, fc, prefix);
    cpu_snap s0;
    window_begin(&s0);
    worker_start(prefix, floods, name);
    timing tw;
    wait_results(&f, floods, &tw, true);
    flood_result res = { .idle_kb = proc_status_kb(g_worker, "VmRSS") };
    for (int round = 0; round < 2; round++) {
        char tag[32];
        snprintf(tag, sizeof tag, "flood%d", round);
        long long target = (long long)floods * (round + 2);
        double t0 = now_us();
        prefill(ctl, prefix, tag, 0, floods, yes_argv, FLOOD_CAP);
        /* Sample every 2 ms until every flood is published (the results
         * are 16 MiB each: counted in P:stats, never read back). */
        long peak = 0;
        for (;;) {
            long kb = proc_status_kb(g_worker, "VmRSS");
            if (kb > peak)
                peak = kb;
            res.samples++;
            if (stat_get(ctl, prefix, "jobs") >= target)
                break;
            worker_check_alive();
            if (now_us() - t0 > 60e6)
                die("floods: not all published within 60 s");
            struct timespec ts = { 0, 2000000 };
            nanosleep(&ts, NULL);
        }
        res.secs[round] = (now_us() - t0) / 1e6;
        res.peak_round_kb[round] = peak;
        if (peak > res.peak_kb)
            res.peak_kb = peak;
        res.after_kb[round] = proc_status_kb(g_worker, "VmRSS");
        fprintf(stderr, "  flood round %d: peak RSS %.1f MiB, after %.1f MiB, %.2f s\n", round + 1, peak / 1024.0,
                res.after_kb[round] / 1024.0, res.secs[round]);
    }
    res.hwm_kb = proc_status_kb(g_worker, "VmHWM");
    worker_stop(ctl, name);
    window_end("4a. RSS, output floods", &s0, NULL);
    redisReply *info = rcmd(ctl, "INFO memory");
    const char *um = strstr(info->str, "used_memory:");
    res.redis_kb = um ? atol(um + 12) / 1024 : -1;
    freeReplyObject(info);
    long long over = stat_get(ctl, prefix, "OUTPUT_LIMIT");
    if (over != 2 * floods)
        die("floods: %lld of %u ended OUTPUT_LIMIT", over, 2 * floods);
    rdo(ctl, "FLUSHALL"); /* 16 x 2 x 16 MiB of results */
    return res;
}

/* ------------------------------------------------------------ item 4b */

#define RSS_MARKS 6
static const long rss_marks[RSS_MARKS] = { 1000, 10000, 25000, 50000, 75000, 100000 };

typedef struct long_result {
    long jobs, target, rss_at[RSS_MARKS], rss_end_kb, rss_max_kb, hwm_kb;
    double rate, secs, budget_s;
    bool cut;
} long_result;

static long_result long_run(redisContext *ctl, redisContext *fc, unsigned threads, long target, double budget_s)
{
    const char *prefix = "bw-long", *name = "bench-long";
    const long batch = 2000;
    long_result res = { .target = target, .budget_s = budget_s };
    fresh_queue(ctl, prefix);
    long submitted = target < 2 * batch ? target : 2 * batch;
    prefill(ctl, prefix, "l", 0, submitted, true_argv, 0);
    follower f;
    follower_init(&f, fc, prefix);
    cpu_snap s0, first = { 0 };
    long first_count = 0;
    window_begin(&s0);
    worker_start(prefix, threads, name);
    double end = now_us() + budget_s * 1e6, progress = now_us(), report = now_us() + 10e6;
    int mark = 0;
    for (;;) {
        long got = follow(&f, 500, 2000, NULL, NULL);
        double t = now_us();
        if (got > 0) {
            progress = t;
            if (f.count == got) {
                snap(&first);
                first_count = got;
            }
            long kb = proc_status_kb(g_worker, "VmRSS");
            if (kb > res.rss_max_kb)
                res.rss_max_kb = kb;
            while (mark < RSS_MARKS && f.count >= rss_marks[mark])
                res.rss_at[mark++] = kb;
        } else {
            worker_check_alive();
        }
        if (t - progress > IDLE_DEADLINE_US)
            die("long run: no result for %.0f s (%ld of %ld in)", IDLE_DEADLINE_US / 1e6, f.count, submitted);
        if (t >= report) {
            fprintf(stderr, "  long run: %ld jobs done, %.0f s left, RSS %.1f MiB\n", f.count, (end - t) / 1e6,
                    proc_status_kb(g_worker, "VmRSS") / 1024.0);
            report = t + 10e6;
        }
        bool more = submitted < target && t < end;
        if (more && submitted - f.count < batch) {
            long n = target - submitted < batch ? target - submitted : batch;
            prefill(ctl, prefix, "l", submitted, n, true_argv, 0);
            submitted += n;
        }
        if (f.count >= submitted && !more)
            break;
    }
    cpu_snap last;
    snap(&last);
    res.jobs = f.count;
    res.cut = res.jobs < target;
    res.rss_end_kb = proc_status_kb(g_worker, "VmRSS");
    res.hwm_kb = proc_status_kb(g_worker, "VmHWM");
    res.secs = (last.t - first.t) / 1e6;
    res.rate = res.secs > 0 ? (double)(res.jobs - first_count) / res.secs : 0;
    worker_stop(ctl, name);
    window_end("4b. long run", &s0, NULL);
    long long ok = stat_get(ctl, prefix, "OK");
    if (ok != res.jobs)
        die("long run: %lld of %ld results OK", ok, res.jobs);
    rdo(ctl, "FLUSHALL");
    return res;
}

/* ------------------------------------------------------------ main */

static void usage(void)
{
    fprintf(stderr, "usage: bench_worker [-n JOBS] [-t T,T,...] [-l SECONDS] [-L SECONDS] [-J JOBS] [-F COUNT] [JOBS]\n"
                    "  -n JOBS     trivial jobs per throughput run (default 3000)\n"
                    "  -t LIST     worker threads of the throughput runs (default 2,3,4)\n"
                    "  -l SECONDS  length of each latency run (default 5)\n"
                    "  -L SECONDS  time budget of the long RSS run (default 120; 0 skips it)\n"
                    "  -J JOBS     jobs of the long RSS run (default 100000)\n"
                    "  -F COUNT    output floods at once in the RSS run (default 8)\n"
                    "Needs root (the worker refuses to run without full isolation).\n"
                    "GRADEQ_BIN: the directory of gradeq-worker (default build).\n");
    exit(2);
}

static const char *mark(bool ok)
{
    return ok ? "ok" : "MISS";
}

/* A note for a row whose runs had foreign load. */
static const char *noisy(double a, double b)
{
    static char buf[96];
    if (a <= 10 && b <= 10)
        return "";
    snprintf(buf, sizeof buf, "  NOISY: other %.0f / %.0f %% of the machine", a, b);
    return buf;
}

int main(int argc, char **argv)
{
    long n = 3000, long_jobs = 100000;
    double lat_s = 5, long_s = 120;
    unsigned tlist[MAX_THREADS] = { 2, 3, 4 }, nt = 3;
    int opt;
    while ((opt = getopt(argc, argv, "n:t:l:L:J:F:h")) != -1) {
        switch (opt) {
        case 'n': n = atol(optarg); break;
        case 'l': lat_s = atof(optarg); break;
        case 'L': long_s = atof(optarg); break;
        case 'J': long_jobs = atol(optarg); break;
        case 'F': floods = (unsigned)atoi(optarg); break;
        case 't': {
            nt = 0;
            for (char *s = optarg; *s && nt < MAX_THREADS;) {
                char *e;
                long v = strtol(s, &e, 10);
                if (e == s || v < 1 || v > MAX_THREADS)
                    usage();
                tlist[nt++] = (unsigned)v;
                s = *e == ',' ? e + 1 : e;
                if (*e && *e != ',')
                    usage();
            }
            break;
        }
        default: usage();
        }
    }
    if (optind < argc)
        n = atol(argv[optind]); /* like bench_sandbox: a bare count */
    if (n < 10 || nt == 0 || lat_s <= 0 || long_s < 0 || long_jobs < 1000 || floods < 1 || floods > 64)
        usage();
    signal(SIGPIPE, SIG_IGN);
    clk_tck = sysconf(_SC_CLK_TCK);
    const char *bindir = getenv("GRADEQ_BIN") ? getenv("GRADEQ_BIN") : "build";
    snprintf(worker_bin, sizeof worker_bin, "%s/gradeq-worker", bindir);
    if (access(worker_bin, X_OK) < 0) {
        fprintf(stderr, "bench_worker: %s: %s (set GRADEQ_BIN)\n", worker_bin, strerror(errno));
        return 1;
    }
    if (geteuid() != 0) {
        fprintf(stderr, "bench_worker: needs root: gradeq-worker refuses to run without full isolation\n");
        return 1;
    }
    /* Foreign load before anything of ours runs: a 300 ms sample. */
    cpu_snap i0, i1;
    snap(&i0);
    struct timespec idle = { 0, 300000000 };
    nanosleep(&idle, NULL);
    snap(&i1);
    load idle_load = load_between(&i0, &i1);
    char err[512];
    if (rs_start(&srv, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "bench_worker: redis: %s\n", err);
        return 1;
    }
    redisContext *ctl = rconnect(), *fc = rconnect();
    fprintf(stderr, "bench_worker: %ld jobs per throughput run, threads", n);
    for (unsigned i = 0; i < nt; i++)
        fprintf(stderr, " %u", tlist[i]);
    fprintf(stderr, "; idle load before start: %.1f %% busy\n", idle_load.busy);

    /* 1 and 2, interleaved: plain T, gradeq T, ... */
    tp_result gq[MAX_THREADS], pl[MAX_THREADS];
    unsigned best = 0;
    for (unsigned i = 0; i < nt; i++) {
        pl[i] = throughput_run(ctl, fc, false, tlist[i], n);
        gq[i] = throughput_run(ctl, fc, true, tlist[i], n);
        if (gq[i].rate > gq[best].rate)
            best = i;
    }
    /* 3. at half the best measured rate, gradeq and then the plain loop. */
    double lat_rate = gq[best].rate / 2;
    lat_result lg = latency_run(ctl, fc, true, tlist[best], lat_rate, lat_s);
    lat_result lp = latency_run(ctl, fc, false, tlist[best], lat_rate, lat_s);
    /* 4a, 4b. */
    flood_result fr = flood_run(ctl, fc);
    long_result lr = { 0 };
    if (long_s > 0)
        lr = long_run(ctl, fc, tlist[best], long_jobs, long_s);

    /* ---- the table ---- */
    printf("\nbench_worker: gradeq-worker end to end through a private redis-server (unix socket);\n"
           "baseline = the plain loop (no isolation) in the same run; \"a / b\" in notes = gradeq / baseline\n");
    if (idle_load.busy > 10)
        printf("WARNING: the machine was %.0f %% busy before the bench started: expect NOISY runs\n", idle_load.busy);
    printf("%-52s %13s %13s %7s   %s\n", "what", "gradeq", "baseline", "ratio", "target");
    for (unsigned i = 0; i < nt; i++) {
        char what[64];
        snprintf(what, sizeof what, "1/2. /bin/true jobs/s, %u threads (N=%ld)", tlist[i], n);
        double ratio = pl[i].rate > 0 ? gq[i].rate / pl[i].rate : 0;
        printf("%-52s %10.0f /s %10.0f /s %7.2f   >= 1000/s [%s], ratio >= 0.60 [%s]%s\n", what, gq[i].rate,
               pl[i].rate, ratio, mark(gq[i].rate >= 1000), mark(ratio >= 0.6), noisy(gq[i].other, pl[i].other));
        printf("      CPU/job, ms: machine %.2f / %.2f; worker process %.2f / %.2f, zygotes+programs %.2f / %.2f, "
               "redis %.2f / %.2f; busy %.0f / %.0f %%; worker RSS %.1f MiB\n",
               gq[i].cpu_us_job / 1e3, pl[i].cpu_us_job / 1e3, gq[i].self_us_job / 1e3, pl[i].self_us_job / 1e3,
               gq[i].progs_us_job / 1e3, pl[i].progs_us_job / 1e3, gq[i].redis_us_job / 1e3,
               pl[i].redis_us_job / 1e3, gq[i].busy, pl[i].busy, gq[i].rss_kb / 1024.0);
    }
    char what[96];
    snprintf(what, sizeof what, "3. submit->result p50 at %.0f jobs/s, %u threads", lg.rate, tlist[best]);
    printf("%-52s %10.2f ms %10.2f ms %7.2f   (rate = half the best jobs/s above)\n", what, lg.p50, lp.p50,
           lp.p50 > 0 ? lg.p50 / lp.p50 : 0);
    printf("%-52s %10.2f ms %10.2f ms %7.2f   < 10 ms [%s]%s\n", "3. submit->result p99", lg.p99, lp.p99,
           lp.p99 > 0 ? lg.p99 / lp.p99 : 0, mark(lg.p99 < 10), noisy(lg.other, lp.other));
    printf("      p90 %.2f / %.2f ms, max %.2f / %.2f ms, n=%ld; of which the run itself (result wall_us) p50 %.2f / "
           "%.2f, p99 %.2f / %.2f ms; the rest (queue, Redis, worker) p50 %.2f / %.2f, p99 %.2f / %.2f ms\n",
           lg.p90, lp.p90, lg.max, lp.max, lg.n, lg.run_p50, lp.run_p50, lg.run_p99, lp.run_p99, lg.rest_p50,
           lp.rest_p50, lg.rest_p99, lp.rest_p99);
    double budget = 32 + floods * (double)FLOOD_CAP / MIB;
    snprintf(what, sizeof what, "4a. worker RSS peak, %u x yes at a 16 MiB cap", floods);
    printf("%-52s %9.1f MiB %9.1f MiB %7.2f   <= budget [%s]\n", what, fr.peak_kb / 1024.0, budget,
           fr.peak_kb / 1024.0 / budget, mark(fr.peak_kb / 1024.0 <= budget && fr.hwm_kb / 1024.0 <= budget));
    printf("      budget = 32 MiB + %u x 16 MiB; VmHWM %.1f MiB; RSS idle %.1f MiB, after round 1 %.1f MiB, after "
           "round 2 %.1f MiB; round peaks %.1f / %.1f MiB (%ld samples, every 2 ms); redis used_memory after "
           "the %u results: %.0f MiB\n",
           floods, fr.hwm_kb / 1024.0, fr.idle_kb / 1024.0, fr.after_kb[0] / 1024.0, fr.after_kb[1] / 1024.0,
           fr.peak_round_kb[0] / 1024.0, fr.peak_round_kb[1] / 1024.0, fr.samples, 2 * floods, fr.redis_kb / 1024.0);
    if (long_s > 0) {
        snprintf(what, sizeof what, "4b. worker RSS after %ld jobs vs after 1,000", lr.jobs);
        printf("%-52s %9.1f MiB %9.1f MiB %7.2f   < 32 MiB and flat [%s]\n", what, lr.rss_end_kb / 1024.0,
               lr.rss_at[0] / 1024.0, lr.rss_at[0] ? (double)lr.rss_end_kb / (double)lr.rss_at[0] : 0,
               mark(lr.rss_end_kb < 32 * 1024 && lr.rss_end_kb <= lr.rss_at[0] + 1024));
        printf("      RSS at");
        for (int i = 0; i < RSS_MARKS; i++)
            if (lr.rss_at[i])
                printf(" %ldk: %.1f,", rss_marks[i] / 1000, lr.rss_at[i] / 1024.0);
        printf(" max seen %.1f MiB, VmHWM %.1f MiB; %.0f jobs/s sustained over %.0f s, %u threads\n",
               lr.rss_max_kb / 1024.0, lr.hwm_kb / 1024.0, lr.rate, lr.secs, tlist[best]);
        if (lr.cut)
            printf("      NOTE: stopped at the %.0f s budget after %ld of %ld jobs (-L, -J to change)\n", lr.budget_s,
                   lr.jobs, lr.target);
    }
    printf("\nmachine load per run (/proc/stat, all CPUs; other = CPU outside this bench's process tree: foreign "
           "load and kernel threads)\n");
    printf("%-32s %7s %7s %7s %7s %9s %9s\n", "run", "secs", "busy %", "steal %", "other %", "kthreads", "procs");
    printf("%-32s %7.1f %7.1f %7.1f %7s\n", "idle, before start", idle_load.secs, idle_load.busy, idle_load.steal,
           "-");
    for (int i = 0; i < nloads; i++)
        printf("%-32s %7.1f %7.1f %7.1f %7.1f %9.1f %9.1f%s\n", loads[i].what, loads[i].l.secs, loads[i].l.busy,
               loads[i].l.steal, loads[i].l.other, loads[i].kthreads, loads[i].procs,
               loads[i].l.other > 10 ? "  NOISY" : "");
    printf("(other = busy - CPU of this tree; kthreads and procs: the part of it seen in kernel threads and in other "
           "long-lived processes; the rest ran in processes that came and went)\n");
    redisFree(ctl);
    redisFree(fc);
    rs_destroy(&srv);
    return 0;
}
