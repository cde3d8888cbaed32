/* stream_workers.c -- the worker registry: P:worker:<name> hashes that
 * live workers refresh and `gradeq stats` lists (see stream.h).
 *
 * DESIGN. A beat is HSET + EXPIRE pipelined: a worker that dies vanishes
 * from the registry when its TTL runs out. A listing SCANs P:worker:* and
 * reads the hashes it finds in batches of WORKER_BATCH through one script
 * each, by a fixed list of fields.
 *
 * INVARIANTS
 *   - Every reply is bounded: SCAN replies carry only matching keys, and a
 *     hash is read by fixed HMGET fields whatever else it holds.
 *   - A listing holds each name once, though SCAN may return a key twice.
 */
#include <stdio.h>
#include <string.h>

#include "queue/err.h"
#include "queue/stream_internal.h"

#define WORKERS_MAX 1024
#define SCAN_COUNT "1000"     /* keys examined per SCAN; replies carry only matches */
#define WORKER_BATCH 64       /* worker hashes read per script call */

/* Reads the registry fields ARGV of each worker hash in KEYS (names found
 * by SCAN): a fixed field list bounds the reply whatever a hash holds.
 * Reply: one array of field values (nil if absent) per key. */
static const q_script script_workers = {
    "workers",
    "local out = {}\n"
    "for i, k in ipairs(KEYS) do\n"
    "  out[i] = redis.call('HMGET', k, unpack(ARGV))\n"
    "end\n"
    "return out\n",
};

/* The fields of P:worker:<name>, in q_worker_info order after the name. */
static const char *const worker_fields[] = { "host", "version", "pid", "threads", "busy",
                                             "jobs_done", "started_at", "last_seen", "languages" };

static int check_worker(const char *prefix, const char *name, char *err, size_t errlen)
{
    if (q_check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    return q_check_token("worker name", name, Q_NAME_MAX, err, errlen);
}

int q_worker_beat(q_conn *c, const char *prefix, const q_worker_info *w, long ttl_s,
                  char *err, size_t errlen)
{
    if (check_worker(prefix, w->name, err, errlen) < 0)
        return -1;
    if (ttl_s <= 0)
        return q_fail(err, errlen, "queue: worker ttl_s must be > 0");
    char key[Q_KEY_MAX];
    q_mkkey(key, prefix, "worker:", w->name);
    const long long nums[] = { w->pid, w->threads, w->busy, w->jobs_done, w->started_at,
                               w->last_seen };
    q_args hset, expire;
    q_args_init(&hset);
    q_args_str(&hset, "HSET");
    q_args_str(&hset, key);
    q_args_str(&hset, worker_fields[0]);
    q_args_bin(&hset, w->host, strnlen(w->host, sizeof w->host));
    q_args_str(&hset, worker_fields[1]);
    q_args_bin(&hset, w->version, strnlen(w->version, sizeof w->version));
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        q_args_str(&hset, worker_fields[i + 2]);
        q_args_ll(&hset, nums[i]);
    }
    q_args_str(&hset, worker_fields[8]);
    q_args_bin(&hset, w->languages, strnlen(w->languages, sizeof w->languages));
    q_args_init(&expire);
    q_args_str(&expire, "EXPIRE");
    q_args_str(&expire, key);
    q_args_ll(&expire, ttl_s);
    const q_args *cmds[2] = { &hset, &expire };
    redisReply *r[2];
    if (q_pipeline(c, 2, cmds, r, err, errlen) < 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < 2; i++) {
        if (rc == 0 && r[i]->type == REDIS_REPLY_ERROR)
            rc = q_fail(err, errlen, "redis: %s", r[i]->str);
        freeReplyObject(r[i]);
    }
    return rc;
}

int q_worker_gone(q_conn *c, const char *prefix, const char *name, char *err, size_t errlen)
{
    if (check_worker(prefix, name, err, errlen) < 0)
        return -1;
    char key[Q_KEY_MAX];
    q_mkkey(key, prefix, "worker:", name);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, "DEL");
    q_args_str(&a, key);
    redisReply *r = q_command(c, &a, err, errlen);
    if (!r)
        return -1;
    freeReplyObject(r);
    return 0;
}

/* Reads the registry fields of worker hashes keys[0..n) into out; skips
 * hashes that expired since SCAN and names already in out[0..have).
 * Returns how many it added, or -1. */
