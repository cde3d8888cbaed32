/* stream.c -- the gradeq job protocol on Redis Streams, a worker's side:
 * fetch, claim, touch, publish, dead, release (see stream.h). Submitting and
 * waiting are in stream_client.c, the worker registry in stream_workers.c,
 * the gauges in stream_stats.c.
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
 *   - Every reply is bounded: COUNT 1 reads, at most Q_TOUCH_MAX touches.
 *   - Caller strings are validated before they become key names; a result
 *     is only published under a job id the job decoder accepts (job_id.h).
 *   - An acked entry is always deleted in the same script, so XLEN P:jobs
 *     counts exactly the waiting and running jobs.
 */
#include <stdlib.h>
#include <string.h>

#include "queue/err.h"
#include "queue/stream_internal.h"

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
 * id never serves a stale result first; none when ttl is 0) and to P:results, counts it under
 * its status and `jobs`, and in the per-second ring P:rate: slot now % 64
 * holds t<slot> = the second it counts and n<slot> = the count, so the
 * hash never exceeds 128 fields and needs no per-second keys. Expects
 * locals stats, rate, results, reslist, job_id, status, result, ttl,
 * maxlen. */
#define LUA_DELIVER                                                                    \
    "if tonumber(ttl) > 0 then\n"                                                      \
    "  redis.call('DEL', reslist)\n"                                                   \
    "  redis.call('RPUSH', reslist, result)\n"                                         \
    "  redis.call('EXPIRE', reslist, ttl)\n"                                           \
    "end\n"                                                                            \
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

/* A Lua function cut(fields, max, keep): the [name, value, ...] list of
 * an entry with each value over max bytes cut to its first keep bytes and
 * followed by a field <name>_bytes holding its length, so that a job over
 * the worker's cap never travels to the worker (nor to P:dead) whole. An
 * entry's own field named job_bytes is left out: only a cut writes it. */
#define LUA_CUT                                                          \
    "local function cut(f, max, keep)\n"                                 \
    "  local out = {}\n"                                                 \
    "  for i = 1, #f, 2 do\n"                                            \
    "    local v = f[i + 1]\n"                                           \
    "    if f[i] == 'job_bytes' then\n"                                  \
    "    elseif max > 0 and #v > max then\n"                             \
    "      out[#out + 1] = f[i]\n"                                       \
    "      out[#out + 1] = string.sub(v, 1, keep)\n"                     \
    "      out[#out + 1] = f[i] .. '_bytes'\n"                           \
    "      out[#out + 1] = tostring(#v)\n"                               \
    "    else\n"                                                         \
    "      out[#out + 1] = f[i]\n"                                       \
    "      out[#out + 1] = v\n"                                          \
    "    end\n"                                                          \
    "  end\n"                                                            \
    "  return out\n"                                                     \
    "end\n"

/* A Lua function next_new(jobs, consumer, max, keep, call): one new entry
 * read for the consumer without blocking, its fields cut (LUA_CUT) at max
 * bytes to keep; false when none is waiting. `call` is redis.call, or
 * redis.pcall where an error must not undo what the script already did
 * (it then reads as none). Needs LUA_CUT. */
#define LUA_NEXT_NEW                                                                         \
    "local function next_new(jobs, consumer, max, keep, call)\n"                             \
    "  local r = call('XREADGROUP', 'GROUP', 'workers', consumer, 'COUNT', 1, 'STREAMS', jobs, '>')\n" \
    "  if not r or r.err then return false end\n"                                            \
    "  local e = r[1][2][1]\n"                                                               \
    "  return {e[1], cut(e[2], max, keep)}\n"                                                \
    "end\n"

/* Reads one new entry for the consumer without blocking, its fields cut
 * (LUA_CUT) at ARGV[2] bytes to ARGV[3]. Reply: nil, or {id, fields}. */
static const q_script script_fetch = {
    "fetch",
    LUA_CUT
    LUA_NEXT_NEW
    "return next_new(KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), redis.call)\n",
};

/* Publishes a job's result if the caller still owns its entry; with
 * ARGV[8] and ARGV[9] it then reads the consumer's next new entry as the
 * fetch script does, cut at ARGV[8] bytes to ARGV[9]: a busy worker's
 * whole cycle is this one round trip. The read comes after every write
 * and cannot fail them (pcall).
 * Reply: 0 not owned (nothing written, nothing read); 1 published (and
 * no entry waiting, or none asked for); {id, fields} published, and the
 * next entry is the consumer's. */
