/* stream.c -- the gradeq job protocol on Redis Streams (see stream.h).
 *
 * DESIGN
 *   Every state change a worker makes is one Lua script taking all its key
 *   names through KEYS[] (Cluster-safe with a hash-tagged prefix), so it is
 *   atomic and one round trip. The scripts that finish a job (publish,
 *   dead) first check in the PEL that the caller still owns the entry:
 *   that check is the fence against a stalled worker whose job was claimed
 *   by another. Only XREADGROUP runs outside a script, because blocking
 *   commands do not block inside Lua.
 *
 * INVARIANTS
 *   - Every reply is bounded: COUNT 1 reads, at most Q_TOUCH_MAX touches,
 *     stats capped inside the script, workers read by fixed HMGET fields.
 *   - Caller strings are validated before they become key names.
 *   - An acked entry is always deleted in the same script, so XLEN P:jobs
 *     counts exactly the waiting and running jobs.
 */
#include "queue/stream.h"

#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEY_MAX 256           /* prefix + ":result:" + job id always fits */
#define RATE_WINDOW_S 60      /* jobs/s is averaged over this many seconds */
#define WORKERS_MAX 1024
#define SCAN_COUNT "1000"     /* keys examined per SCAN; replies carry only matches */
#define WORKER_BATCH 64       /* worker hashes read per script call */

/* ------------------------------------------------------------- scripts */

/* Stops the script unless consumer `consumer` still owns entry `entry` in
 * the group's PEL (the fence). Expects locals jobs, consumer, entry. */
#define LUA_FENCE                                                                      \
    "if #redis.call('XPENDING', jobs, 'workers', entry, entry, 1, consumer) == 0 then\n" \
    "  return 0\n"                                                                     \
    "end\n"

/* Acknowledges and deletes the entry: it is done, and P:jobs stays short. */
#define LUA_RETIRE                                   \
    "redis.call('XACK', jobs, 'workers', entry)\n" \
    "redis.call('XDEL', jobs, entry)\n"

/* Hands the result to the waiter (a one-element list, so a resubmitted job
 * id never serves a stale result first) and to P:results, counts it under
 * its status and `jobs`, and in the per-second ring P:rate: slot now % 64
 * holds t<slot> = the second it counts and n<slot> = the count, so the
 * hash never exceeds 128 fields and needs no per-second keys. Expects
 * locals stats, rate, results, reslist, job_id, status, result, ttl,
 * maxlen. */
#define LUA_DELIVER                                                                    \
    "redis.call('DEL', reslist)\n"                                                     \
    "redis.call('RPUSH', reslist, result)\n"                                           \
    "redis.call('EXPIRE', reslist, ttl)\n"                                             \
    "redis.call('XADD', results, 'MAXLEN', '~', maxlen, '*', 'id', job_id,\n"          \
    "           'result', result)\n"                                                   \
    "redis.call('HINCRBY', stats, status, 1)\n"                                        \
    "redis.call('HINCRBY', stats, 'jobs', 1)\n"                                        \
    "local now = redis.call('TIME')[1]\n"                                              \
    "local slot = tostring(tonumber(now) % 64)\n"                                      \
    "if redis.call('HGET', rate, 't' .. slot) == now then\n"                           \
    "  redis.call('HINCRBY', rate, 'n' .. slot, 1)\n"                                  \
    "else\n"                                                                           \
    "  redis.call('HSET', rate, 't' .. slot, now, 'n' .. slot, 1)\n"                   \
    "end\n"

/* Publishes a job's result if the caller still owns its entry.
 * Reply: 1 published, 0 not owned (nothing written). */
static const q_script script_publish = {
    "publish",
    "local jobs, stats, rate, results, reslist = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]\n"
    "local consumer, entry, job_id, status, result, ttl, maxlen =\n"
    "  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]\n"
    LUA_FENCE
    LUA_RETIRE
    LUA_DELIVER
    "return 1\n",
};

/* Dead-letters an entry the caller still owns: P:dead gets the entry id,
 * raw job and reason; DEAD is counted. With 3 more keys and 5 more args it
 * also publishes a result, so the waiter learns why.
 * Reply: 1 done, 0 not owned (nothing written). */
