/* bench_plain.c -- the plain baseline worker loop of bench_worker: per
 * thread, unpack argv, posix_spawn (vfork) with stdout and stderr pipes
 * drained, wait4, then the Redis work a minimal correct worker must do,
 * in one round trip: a script (PLAIN_SCRIPT) that checks the thread
 * still owns the entry, acks and deletes it, replaces P:result:<id> (with
 * its TTL), appends to P:results, counts the status, `jobs` and the
 * per-second ring, and reads the thread's next job (a value over the
 * worker's default --max-job-bytes cut), as the worker's publish does.
 * The result map has every field the protocol names. XREADGROUP BLOCK
 * only when the script brought no job. No isolation: what the worker's
 * cycle costs without the sandbox.
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
static int spawn_drain(char *const argv[], long long *cpu_us, long long *wall_us, long long *mem_bytes)
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
    *mem_bytes = (long long)ru.ru_maxrss * 1024;
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

/* The minimal correct publish (docs/protocol.md's "Delivery semantics"
 * and "Getting the result"), then the next job. KEYS jobs, stats, rate,
 * results, reslist; ARGV consumer, entry, id, status, result, ttl, maxlen,
 * max_job, keep. Reply: 0 not owned, 1 published (no job waiting), or
 * {id, fields} of the next job. */
static const char PLAIN_SCRIPT[] =
    "local jobs, stats, rate, results, reslist = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]\n"
    "local consumer, entry = ARGV[1], ARGV[2]\n"
    "if #redis.call('XPENDING', jobs, 'workers', entry, entry, 1, consumer) == 0 then return 0 end\n"
    "redis.call('XACK', jobs, 'workers', entry)\n"
    "redis.call('XDEL', jobs, entry)\n"
    "redis.call('DEL', reslist)\n"
    "redis.call('RPUSH', reslist, ARGV[5])\n"
    "redis.call('EXPIRE', reslist, ARGV[6])\n"
    "redis.call('XADD', results, 'MAXLEN', '~', ARGV[7], '*', 'id', ARGV[3], 'result', ARGV[5])\n"
    "redis.call('HINCRBY', stats, ARGV[4], 1)\n"
    "redis.call('HINCRBY', stats, 'jobs', 1)\n"
    "local now = redis.call('TIME')[1]\n"
    "local slot = tostring(tonumber(now) % 64)\n"
    "if redis.call('HGET', rate, 't' .. slot) == now then\n"
    "  redis.call('HINCRBY', rate, 'n' .. slot, 1)\n"
    "else\n"
    "  redis.call('HSET', rate, 't' .. slot, now, 'n' .. slot, 1)\n"
    "end\n"
    "local r = redis.call('XREADGROUP', 'GROUP', 'workers', consumer, 'COUNT', 1, 'STREAMS', jobs, '>')\n"
    "if not r then return 1 end\n"
    "local e = r[1][2][1]\n"
    "local f = e[2]\n"
    "for i = 2, #f, 2 do\n"
    "  if #f[i] > tonumber(ARGV[8]) then f[i] = string.sub(f[i], 1, tonumber(ARGV[9])) end\n"
    "end\n"
    "return {e[1], f}\n";