static const q_script script_publish = {
    "publish",
    LUA_CUT
    LUA_NEXT_NEW
    "local jobs, stats, rate, results, reslist = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]\n"
    "local consumer, entry, job_id, status, result, ttl, maxlen =\n"
    "  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]\n"
    LUA_FENCE
    LUA_RETIRE
    LUA_DELIVER
    "if ARGV[9] then\n"
    "  return next_new(jobs, consumer, tonumber(ARGV[8]), tonumber(ARGV[9]), redis.pcall) or 1\n"
    "end\n"
    "return 1\n",
};

/* Dead-letters an entry the caller still owns: P:dead gets the entry id,
 * the reason and every field of the entry, read here (a value over
 * ARGV[5] bytes cut to ARGV[6], LUA_CUT), but its own `entry` and
 * `reason` (a submitter's forgeries of the worker's fields); DEAD is
 * counted. With 3 more keys and 5 more args it also publishes a result, so
 * the waiter learns why. Reply: 1 done, 0 not owned (nothing written). */
static const q_script script_dead = {
    "dead",
    LUA_CUT
    "local jobs, stats, dead = KEYS[1], KEYS[2], KEYS[3]\n"
    "local consumer, entry, reason, dead_maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4]\n"
    LUA_FENCE
    "local fields = {'entry', entry, 'reason', reason}\n"
    "local e = redis.call('XRANGE', jobs, entry, entry)[1]\n"
    "if e then\n"
    "  local f = cut(e[2], tonumber(ARGV[5]), tonumber(ARGV[6]))\n"
    "  for i = 1, #f, 2 do\n"
    "    if #fields >= 132 then break end\n" /* 64 of its fields: unpack() has its limits */
    "    if f[i] ~= 'entry' and f[i] ~= 'reason' then\n"
    "      fields[#fields + 1] = f[i]\n"
    "      fields[#fields + 1] = f[i + 1]\n"
    "    end\n"
    "  end\n"
    "end\n"
    "redis.call('XADD', dead, 'MAXLEN', '~', dead_maxlen, '*', unpack(fields))\n"
    "redis.call('HINCRBY', stats, 'DEAD', 1)\n"
    LUA_RETIRE
    "if #KEYS == 6 then\n"
    "  local rate, results, reslist = KEYS[4], KEYS[5], KEYS[6]\n"
    "  local job_id, status, result, ttl, maxlen = ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11]\n"
    LUA_DELIVER
    "end\n"
    "return 1\n",
};

/* Claims one entry idle for ARGV[2] ms or more, scanning the PEL from
 * ARGV[3], its fields cut at ARGV[4] bytes to ARGV[5] (LUA_CUT).
 * XAUTOCLAIM COUNT 1 examines at most 10 PEL entries, so it is
 * repeated up to 10 times (100 entries) to get past busy ones. Entries
 * deleted while pending come back in its third element, already dropped
 * from the PEL by Redis 7; they are counted as LOST. XAUTOCLAIM bumped the
 * delivery count; XPENDING reads it.
 * Reply: {next-start} or {next-start, id, fields, delivery-count}. */
static const q_script script_claim = {
    "claim",
    LUA_CUT
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
    "    return {start, e[1], cut(e[2], tonumber(ARGV[4]), tonumber(ARGV[5])), p[1][4]}\n"
    "  end\n"
    "  if start == '0-0' then\n"
    "    break\n"
    "  end\n"
    "end\n"
    "return {start}\n",
};

/* Resets the idle time of each entry ARGV[2i] that consumer ARGV[2i-1]
 * still owns (fenced like publish). XCLAIM with min-idle 0 and JUSTID
 * resets the idle time without bumping the delivery count, and replies {}
 * if the entry was deleted meanwhile.
 * Reply: one 1 (still owned) or 0 (lost) per entry. */
static const q_script script_touch = {
    "touch",
    "local jobs, out = KEYS[1], {}\n"
    "for i = 1, #ARGV - 1, 2 do\n"
    "  local consumer, id, owned = ARGV[i], ARGV[i + 1], 0\n"
    "  if #redis.call('XPENDING', jobs, 'workers', id, id, 1, consumer) == 1 then\n"
    "    owned = #redis.call('XCLAIM', jobs, 'workers', consumer, 0, id, 'JUSTID')\n"
    "  end\n"
    "  out[#out + 1] = owned\n"
    "end\n"
    "return out\n",
};