static const q_script script_dead = {
    "dead",
    "local jobs, stats, dead = KEYS[1], KEYS[2], KEYS[3]\n"
    "local consumer, entry, job, reason, dead_maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]\n"
    LUA_FENCE
    "redis.call('XADD', dead, 'MAXLEN', '~', dead_maxlen, '*', 'entry', entry, 'job', job,\n"
    "           'reason', reason)\n"
    "redis.call('HINCRBY', stats, 'DEAD', 1)\n"
    LUA_RETIRE
    "if #KEYS == 6 then\n"
    "  local rate, results, reslist = KEYS[4], KEYS[5], KEYS[6]\n"
    "  local job_id, status, result, ttl, maxlen = ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]\n"
    LUA_DELIVER
    "end\n"
    "return 1\n",
};

/* Claims one entry idle for ARGV[2] ms or more, scanning the PEL from
 * ARGV[3]. XAUTOCLAIM COUNT 1 examines at most 10 PEL entries, so it is
 * repeated up to 10 times (100 entries) to get past busy ones. Entries
 * deleted while pending come back in its third element, already dropped
 * from the PEL by Redis 7; they are counted as LOST. XAUTOCLAIM bumped the
 * delivery count; XPENDING reads it.
 * Reply: {next-start} or {next-start, id, fields, delivery-count}. */
static const q_script script_claim = {
    "claim",
    "local jobs, stats = KEYS[1], KEYS[2]\n"
    "local consumer, idle, start = ARGV[1], ARGV[2], ARGV[3]\n"
    "for _ = 1, 10 do\n"
    "  local r = redis.call('XAUTOCLAIM', jobs, 'workers', consumer, idle, start, 'COUNT', 1)\n"
    "  start = r[1]\n"
    "  if #r[3] > 0 then\n"
    "    redis.call('HINCRBY', stats, 'LOST', #r[3])\n"
    "  end\n"
    "  local e = r[2][1]\n"
    "  if e then\n"
    "    local p = redis.call('XPENDING', jobs, 'workers', e[1], e[1], 1)\n"
    "    return {start, e[1], e[2], p[1][4]}\n"
    "  end\n"
    "  if start == '0-0' then\n"
    "    break\n"
    "  end\n"
    "end\n"
    "return {start}\n",
};

/* Resets the idle time of entries ARGV[2..] that consumer ARGV[1] still
 * owns (fenced like publish). XCLAIM with min-idle 0 and JUSTID resets the
 * idle time without bumping the delivery count, and replies {} if the
 * entry was deleted meanwhile.
 * Reply: one 1 (still owned) or 0 (lost) per entry. */
static const q_script script_touch = {
    "touch",
    "local jobs, consumer, out = KEYS[1], ARGV[1], {}\n"
    "for i = 2, #ARGV do\n"
    "  local id, owned = ARGV[i], 0\n"
    "  if #redis.call('XPENDING', jobs, 'workers', id, id, 1, consumer) == 1 then\n"
    "    owned = #redis.call('XCLAIM', jobs, 'workers', consumer, 0, id, 'JUSTID')\n"
    "  end\n"
    "  out[#out + 1] = owned\n"
    "end\n"
    "return out\n",
};

/* Appends a job unless P:jobs already holds ARGV[1] (> 0) entries; check
 * and append are atomic, so concurrent submitters cannot overshoot.
 * Reply: {1, entry-id} added, {0, length} refused. */
static const q_script script_submit = {
    "submit",
    "local n, max = redis.call('XLEN', KEYS[1]), tonumber(ARGV[1])\n"
    "if max > 0 and n >= max then\n"
    "  return {0, n}\n"
    "end\n"
    "return {1, redis.call('XADD', KEYS[1], '*', 'job', ARGV[2])}\n",
};

/* Every queue gauge in one bounded reply. Ages come from entry ids (their
 * first part is the submit time in ms) against the server clock. Lists are
 * cut to ARGV[2] consumers and ARGV[3] counters; results are summed over
 * the last ARGV[4] (< 64) whole seconds of the P:rate ring.
 * Reply: {length, pending, oldest-pending-ms, lag, oldest-waiting-ms,
 *         dead, results-in-window, {consumer, count, ...}, consumers-total,
 *         {field, value, ...}, fields-total}; -1 where there is no value. */