static void *plain_main(void *arg)
{
    plain_thread *p = arg;
    redisContext *c = bw_rconnect();
    char jobs[160], results[160], stats[160], rate[160], reslist[400], consumer[16], id[160], strbuf[4096];
    char *argv[65];
    snprintf(jobs, sizeof jobs, "%s:jobs", p->prefix);
    snprintf(results, sizeof results, "%s:results", p->prefix);
    snprintf(stats, sizeof stats, "%s:stats", p->prefix);
    snprintf(rate, sizeof rate, "%s:rate", p->prefix);
    snprintf(consumer, sizeof consumer, "c%d", p->index);
    redisReply *l = bw_rcmd(c, "SCRIPT LOAD %s", PLAIN_SCRIPT);
    char sha[41];
    snprintf(sha, sizeof sha, "%s", l->str);
    freeReplyObject(l);
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    redisReply *held = NULL;  /* the reply the entry below lives in */
    redisReply *e = NULL;     /* [entry-id, [field, value, ...]] */
    for (;;) {
        if (!e) {
            redisReply *r = bw_rcmd(c, "XREADGROUP GROUP workers %s COUNT 1 BLOCK 2000 STREAMS %s >", consumer, jobs);
            if (r->type == REDIS_REPLY_NIL) {
                freeReplyObject(r);
                continue;
            }
            /* [[key, [[entry-id, [field, value, ...]]]]] */
            if (r->type != REDIS_REPLY_ARRAY || r->elements != 1 || r->element[0]->elements != 2 ||
                r->element[0]->element[1]->elements != 1)
                bw_die("plain: unexpected XREADGROUP reply");
            held = r;
            e = r->element[0]->element[1]->element[0];
        }
        redisReply *fv = e->element[1];
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
            freeReplyObject(held);
            break;
        }
        if (!job || unpack_job(job->str, job->len, id, sizeof id, argv, 65, strbuf, sizeof strbuf) < 0)
            bw_die("plain: entry %s: bad job", eid);
        long long cpu = 0, wall = 0, mem = 0;
        int code = spawn_drain(argv, &cpu, &wall, &mem);
        if (code != 0)
            p->failed++;
        const char *status = code == 0 ? "OK" : code < 0 ? "EXEC_ERROR" : "RUNTIME_ERROR";
        msgpack_sbuffer_clear(&sb);
        /* Every field of the protocol's result map (a run's: no
         * isolation held here, so that list is empty). */
        msgpack_pack_map(&pk, 15);
        pack_str(&pk, "id");
        pack_str(&pk, id);
        pack_str(&pk, "status");
        pack_str(&pk, status);
        pack_str(&pk, "exit_code");
        msgpack_pack_int(&pk, code);
        pack_str(&pk, "signal");
        msgpack_pack_nil(&pk);
        pack_str(&pk, "stdout");
        msgpack_pack_bin(&pk, 0);
        pack_str(&pk, "stderr");
        msgpack_pack_bin(&pk, 0);
        pack_str(&pk, "stdout_truncated");
        msgpack_pack_false(&pk);
        pack_str(&pk, "stderr_truncated");
        msgpack_pack_false(&pk);
        pack_str(&pk, "cpu_us");
        msgpack_pack_long_long(&pk, cpu);
        pack_str(&pk, "wall_us");
        msgpack_pack_long_long(&pk, wall);
        pack_str(&pk, "memory_bytes");
        msgpack_pack_long_long(&pk, mem);
        pack_str(&pk, "worker");
        pack_str(&pk, "plain");
        pack_str(&pk, "attempt");
        msgpack_pack_int(&pk, 1);
        pack_str(&pk, "error");
        msgpack_pack_nil(&pk);
        pack_str(&pk, "isolation");
        msgpack_pack_array(&pk, 0);
        snprintf(reslist, sizeof reslist, "%s:result:%s", p->prefix, id);
        /* One round trip: publish, fenced, and the next job. */
        redisReply *r = bw_rcmd(c, "EVALSHA %s 5 %s %s %s %s %s %s %s %s %s %b 86400 100000 67108864 4096", sha,
                                jobs, stats, rate, results, reslist, consumer, eid, id, status, sb.data, sb.size);
        freeReplyObject(held);
        held = NULL;
        e = NULL;
        if (r->type == REDIS_REPLY_INTEGER && r->integer == 0)
            bw_die("plain: entry of job %s no longer ours", id);
        if (r->type == REDIS_REPLY_ARRAY) {
            if (r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
                r->element[1]->type != REDIS_REPLY_ARRAY)
                bw_die("plain: unexpected reply of the publish script");
            held = r;
            e = r;
        } else {
            freeReplyObject(r);
        }
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