/* Hands an entry the consumer still owns back, uncounted: XCLAIM to
 * itself with RETRYCOUNT one less (JUSTID would not count it either way)
 * and IDLE ARGV[3], so a claim takes it at once and counts it back.
 * Reply: 1 done, 0 not owned. */
static const q_script script_release = {
    "release",
    "local jobs, consumer, entry = KEYS[1], ARGV[1], ARGV[2]\n"
    "local p = redis.call('XPENDING', jobs, 'workers', entry, entry, 1, consumer)\n"
    "if #p == 0 then return 0 end\n"
    "local n = p[1][4] - 1\n"
    "if n < 0 then n = 0 end\n"
    "redis.call('XCLAIM', jobs, 'workers', consumer, 0, entry, 'IDLE', ARGV[3], 'RETRYCOUNT', n, 'JUSTID')\n"
    "return 1\n",
};

/* ---------------------------------------------------------- validation */

/* "<ms>-<seq>", as Redis prints stream ids. */
static int check_entry_id(const char *id, char *err, size_t errlen)
{
    static const char digits[] = "0123456789";
    size_t n = id ? strnlen(id, Q_ID_LEN) : 0;
    size_t ms = n ? strspn(id, digits) : 0;
    if (n == 0 || n == Q_ID_LEN || ms == 0 || id[ms] != '-' || ms + 1 == n ||
        strspn(id + ms + 1, digits) != n - ms - 1)
        return q_fail(err, errlen, "queue: bad entry id \"%.*s\"", (int)n, id ? id : "");
    return 0;
}

/* Prefix, consumer and entry id: what every fenced call names. */
static int check_owner(const char *prefix, const char *consumer, const char *entry_id,
                       char *err, size_t errlen)
{
    if (q_check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0 ||
        q_check_token("consumer", consumer, Q_NAME_MAX, err, errlen) < 0)
        return -1;
    return entry_id ? check_entry_id(entry_id, err, errlen) : 0;
}