static const q_script script_stats = {
    "stats",
    "local jobs, dead, stats, rate = KEYS[1], KEYS[2], KEYS[3], KEYS[4]\n"
    "local group, max_cons, max_ctrs, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]),\n"
    "  tonumber(ARGV[4])\n"
    "local t = redis.call('TIME')\n"
    "local now_s = tonumber(t[1])\n"
    "local now_ms = now_s * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    "local function age(id) return now_ms - tonumber(string.match(id, '^%d+')) end\n"
    "local length, pending, oldest_p, lag, oldest_w = 0, 0, -1, -1, -1\n"
    "local cons, ncons = {}, 0\n"
    "if redis.call('TYPE', jobs).ok == 'stream' then\n"
    "  length = redis.call('XLEN', jobs)\n"
    "  for _, g in ipairs(redis.call('XINFO', 'GROUPS', jobs)) do\n"
    "    local f = {}\n"
    "    for i = 1, #g, 2 do f[g[i]] = g[i + 1] end\n"
    "    if f['name'] == group then\n"
    "      if f['lag'] then lag = f['lag'] end\n"
    "      local w = redis.call('XRANGE', jobs, '(' .. f['last-delivered-id'], '+', 'COUNT', 1)\n"
    "      if #w == 1 then oldest_w = age(w[1][1]) end\n"
    "      local s = redis.call('XPENDING', jobs, group)\n"
    "      pending = s[1]\n"
    "      if pending > 0 then\n"
    "        oldest_p = age(s[2])\n"
    "        ncons = #s[4]\n"
    "        for i = 1, math.min(ncons, max_cons) do\n"
    "          cons[#cons + 1] = s[4][i][1]\n"
    "          cons[#cons + 1] = tonumber(s[4][i][2])\n"
    "        end\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "end\n"
    "local h, ctrs = redis.call('HGETALL', stats), {}\n"
    "for i = 1, math.min(#h, 2 * max_ctrs), 2 do\n"
    "  ctrs[#ctrs + 1] = h[i]\n"
    "  ctrs[#ctrs + 1] = tonumber(h[i + 1])\n"
    "end\n"
    "local ring, done = redis.call('HGETALL', rate), 0\n"
    "local f = {}\n"
    "for i = 1, #ring, 2 do f[ring[i]] = ring[i + 1] end\n"
    "for slot = 0, 63 do\n"
    "  local sec = tonumber(f['t' .. slot])\n"
    "  if sec and sec >= now_s - window and sec < now_s then\n"
    "    done = done + tonumber(f['n' .. slot])\n"
    "  end\n"
    "end\n"
    "return {length, pending, oldest_p, lag, oldest_w, redis.call('XLEN', dead), done,\n"
    "        cons, ncons, ctrs, #h / 2}\n",
};

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
                                             "jobs_done", "started_at", "last_seen" };

/* ---------------------------------------------------------- validation */

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* 1..max bytes of printable ASCII without space: safe in key names, logs
 * and SCAN patterns (after escaping). */
static int check_token(const char *what, const char *s, size_t max, char *err, size_t errlen)
{
    size_t n = s ? strnlen(s, max + 1) : 0;
    if (n == 0 || n > max)
        return fail(err, errlen, "queue: %s must be 1..%zu bytes", what, max);
    for (size_t i = 0; i < n; i++)
        if (s[i] < '!' || s[i] > '~')
            return fail(err, errlen, "queue: %s may only hold printable ASCII, no space", what);
    return 0;
}

/* "<ms>-<seq>", as Redis prints stream ids. */
static int check_entry_id(const char *id, char *err, size_t errlen)
{
    static const char digits[] = "0123456789";
    size_t n = id ? strnlen(id, Q_ID_LEN) : 0;
    size_t ms = n ? strspn(id, digits) : 0;
    if (n == 0 || n == Q_ID_LEN || ms == 0 || id[ms] != '-' || ms + 1 == n ||
        strspn(id + ms + 1, digits) != n - ms - 1)
        return fail(err, errlen, "queue: bad entry id \"%.*s\"", (int)n, id ? id : "");
    return 0;
}

/* Prefix, consumer and entry id: what every fenced call names. */
static int check_owner(const char *prefix, const char *consumer, const char *entry_id,
                       char *err, size_t errlen)
{
    if (check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0 ||
        check_token("consumer", consumer, Q_NAME_MAX, err, errlen) < 0)
        return -1;
    return entry_id ? check_entry_id(entry_id, err, errlen) : 0;
}