static int read_workers(q_conn *c, size_t name_at, redisReply *const *keys, size_t n,
                        q_worker_info *out, size_t have, char *err, size_t errlen)
{
    q_args a;
    q_args_init(&a);
    for (size_t i = 0; i < n; i++)
        q_args_bin(&a, keys[i]->str, keys[i]->len);
    for (size_t i = 0; i < sizeof worker_fields / sizeof worker_fields[0]; i++)
        q_args_str(&a, worker_fields[i]);
    redisReply *r = q_eval(c, &script_workers, (int)n, &a, err, errlen);
    if (!r)
        return -1;
    if (!q_is_array(r, n))
        return q_bad_reply(r, "the workers script", err, errlen);
    size_t added = 0;
    for (size_t i = 0; i < n; i++) {
        const redisReply *f = r->element[i];
        if (!q_is_array(f, 9) || f->element[0]->type != REDIS_REPLY_STRING)
            continue; /* expired, or not written by q_worker_beat */
        q_worker_info *w = &out[have + added];
        memset(w, 0, sizeof *w);
        (void)snprintf(w->name, sizeof w->name, "%.*s", (int)(keys[i]->len - name_at),
                       keys[i]->str + name_at);
        bool dup = false;
        for (size_t j = 0; j < have + added && !dup; j++)
            dup = !strcmp(out[j].name, w->name); /* SCAN may repeat a key */
        if (dup)
            continue;
        q_copy_str(w->host, sizeof w->host, f->element[0]);
        q_copy_str(w->version, sizeof w->version, f->element[1]);
        long long *nums[] = { &w->pid, &w->threads, &w->busy, &w->jobs_done,
                              &w->started_at, &w->last_seen };
        for (size_t k = 0; k < 6; k++)
            *nums[k] = q_reply_ll(f->element[k + 2]);
        q_copy_str(w->languages, sizeof w->languages, f->element[8]);
        added++;
    }
    freeReplyObject(r);
    return (int)added;
}

/* prefix:worker:* with the prefix's glob characters escaped. */
static void worker_pattern(char *out, size_t cap, const char *prefix)
{
    size_t o = 0;
    for (const char *p = prefix; *p && o + 2 < cap; p++) {
        if (strchr("*?[]\\", *p))
            out[o++] = '\\';
        out[o++] = *p;
    }
    (void)snprintf(out + o, cap - o, ":worker:*");
}

int q_workers_list(q_conn *c, const char *prefix, q_worker_info *out, size_t cap,
                   bool *truncated, char *err, size_t errlen)
{
    if (truncated)
        *truncated = false;
    if (q_check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    if (cap > WORKERS_MAX)
        return q_fail(err, errlen, "queue: at most %d workers per listing", WORKERS_MAX);
    char pattern[2 * Q_KEY_MAX], cursor[32] = "0";
    worker_pattern(pattern, sizeof pattern, prefix);
    size_t name_at = strlen(prefix) + strlen(":worker:"), n = 0;
    do {
        q_args a;
        q_args_init(&a);
        q_args_str(&a, "SCAN");
        q_args_str(&a, cursor);
        q_args_str(&a, "MATCH");
        q_args_str(&a, pattern);
        q_args_str(&a, "COUNT");
        q_args_str(&a, SCAN_COUNT);
        redisReply *r = q_command(c, &a, err, errlen);
        if (!r)
            return -1;
        if (!q_is_array(r, 2) || r->element[0]->type != REDIS_REPLY_STRING ||
            r->element[0]->len >= sizeof cursor || r->element[1]->type != REDIS_REPLY_ARRAY)
            return q_bad_reply(r, "SCAN", err, errlen);
        memcpy(cursor, r->element[0]->str, r->element[0]->len + 1);
        const redisReply *keys = r->element[1];
        for (size_t i = 0; i < keys->elements; i += WORKER_BATCH) {
            size_t batch = keys->elements - i < WORKER_BATCH ? keys->elements - i : WORKER_BATCH;
            if (batch > cap - n) {
                batch = cap - n;
                if (truncated)
                    *truncated = true;
            }
            for (size_t k = 0; k < batch; k++)
                if (keys->element[i + k]->type != REDIS_REPLY_STRING ||
                    keys->element[i + k]->len < name_at)
                    return q_bad_reply(r, "SCAN", err, errlen);
            int got = batch ? read_workers(c, name_at, keys->element + i, batch, out, n, err,
                                           errlen) : 0;
            if (got < 0) {
                freeReplyObject(r);
                return -1;
            }
            n += (size_t)got;
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0") && n < cap);
    if (n == cap && strcmp(cursor, "0") && truncated)
        *truncated = true;
    return (int)n;
}
