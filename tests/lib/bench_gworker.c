/* bench_gworker.c -- bench_worker's gradeq-worker process: start (fork,
 * exec, PR_SET_PDEATHSIG, a pidfd), liveness checks, the production stop
 * (SIGTERM, CLIENT UNBLOCK nudges, a deadline) and the kill on a fatal
 * error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/bench_common.h"
#include "tests/lib/bench_gworker.h"
#include "tests/lib/bench_redis.h"

char bw_worker_bin[512];
pid_t bw_worker_pid;
static int g_worker_pidfd = -1;
static char g_worker_log[600];

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

void bw_worker_kill(void)
{
    if (bw_worker_pid > 0) {
        kill(bw_worker_pid, SIGKILL);
        waitpid(bw_worker_pid, NULL, 0);
        log_tail();
    }
}

void bw_worker_start(const char *prefix, unsigned threads, const char *name)
{
    snprintf(g_worker_log, sizeof g_worker_log, "%s/%s.log", bw_srv.dir, name);
    char th[16];
    snprintf(th, sizeof th, "%u", threads);
    const char *argv[] = { bw_worker_bin, "--threads", th, "--prefix", prefix, "--redis", bw_srv.url,
                           "--name", name, "--log-level", "warn", NULL };
    int log = open(g_worker_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0)
        bw_die("open %s: %s", g_worker_log, strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        bw_die("fork: %s", strerror(errno));
    if (pid == 0) {
        /* Only async-signal-safe calls: the worker dies with this bench. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
            _exit(126);
        int nul = open("/dev/null", O_RDONLY);
        if (nul < 0 || dup2(nul, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
            _exit(126);
        execv(bw_worker_bin, (char *const *)argv);
        _exit(127);
    }
    close(log);
    bw_worker_pid = pid;
    g_worker_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (g_worker_pidfd < 0)
        bw_die("pidfd_open: %s", strerror(errno));
}

void bw_worker_check_alive(void)
{
    struct pollfd p = { g_worker_pidfd, POLLIN, 0 };
    if (poll(&p, 1, 0) == 1) {
        int st = 0;
        waitpid(bw_worker_pid, &st, 0);
        bw_worker_pid = 0;
        bw_die("gradeq-worker exited early (status 0x%x)", st);
    }
}

/* Wakes the worker's job threads out of XREADGROUP BLOCK (their Redis
 * client names are "<name>/<i>"), so a drain takes no 2 s. */
static void worker_unblock(redisContext *c, const char *name)
{
    redisReply *r = bw_rcmd(c, "CLIENT LIST");
    size_t nl = strlen(name);
    long sent = 0;
    for (char *line = r->str; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        char *id = strstr(line, "id="), *nm = strstr(line, " name=");
        if (id && nm && strncmp(nm + 6, name, nl) == 0 && nm[6 + nl] == '/') {
            if (redisAppendCommand(c, "CLIENT UNBLOCK %lld", atoll(id + 3)) != REDIS_OK)
                bw_die("out of memory");
            sent++;
        }
        line = end ? end + 1 : NULL;
    }
    freeReplyObject(r);
    bw_rdrain(c, sent);
}

/* SIGTERM (drain), nudges, waits on the pidfd with a deadline; returns the
 * wait status. */
int bw_worker_stop(redisContext *c, const char *name)
{
    kill(bw_worker_pid, SIGTERM);
    double deadline = bw_now_us() + 20e6;
    for (;;) {
        worker_unblock(c, name);
        struct pollfd p = { g_worker_pidfd, POLLIN, 0 };
        if (poll(&p, 1, 100) == 1)
            break;
        if (bw_now_us() > deadline) {
            fprintf(stderr, "bench_worker: worker did not drain within 20 s: SIGKILL\n");
            kill(bw_worker_pid, SIGKILL);
            break;
        }
    }
    int st = 0;
    waitpid(bw_worker_pid, &st, 0);
    close(g_worker_pidfd);
    g_worker_pidfd = -1;
    bw_worker_pid = 0;
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