static int check_result(const q_delivery *r, char *err, size_t errlen)
{
    if (check_token("job id", r->job_id, Q_JOB_ID_MAX, err, errlen) < 0 ||
        check_token("status", r->status, Q_STATUS_MAX, err, errlen) < 0)
        return -1;
    if (strspn(r->status, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(r->status))
        return fail(err, errlen, "queue: status \"%s\" must be [A-Z0-9_]", r->status);
    /* P:stats shares one hash between statuses and the queue's counters
     * (`jobs` cannot clash: it is lower case). */
    if (!strcmp(r->status, "DEAD") || !strcmp(r->status, "LOST"))
        return fail(err, errlen, "queue: status \"%s\" is reserved", r->status);
    if ((!r->data && r->len) || r->ttl_s <= 0 || r->maxlen <= 0)
        return fail(err, errlen, "queue: result needs data, ttl_s > 0 and maxlen > 0");
    return 0;
}

static int check_worker(const char *prefix, const char *name, char *err, size_t errlen)
{
    if (check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    return check_token("worker name", name, Q_NAME_MAX, err, errlen);
}

/* "<prefix>:<name><suffix>"; validation keeps it under KEY_MAX. */
static void mkkey(char out[KEY_MAX], const char *prefix, const char *name, const char *suffix)
{
    (void)snprintf(out, KEY_MAX, "%s:%s%s", prefix, name, suffix ? suffix : "");
}

/* --------------------------------------------------------------- replies */

static bool is_array(const redisReply *r, size_t n)
{
    return r->type == REDIS_REPLY_ARRAY && r->elements == n;
}

static int bad_reply(redisReply *r, const char *what, char *err, size_t errlen)
{
    freeReplyObject(r);
    return fail(err, errlen, "redis: unexpected reply to %s", what);
}

/* A script's integer verdict (1 done, 0 not owned); NULL passes -1 on. */
static int verdict(redisReply *r, const char *what, char *err, size_t errlen)
{
    if (!r)
        return -1;
    if (r->type != REDIS_REPLY_INTEGER || (r->integer != 0 && r->integer != 1))
        return bad_reply(r, what, err, errlen);
    int v = (int)r->integer;
    freeReplyObject(r);
    return v;
}

/* Fills `out` from an entry's id and [field, value, ...] list. */
static int entry_from(q_entry *out, const redisReply *id, const redisReply *fields)
{
    if (id->type != REDIS_REPLY_STRING || id->len >= Q_ID_LEN)
        return -1;
    memcpy(out->id, id->str, id->len + 1);
    if (fields->type != REDIS_REPLY_ARRAY)
        return 0;
    for (size_t i = 0; i + 1 < fields->elements; i += 2) {
        const redisReply *k = fields->element[i], *v = fields->element[i + 1];
        if (k->type == REDIS_REPLY_STRING && k->len == 3 && !memcmp(k->str, "job", 3) &&
            v->type == REDIS_REPLY_STRING) {
            out->has_job = true;
            out->job = v->str;
            out->job_len = v->len;
            return 0;
        }
    }
    return 0;
}

void q_entry_free(q_entry *e)
{
    if (e->reply)
        freeReplyObject(e->reply);
    memset(e, 0, sizeof *e);
}

void q_blob_free(q_blob *b)
{
    if (b->reply)
        freeReplyObject(b->reply);
    memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------ workers' side */

int q_group_ensure(q_conn *c, const char *prefix, char *err, size_t errlen)
{
    if (check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    char jobs[KEY_MAX];
    mkkey(jobs, prefix, "jobs", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, "XGROUP");
    q_args_str(&a, "CREATE");
    q_args_str(&a, jobs);
    q_args_str(&a, Q_GROUP);
    q_args_str(&a, "0"); /* from the start: jobs submitted before any worker count */
    q_args_str(&a, "MKSTREAM");
    char why[Q_ERR_LEN]; /* read back below: the caller's err may be NULL */
    redisReply *r = q_command(c, &a, why, sizeof why);
    if (!r)
        return strncmp(why, "redis: BUSYGROUP", 16) ? fail(err, errlen, "%s", why) : 0;
    freeReplyObject(r);
    return 0;
}

int q_fetch(q_conn *c, const char *prefix, const char *consumer, int block_ms, q_entry *out,
            char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_owner(prefix, consumer, NULL, err, errlen) < 0)
        return -1;
    if (block_ms < 0 || block_ms > q_conn_block_max_ms(c))
        return fail(err, errlen, "queue: block_ms %d outside 0..%d (it must end before the "
                    "socket timeout)", block_ms, q_conn_block_max_ms(c));
    char jobs[KEY_MAX];
    mkkey(jobs, prefix, "jobs", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, "XREADGROUP");
    q_args_str(&a, "GROUP");
    q_args_str(&a, Q_GROUP);
    q_args_str(&a, consumer);
    q_args_str(&a, "COUNT");
    q_args_str(&a, "1");
    if (block_ms > 0) {
        q_args_str(&a, "BLOCK");
        q_args_ll(&a, block_ms);
    }
    q_args_str(&a, "STREAMS");
    q_args_str(&a, jobs);
    q_args_str(&a, ">");
    char why[Q_ERR_LEN]; /* read back below: the caller's err may be NULL */
    redisReply *r = q_command(c, &a, why, sizeof why);
    if (!r) /* someone deleted P:jobs or the group: heal, report no job */
        return strncmp(why, "redis: NOGROUP", 14) ? fail(err, errlen, "%s", why)
                                                  : q_group_ensure(c, prefix, err, errlen);
    if (r->type == REDIS_REPLY_NIL) {
        freeReplyObject(r);
        return 0;
    }
    /* [[key, [[id, [field, value, ...]]]]] */
    if (!is_array(r, 1) || !is_array(r->element[0], 2) ||
        !is_array(r->element[0]->element[1], 1) ||
        !is_array(r->element[0]->element[1]->element[0], 2))
        return bad_reply(r, "XREADGROUP", err, errlen);
    const redisReply *e = r->element[0]->element[1]->element[0];
    if (entry_from(out, e->element[0], e->element[1]) < 0) {
        memset(out, 0, sizeof *out);
        return bad_reply(r, "XREADGROUP", err, errlen);
    }
    out->attempt = 1; /* a '>' read is always a first delivery */
    out->reply = r;
    return 1;
}

int q_claim(q_conn *c, const char *prefix, const char *consumer, long long idle_ms,
            q_cursor *cur, q_entry *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_owner(prefix, consumer, cur->next[0] ? cur->next : NULL, err, errlen) < 0)
        return -1;
    if (idle_ms < 0)
        return fail(err, errlen, "queue: idle_ms must be >= 0");
    char jobs[KEY_MAX], stats[KEY_MAX];
    mkkey(jobs, prefix, "jobs", NULL);
    mkkey(stats, prefix, "stats", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_str(&a, stats);
    q_args_str(&a, consumer);
    q_args_ll(&a, idle_ms);
    q_args_str(&a, cur->next[0] ? cur->next : "0-0");
    redisReply *r = q_eval(c, &script_claim, 2, &a, err, errlen);
    if (!r)
        return -1;
    if (r->type != REDIS_REPLY_ARRAY || (r->elements != 1 && r->elements != 4) ||
        r->element[0]->type != REDIS_REPLY_STRING || r->element[0]->len >= Q_ID_LEN)
        return bad_reply(r, "the claim script", err, errlen);
    memcpy(cur->next, r->element[0]->str, r->element[0]->len + 1);
    if (r->elements == 1) {
        freeReplyObject(r);
        return 0;
    }
    if (r->element[3]->type != REDIS_REPLY_INTEGER ||
        entry_from(out, r->element[1], r->element[2]) < 0) {
        memset(out, 0, sizeof *out);
        return bad_reply(r, "the claim script", err, errlen);
    }
    out->attempt = r->element[3]->integer;
    out->reply = r;
    return 1;
}

int q_touch_many(q_conn *c, const char *prefix, const char *consumer, const char *const *ids,
                 size_t n, int *owned, char *err, size_t errlen)
{
    if (check_owner(prefix, consumer, NULL, err, errlen) < 0)
        return -1;
    if (n > Q_TOUCH_MAX)
        return fail(err, errlen, "queue: at most %d entries per touch", Q_TOUCH_MAX);
    if (n == 0)
        return 0;
    char jobs[KEY_MAX];
    mkkey(jobs, prefix, "jobs", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_str(&a, consumer);
    for (size_t i = 0; i < n; i++) {
        if (check_entry_id(ids[i], err, errlen) < 0)
            return -1;
        q_args_str(&a, ids[i]);
    }
    redisReply *r = q_eval(c, &script_touch, 1, &a, err, errlen);
    if (!r)
        return -1;
    if (!is_array(r, n))
        return bad_reply(r, "the touch script", err, errlen);
    int kept = 0;
    for (size_t i = 0; i < n; i++) {
        owned[i] = r->element[i]->type == REDIS_REPLY_INTEGER && r->element[i]->integer == 1;
        kept += owned[i];
    }
    freeReplyObject(r);
    return kept;
}

int q_touch(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
            char *err, size_t errlen)
{
    int owned;
    return q_touch_many(c, prefix, consumer, &entry_id, 1, &owned, err, errlen);
}

/* The keys LUA_DELIVER needs after the caller's own (rate, results,
 * reslist), into keys[3]. */
static void deliver_keys(q_args *a, char keys[3][KEY_MAX], const char *prefix,
                         const q_delivery *res)
{
    mkkey(keys[0], prefix, "rate", NULL);
    mkkey(keys[1], prefix, "results", NULL);
    mkkey(keys[2], prefix, "result:", res->job_id);
    for (int i = 0; i < 3; i++)
        q_args_str(a, keys[i]);
}

/* The arguments LUA_DELIVER needs: job_id, status, result, ttl, maxlen. */
static void deliver_args(q_args *a, const q_delivery *res)
{
    q_args_str(a, res->job_id);
    q_args_str(a, res->status);
    q_args_bin(a, res->data, res->len);
    q_args_ll(a, res->ttl_s);
    q_args_ll(a, res->maxlen);
}

int q_publish(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
              const q_delivery *res, char *err, size_t errlen)
{
    if (check_owner(prefix, consumer, entry_id, err, errlen) < 0 ||
        check_result(res, err, errlen) < 0)
        return -1;
    char jobs[KEY_MAX], stats[KEY_MAX], dk[3][KEY_MAX];
    mkkey(jobs, prefix, "jobs", NULL);
    mkkey(stats, prefix, "stats", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_str(&a, stats);
    deliver_keys(&a, dk, prefix, res);
    q_args_str(&a, consumer);
    q_args_str(&a, entry_id);
    deliver_args(&a, res);
    return verdict(q_eval(c, &script_publish, 5, &a, err, errlen), "publish", err, errlen);
}

int q_dead(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
           const q_dead_letter *d, char *err, size_t errlen)
{
    if (check_owner(prefix, consumer, entry_id, err, errlen) < 0 ||
        (d->result && check_result(d->result, err, errlen) < 0))
        return -1;
    if (!d->reason || (!d->job && d->job_len) || d->maxlen <= 0)
        return fail(err, errlen, "queue: dead letter needs a reason and maxlen > 0");
    char jobs[KEY_MAX], stats[KEY_MAX], dead[KEY_MAX], dk[3][KEY_MAX];
    mkkey(jobs, prefix, "jobs", NULL);
    mkkey(stats, prefix, "stats", NULL);
    mkkey(dead, prefix, "dead", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_str(&a, stats);
    q_args_str(&a, dead);
    if (d->result)
        deliver_keys(&a, dk, prefix, d->result);
    q_args_str(&a, consumer);
    q_args_str(&a, entry_id);
    q_args_bin(&a, d->job, d->job_len);
    q_args_bin(&a, d->reason, strnlen(d->reason, Q_REASON_MAX));
    q_args_ll(&a, d->maxlen);
    if (d->result)
        deliver_args(&a, d->result);
    return verdict(q_eval(c, &script_dead, d->result ? 6 : 3, &a, err, errlen), "dead", err,
                   errlen);
}

/* ------------------------------------------------------------ clients' side */

int q_submit(q_conn *c, const char *prefix, const void *job, size_t len, long long max_queue,
             char id_out[Q_ID_LEN], char *err, size_t errlen)
{
    id_out[0] = '\0';
    if (check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    if ((!job && len) || max_queue < 0)
        return fail(err, errlen, "queue: submit needs job bytes and max_queue >= 0");
    char jobs[KEY_MAX];
    mkkey(jobs, prefix, "jobs", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_ll(&a, max_queue);
    q_args_bin(&a, job, len);
    redisReply *r = q_eval(c, &script_submit, 1, &a, err, errlen);
    if (!r)
        return -1;
    if (!is_array(r, 2) || r->element[0]->type != REDIS_REPLY_INTEGER)
        return bad_reply(r, "the submit script", err, errlen);
    const redisReply *v = r->element[1];
    if (r->element[0]->integer == 0 && v->type == REDIS_REPLY_INTEGER) {
        (void)fail(err, errlen, "queue full: %lld entries waiting (max %lld)", v->integer,
                   max_queue);
        freeReplyObject(r);
        return 0;
    }
    if (v->type != REDIS_REPLY_STRING || v->len >= Q_ID_LEN)
        return bad_reply(r, "the submit script", err, errlen);
    memcpy(id_out, v->str, v->len + 1);
    freeReplyObject(r);
    return 1;
}

static long long mono_ms(void)
{
    struct timespec t;
    (void)clock_gettime(CLOCK_MONOTONIC, &t); /* cannot fail for this clock */
    return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

int q_wait_result(q_conn *c, const char *prefix, const char *job_id, long timeout_ms,
                  q_blob *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0 ||
        check_token("job id", job_id, Q_JOB_ID_MAX, err, errlen) < 0)
        return -1;
    if (timeout_ms <= 0)
        return fail(err, errlen, "queue: timeout_ms must be > 0");
    char reslist[KEY_MAX];
    mkkey(reslist, prefix, "result:", job_id);
    long long deadline = mono_ms() + timeout_ms;
    for (;;) {
        if (q_conn_stopping(c))
            return fail(err, errlen, "queue: waiting for %s: shutting down", job_id);
        long long left = deadline - mono_ms();
        if (left <= 0)
            return 0;
        /* A slice, not the whole wait, so the socket timeout never fires
         * and the stop flag is seen. BLPOP 0 would block forever. */
        long long slice = left < q_conn_block_max_ms(c) ? left : q_conn_block_max_ms(c);
        char secs[32];
        (void)snprintf(secs, sizeof secs, "%lld.%03lld", slice / 1000, slice % 1000);
        q_args a;
        q_args_init(&a);
        q_args_str(&a, "BLPOP");
        q_args_str(&a, reslist);
        q_args_str(&a, secs);
        redisReply *r = q_command(c, &a, err, errlen);
        if (!r)
            return -1;
        if (r->type == REDIS_REPLY_NIL) {
            freeReplyObject(r);
            continue;
        }
        if (!is_array(r, 2) || r->element[1]->type != REDIS_REPLY_STRING)
            return bad_reply(r, "BLPOP", err, errlen);
        out->data = r->element[1]->str;
        out->len = r->element[1]->len;
        out->reply = r;
        return 1;
    }
}

/* --------------------------------------------------------------- registry */

int q_worker_beat(q_conn *c, const char *prefix, const q_worker_info *w, long ttl_s,
                  char *err, size_t errlen)
{
    if (check_worker(prefix, w->name, err, errlen) < 0)
        return -1;
    if (ttl_s <= 0)
        return fail(err, errlen, "queue: worker ttl_s must be > 0");
    char key[KEY_MAX];
    mkkey(key, prefix, "worker:", w->name);
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
            rc = fail(err, errlen, "redis: %s", r[i]->str);
        freeReplyObject(r[i]);
    }
    return rc;
}

int q_worker_gone(q_conn *c, const char *prefix, const char *name, char *err, size_t errlen)
{
    if (check_worker(prefix, name, err, errlen) < 0)
        return -1;
    char key[KEY_MAX];
    mkkey(key, prefix, "worker:", name);
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

/* Copies a bulk string into a fixed buffer, cut to fit. */
static void copy_str(char *dst, size_t cap, const redisReply *r)
{
    size_t n = r->type == REDIS_REPLY_STRING ? r->len : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, r->str, n);
    dst[n] = '\0';
}

static long long reply_ll(const redisReply *r)
{
    if (r->type == REDIS_REPLY_INTEGER)
        return r->integer;
    return r->type == REDIS_REPLY_STRING ? strtoll(r->str, NULL, 10) : 0;
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
    if (!is_array(r, n))
        return bad_reply(r, "the workers script", err, errlen);
    size_t added = 0;
    for (size_t i = 0; i < n; i++) {
        const redisReply *f = r->element[i];
        if (!is_array(f, 8) || f->element[0]->type != REDIS_REPLY_STRING)
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
        copy_str(w->host, sizeof w->host, f->element[0]);
        copy_str(w->version, sizeof w->version, f->element[1]);
        long long *nums[] = { &w->pid, &w->threads, &w->busy, &w->jobs_done,
                              &w->started_at, &w->last_seen };
        for (size_t k = 0; k < 6; k++)
            *nums[k] = reply_ll(f->element[k + 2]);
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
    if (check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    if (cap > WORKERS_MAX)
        return fail(err, errlen, "queue: at most %d workers per listing", WORKERS_MAX);
    char pattern[2 * KEY_MAX], cursor[32] = "0";
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
        if (!is_array(r, 2) || r->element[0]->type != REDIS_REPLY_STRING ||
            r->element[0]->len >= sizeof cursor || r->element[1]->type != REDIS_REPLY_ARRAY)
            return bad_reply(r, "SCAN", err, errlen);
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
                    return bad_reply(r, "SCAN", err, errlen);
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

/* -------------------------------------------------------------- gauges */

/* The shape script_stats replies with: 11 elements, integers but for the
 * two [name, count, ...] lists at 7 and 9. */
static bool stats_shape(const redisReply *r)
{
    if (!is_array(r, 11))
        return false;
    for (size_t i = 0; i < 11; i++)
        if (r->element[i]->type != (i == 7 || i == 9 ? REDIS_REPLY_ARRAY : REDIS_REPLY_INTEGER))
            return false;
    return r->element[7]->elements % 2 == 0 && r->element[9]->elements % 2 == 0;
}

int q_stats_read(q_conn *c, const char *prefix, q_stats *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    char keys[4][KEY_MAX];
    const char *names[4] = { "jobs", "dead", "stats", "rate" };
    q_args a;
    q_args_init(&a);
    for (int i = 0; i < 4; i++) {
        mkkey(keys[i], prefix, names[i], NULL);
        q_args_str(&a, keys[i]);
    }
    q_args_str(&a, Q_GROUP);
    q_args_ll(&a, Q_STATS_CONSUMERS);
    q_args_ll(&a, Q_STATS_COUNTERS);
    q_args_ll(&a, RATE_WINDOW_S);
    redisReply *r = q_eval(c, &script_stats, 4, &a, err, errlen);
    if (!r)
        return -1;
    if (!stats_shape(r))
        return bad_reply(r, "the stats script", err, errlen);
    redisReply **e = r->element;
    out->length = e[0]->integer;
    out->pending = e[1]->integer;
    out->oldest_pending_ms = e[2]->integer;
    /* lag is NULL once entries were deleted near the group's position;
     * every acked entry is deleted, so length - pending is then exact. */
    out->waiting = e[3]->integer >= 0 ? e[3]->integer
                   : (e[0]->integer > e[1]->integer ? e[0]->integer - e[1]->integer : 0);
    out->oldest_waiting_ms = e[4]->integer;
    out->dead = e[5]->integer;
    out->jobs_per_s = (double)e[6]->integer / RATE_WINDOW_S;
    for (size_t i = 0; i < e[7]->elements / 2; i++, out->nconsumers++) {
        copy_str(out->consumers[i].name, sizeof out->consumers[i].name, e[7]->element[2 * i]);
        out->consumers[i].pending = reply_ll(e[7]->element[2 * i + 1]);
    }
    out->consumers_truncated = (long long)out->nconsumers < e[8]->integer;
    for (size_t i = 0; i < e[9]->elements / 2; i++, out->ncounters++) {
        copy_str(out->counters[i].name, sizeof out->counters[i].name, e[9]->element[2 * i]);
        out->counters[i].value = reply_ll(e[9]->element[2 * i + 1]);
    }
    out->counters_truncated = (long long)out->ncounters < e[10]->integer;
    freeReplyObject(r);
    return 0;
}
