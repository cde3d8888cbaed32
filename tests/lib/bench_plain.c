/* bench_plain.c -- the plain baseline worker loop of bench_worker: per
 * thread, XREADGROUP COUNT 1, unpack argv, posix_spawn (vfork) with stdout
 * and stderr pipes drained, wait4, then one pipelined MULTI; XADD
 * P:results; XACK; EXEC. No isolation: what the worker's cycle costs
 * without the sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hiredis/hiredis.h>
#include <msgpack.h>

#include "tests/lib/bench_common.h"
#include "tests/lib/bench_plain.h"
#include "tests/lib/bench_redis.h"

extern char **environ;

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
    double t0 = bw_now_us();
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
        int ms = (int)((deadline - bw_now_us()) / 1000);
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
    *wall_us = (long long)(bw_now_us() - t0);
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
    redisContext *c = bw_rconnect();
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
            bw_rcmd(c, "XREADGROUP GROUP workers c%d COUNT 1 BLOCK 2000 STREAMS %s >", p->index, jobs);
        if (r->type == REDIS_REPLY_NIL) {
            freeReplyObject(r);
            continue;
        }
        /* [[key, [[entry-id, [field, value, ...]]]]] */
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 || r->element[0]->elements != 2 ||
            r->element[0]->element[1]->elements != 1)
            bw_die("plain: unexpected XREADGROUP reply");
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
            bw_rdo(c, "XACK %s workers %s", jobs, eid);
            freeReplyObject(r);
            break;
        }
        if (!job || unpack_job(job->str, job->len, id, sizeof id, argv, 65, strbuf, sizeof strbuf) < 0)
            bw_die("plain: entry %s: bad job", eid);
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
            bw_die("out of memory");
        bw_rdrain(c, 3);
        void *x = NULL;
        if (redisGetReply(c, &x) != REDIS_OK)
            bw_die("redis: %s", c->errstr);
        redisReply *ex = bw_rcheck(c, x);
        if (ex->type != REDIS_REPLY_ARRAY || ex->elements != 2)
            bw_die("plain: EXEC failed");
        freeReplyObject(ex);
        freeReplyObject(r);
        p->done++;
    }
    msgpack_sbuffer_destroy(&sb);
    redisFree(c);
    return NULL;
}

static plain_thread plain[BW_MAX_THREADS];

void bw_plain_start(const char *prefix, unsigned threads)
{
    for (unsigned i = 0; i < threads; i++) {
        plain[i] = (plain_thread){ .index = (int)i, .prefix = prefix };
        if (pthread_create(&plain[i].th, NULL, plain_main, &plain[i]) != 0)
            bw_die("pthread_create failed");
    }
}

/* Returns the failed job count. */
long bw_plain_stop(redisContext *c, const char *prefix, unsigned threads)
{
    for (unsigned i = 0; i < threads; i++)
        if (redisAppendCommand(c, "XADD %s:jobs * stop 1", prefix) != REDIS_OK)
            bw_die("out of memory");
    bw_rdrain(c, threads);
    long failed = 0;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(plain[i].th, NULL);
        failed += plain[i].failed;
    }
    return failed;
}