static int check_result(const q_delivery *r, char *err, size_t errlen)
{
    if (q_check_job_id(r->job_id, err, errlen) < 0 ||
        q_check_token("status", r->status, Q_STATUS_MAX, err, errlen) < 0)
        return -1;
    if (strspn(r->status, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(r->status))
        return q_fail(err, errlen, "queue: status \"%s\" must be [A-Z0-9_]", r->status);
    /* P:stats shares one hash between statuses and the queue's counters
     * (`jobs` cannot clash: it is lower case). */
    if (!strcmp(r->status, "DEAD") || !strcmp(r->status, "LOST"))
        return q_fail(err, errlen, "queue: status \"%s\" is reserved", r->status);
    if ((!r->data && r->len && r->niov <= 0) || r->niov > Q_IOV_MAX || r->ttl_s < 0 || r->maxlen <= 0)
        return q_fail(err, errlen, "queue: result needs data, ttl_s >= 0 and maxlen > 0");
    return 0;
}

/* --------------------------------------------------------------- replies */

/* A script's integer verdict (1 done, 0 not owned); NULL passes -1 on. */
static int verdict(redisReply *r, const char *what, char *err, size_t errlen)
{
    if (!r)
        return -1;
    if (r->type != REDIS_REPLY_INTEGER || (r->integer != 0 && r->integer != 1))
        return q_bad_reply(r, what, err, errlen);
    int v = (int)r->integer;
    freeReplyObject(r);
    return v;
}

static bool is_name(const redisReply *k, const char *name)
{
    return k->type == REDIS_REPLY_STRING && k->len == strlen(name) && !memcmp(k->str, name, k->len);
}

/* Fills `out` from an entry's id and [field, value, ...] list (cut by
 * LUA_CUT, or whole from XREADGROUP: then cut here, so both look alike).
 * A job_bytes field is a cut's only when a script cut (LUA_CUT drops an
 * entry's own); an entry read whole may carry any. */
static int entry_from(q_entry *out, const redisReply *id, const redisReply *fields, size_t max_job, bool scripted)
{
    if (id->type != REDIS_REPLY_STRING || id->len >= Q_ID_LEN)
        return -1;
    memcpy(out->id, id->str, id->len + 1);
    if (fields->type != REDIS_REPLY_ARRAY)
        return 0;
    for (size_t i = 0; i + 1 < fields->elements; i += 2) {
        const redisReply *k = fields->element[i], *v = fields->element[i + 1];
        if (v->type != REDIS_REPLY_STRING)
            continue;
        if (is_name(k, "job") && !out->has_job) {
            out->has_job = true;
            out->job = v->str;
            out->job_len = v->len;
            out->job_bytes = v->len;
        } else if (scripted && is_name(k, "job_bytes") && out->has_job && out->job_bytes == out->job_len) {
            unsigned long long n = strtoull(v->str, NULL, 10);
            if (n > out->job_len)
                out->job_bytes = (size_t)n;
        }
    }
    if (max_job && out->job_len > max_job)
        out->job_len = Q_JOB_KEEP < max_job ? Q_JOB_KEEP : max_job;
    return 0;
}

void q_entry_free(q_entry *e)
{
    if (e->reply)
        freeReplyObject(e->reply);
    memset(e, 0, sizeof *e);
}

/* ------------------------------------------------------------ workers' side */

int q_group_ensure(q_conn *c, const char *prefix, char *err, size_t errlen)
{
    if (q_check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    char jobs[Q_KEY_MAX];
    q_mkkey(jobs, prefix, "jobs", NULL);
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
        return strncmp(why, "redis: BUSYGROUP", 16) ? q_fail(err, errlen, "%s", why) : 0;
    freeReplyObject(r);
    return 0;
}

/* XREADGROUP's reply [[key, [[id, fields]]]] or the fetch script's
 * {id, fields} into out (which then owns r). */
static int fetched(redisReply *r, bool scripted, size_t max_job, q_entry *out, char *err, size_t errlen)
{
    const redisReply *e = r;
    if (!scripted && (!q_is_array(r, 1) || !q_is_array(r->element[0], 2) ||
                      !q_is_array(r->element[0]->element[1], 1)))
        return q_bad_reply(r, "XREADGROUP", err, errlen);
    if (!scripted)
        e = r->element[0]->element[1]->element[0];
    if (!q_is_array(e, 2) || entry_from(out, e->element[0], e->element[1], max_job, scripted) < 0) {
        memset(out, 0, sizeof *out);
        return q_bad_reply(r, scripted ? "the fetch script" : "XREADGROUP", err, errlen);
    }
    out->attempt = 1; /* a '>' read is always a first delivery */
    out->reply = r;
    return 1;
}

/* What q_fetch and q_wait_job check first. */
static int check_fetch(q_conn *c, const char *prefix, const char *consumer, int block_ms, q_entry *out, char *err,
                       size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_owner(prefix, consumer, NULL, err, errlen) < 0)
        return -1;
    if (block_ms < 0 || block_ms > q_conn_block_max_ms(c))
        return q_fail(err, errlen, "queue: block_ms %d outside 0..%d (it must end before the "
                      "socket timeout)", block_ms, q_conn_block_max_ms(c));
    return 0;
}

/* XREADGROUP ... BLOCK block_ms: the entry comes whole and is cut here. */
static int wait_new(q_conn *c, const char *prefix, const char *consumer, int block_ms, size_t max_job, q_entry *out,
                    char *err, size_t errlen)
{
    char jobs[Q_KEY_MAX], why[Q_ERR_LEN]; /* why is read back: the caller's err may be NULL */
    q_mkkey(jobs, prefix, "jobs", NULL);
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
    redisReply *r = q_command(c, &a, why, sizeof why);
    if (!r) /* someone deleted P:jobs or the group: heal, report no job */
        return !strstr(why, "NOGROUP") ? q_fail(err, errlen, "%s", why) : q_group_ensure(c, prefix, err, errlen);
    if (r->type == REDIS_REPLY_NIL) {
        freeReplyObject(r);
        return 0;
    }
    return fetched(r, false, max_job, out, err, errlen);
}

int q_wait_job(q_conn *c, const char *prefix, const char *consumer, int block_ms, size_t max_job, q_entry *out,
               char *err, size_t errlen)
{
    if (check_fetch(c, prefix, consumer, block_ms, out, err, errlen) < 0)
        return -1;
    return block_ms == 0 ? 0 : wait_new(c, prefix, consumer, block_ms, max_job, out, err, errlen);
}

int q_fetch(q_conn *c, const char *prefix, const char *consumer, int block_ms, size_t max_job, q_entry *out,
            char *err, size_t errlen)
{
    if (check_fetch(c, prefix, consumer, block_ms, out, err, errlen) < 0)
        return -1;
    char jobs[Q_KEY_MAX];
    q_mkkey(jobs, prefix, "jobs", NULL);
    char why[Q_ERR_LEN]; /* read back below: the caller's err may be NULL */
    /* First without blocking, in a script that cuts an oversized job
     * before it leaves Redis; only an empty queue waits in XREADGROUP
     * (blocking commands do not block in scripts), whose entry arrived
     * meanwhile comes whole and is cut here. */
    q_args s;
    q_args_init(&s);
    q_args_str(&s, jobs);
    q_args_str(&s, consumer);
    q_args_ll(&s, (long long)max_job);
    q_args_ll(&s, Q_JOB_KEEP);
    redisReply *r = q_eval(c, &script_fetch, 1, &s, why, sizeof why);
    if (r && r->type != REDIS_REPLY_NIL)
        return fetched(r, true, max_job, out, err, errlen);
    if (r)
        freeReplyObject(r);
    else /* someone deleted P:jobs or the group: heal, report no job */
        return !strstr(why, "NOGROUP") ? q_fail(err, errlen, "%s", why) : q_group_ensure(c, prefix, err, errlen);
    return block_ms == 0 ? 0 : wait_new(c, prefix, consumer, block_ms, max_job, out, err, errlen);
}

int q_claim(q_conn *c, const char *prefix, const char *consumer, long long idle_ms,
            q_cursor *cur, size_t max_job, q_entry *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_owner(prefix, consumer, cur->next[0] ? cur->next : NULL, err, errlen) < 0)
        return -1;
    if (idle_ms < 0)
        return q_fail(err, errlen, "queue: idle_ms must be >= 0");
    char jobs[Q_KEY_MAX], stats[Q_KEY_MAX];
    q_mkkey(jobs, prefix, "jobs", NULL);
    q_mkkey(stats, prefix, "stats", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_str(&a, stats);
    q_args_str(&a, consumer);
    q_args_ll(&a, idle_ms);
    q_args_str(&a, cur->next[0] ? cur->next : "0-0");
    q_args_ll(&a, (long long)max_job);
    q_args_ll(&a, Q_JOB_KEEP);
    redisReply *r = q_eval(c, &script_claim, 2, &a, err, errlen);
    if (!r)
        return -1;
    if (r->type != REDIS_REPLY_ARRAY || (r->elements != 1 && r->elements != 4) ||
        r->element[0]->type != REDIS_REPLY_STRING || r->element[0]->len >= Q_ID_LEN)
        return q_bad_reply(r, "the claim script", err, errlen);
    memcpy(cur->next, r->element[0]->str, r->element[0]->len + 1);
    if (r->elements == 1) {
        freeReplyObject(r);
        return 0;
    }
    if (r->element[3]->type != REDIS_REPLY_INTEGER ||
        entry_from(out, r->element[1], r->element[2], max_job, true) < 0) {
        memset(out, 0, sizeof *out);
        return q_bad_reply(r, "the claim script", err, errlen);
    }
    out->attempt = r->element[3]->integer;
    out->reply = r;
    return 1;
}

int q_touch_many(q_conn *c, const char *prefix, const char *const *consumers, const char *const *ids,
                 size_t n, int *owned, char *err, size_t errlen)
{
    if (n > Q_TOUCH_MAX)
        return q_fail(err, errlen, "queue: at most %d entries per touch", Q_TOUCH_MAX);
    if (n == 0)
        return 0;
    char jobs[Q_KEY_MAX];
    q_mkkey(jobs, prefix, "jobs", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    for (size_t i = 0; i < n; i++) {
        if (check_owner(prefix, consumers[i], ids[i], err, errlen) < 0)
            return -1;
        q_args_str(&a, consumers[i]);
        q_args_str(&a, ids[i]);
    }
    redisReply *r = q_eval(c, &script_touch, 1, &a, err, errlen);
    if (!r)
        return -1;
    if (!q_is_array(r, n))
        return q_bad_reply(r, "the touch script", err, errlen);
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
    return q_touch_many(c, prefix, &consumer, &entry_id, 1, &owned, err, errlen);
}

/* The keys LUA_DELIVER needs after the caller's own (rate, results,
 * reslist), into keys[3]. */
static void deliver_keys(q_args *a, char keys[3][Q_KEY_MAX], const char *prefix,
                         const q_delivery *res)
{
    q_mkkey(keys[0], prefix, "rate", NULL);
    q_mkkey(keys[1], prefix, "results", NULL);
    q_mkkey(keys[2], prefix, "result:", res->job_id);
    for (int i = 0; i < 3; i++)
        q_args_str(a, keys[i]);
}

/* The arguments LUA_DELIVER needs: job_id, status, result, ttl, maxlen. */
static void deliver_args(q_args *a, const q_delivery *res)
{
    q_args_str(a, res->job_id);
    q_args_str(a, res->status);
    if (res->niov > 0)
        q_args_iov(a, res->iov, res->niov);
    else
        q_args_bin(a, res->data, res->len);
    q_args_ll(a, res->ttl_s);
    q_args_ll(a, res->maxlen);
}

/* q_publish, and with `next` q_publish_next. */
static int publish(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
                   const q_delivery *res, size_t max_job, q_entry *next, char *err, size_t errlen)
{
    if (next)
        memset(next, 0, sizeof *next);
    if (check_owner(prefix, consumer, entry_id, err, errlen) < 0 ||
        check_result(res, err, errlen) < 0)
        return -1;
    char jobs[Q_KEY_MAX], stats[Q_KEY_MAX], dk[3][Q_KEY_MAX];
    q_mkkey(jobs, prefix, "jobs", NULL);
    q_mkkey(stats, prefix, "stats", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_str(&a, stats);
    deliver_keys(&a, dk, prefix, res);
    q_args_str(&a, consumer);
    q_args_str(&a, entry_id);
    deliver_args(&a, res);
    if (next) {
        q_args_ll(&a, (long long)max_job);
        q_args_ll(&a, Q_JOB_KEEP);
    }
    redisReply *r = q_eval(c, &script_publish, 5, &a, err, errlen);
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return verdict(r, "publish", err, errlen);
    if (!next)
        return q_bad_reply(r, "the publish script", err, errlen);
    /* Published either way: an entry that does not read as one (this
     * script cannot send it) stays pending, for a claim, and err says so. */
    (void)fetched(r, true, max_job, next, err, errlen);
    return 1;
}

int q_publish(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
              const q_delivery *res, char *err, size_t errlen)
{
    return publish(c, prefix, consumer, entry_id, res, 0, NULL, err, errlen);
}

int q_publish_next(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
                   const q_delivery *res, size_t max_job, q_entry *next, char *err, size_t errlen)
{
    return publish(c, prefix, consumer, entry_id, res, max_job, next, err, errlen);
}

int q_dead(q_conn *c, const char *prefix, const char *consumer, const char *entry_id,
           const q_dead_letter *d, char *err, size_t errlen)
{
    if (check_owner(prefix, consumer, entry_id, err, errlen) < 0 ||
        (d->result && check_result(d->result, err, errlen) < 0))
        return -1;
    if (!d->reason || d->maxlen <= 0)
        return q_fail(err, errlen, "queue: dead letter needs a reason and maxlen > 0");
    char jobs[Q_KEY_MAX], stats[Q_KEY_MAX], dead[Q_KEY_MAX], dk[3][Q_KEY_MAX];
    q_mkkey(jobs, prefix, "jobs", NULL);
    q_mkkey(stats, prefix, "stats", NULL);
    q_mkkey(dead, prefix, "dead", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_str(&a, stats);
    q_args_str(&a, dead);
    if (d->result)
        deliver_keys(&a, dk, prefix, d->result);
    q_args_str(&a, consumer);
    q_args_str(&a, entry_id);
    q_args_bin(&a, d->reason, strnlen(d->reason, Q_REASON_MAX));
    q_args_ll(&a, d->maxlen);
    q_args_ll(&a, (long long)d->max_job);
    q_args_ll(&a, Q_JOB_KEEP);
    if (d->result)
        deliver_args(&a, d->result);
    return verdict(q_eval(c, &script_dead, d->result ? 6 : 3, &a, err, errlen), "dead", err,
                   errlen);
}

int q_release(q_conn *c, const char *prefix, const char *consumer, const char *entry_id, long long idle_ms,
              char *err, size_t errlen)
{
    if (check_owner(prefix, consumer, entry_id, err, errlen) < 0)
        return -1;
    if (idle_ms < 0)
        return q_fail(err, errlen, "queue: idle_ms must be >= 0");
    char jobs[Q_KEY_MAX];
    q_mkkey(jobs, prefix, "jobs", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, jobs);
    q_args_str(&a, consumer);
    q_args_str(&a, entry_id);
    q_args_ll(&a, idle_ms);
    return verdict(q_eval(c, &script_release, 1, &a, err, errlen), "release", err, errlen);
}
