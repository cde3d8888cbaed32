/* dead.c -- operators' view of the dead letters (P:dead).
 *
 * Listing runs in a script that returns each entry's reason and the length
 * of its job (job_bytes for one cut at the worker's cap), never the job
 * itself: a listing of a thousand 64 MiB jobs
 * stays a few kilobytes (hiredis 0.14 aborts when a reply cannot be
 * allocated). Requeueing is one script too, so a job is never both in
 * P:jobs and in P:dead, nor in neither.
 *
 * P:dead is written by workers but may hold anything (letters written
 * before forged fields were left out, a hand's XADD): the first `entry`
 * and `reason` are the worker's, and a `job_bytes` that is not a count
 * is ignored, so no letter breaks a listing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/dead.h"
#include "queue/err.h"
#include "queue/stream_internal.h"

static const q_script list_script = {
    "dead-list",
    "local out = {}\n"
    "for _, e in ipairs(redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', ARGV[1])) do\n"
    "  local f, entry, reason, len, cut = e[2], nil, nil, -1, nil\n"
    "  for i = 1, #f, 2 do\n"
    "    if f[i] == 'entry' and not entry then entry = f[i + 1]\n"
    "    elseif f[i] == 'reason' and not reason then reason = string.sub(f[i + 1], 1, tonumber(ARGV[2]))\n"
    "    elseif f[i] == 'job' and len < 0 then len = #f[i + 1]\n"
    "    elseif f[i] == 'job_bytes' and not cut then cut = tonumber(f[i + 1]) end\n"
    "  end\n"
    "  if cut and cut >= 0 and cut < 2^53 then len = math.floor(cut) end\n"
    "  out[#out + 1] = {e[1], entry or '', reason or '', len}\n"
    "end\n"
    "return out\n",
};

static const q_script requeue_script = {
    "dead-requeue",
    "local e = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])[1]\n"
    "if not e then return 0 end\n"
    "local f, job = e[2], nil\n"
    "for i = 1, #f, 2 do\n"
    "  if f[i] == 'job' and not job then job = f[i + 1] end\n"
    "  if f[i] == 'job_bytes' then return 0 end\n" /* only its first bytes were kept */
    "end\n"
    "if not job then return 0 end\n"
    "local id = redis.call('XADD', KEYS[2], '*', 'job', job)\n"
    "redis.call('XDEL', KEYS[1], ARGV[1])\n"
    "return id\n",
};

static const q_script purge_script = {
    "dead-purge",
    "local n = redis.call('XLEN', KEYS[1])\n"
    "redis.call('DEL', KEYS[1])\n"
    "return n\n",
};

/* The dead-letter key, after checking the prefix like every queue call. */
static int dead_key(char out[Q_KEY_MAX], const char *prefix, char *err, size_t errlen)
{
    if (q_check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    q_mkkey(out, prefix, "dead", NULL);
    return 0;
}

int q_dead_list(q_conn *c, const char *prefix, size_t n, q_dead_info *out, char *err, size_t errlen)
{
    char k[Q_KEY_MAX];
    if (dead_key(k, prefix, err, errlen) < 0)
        return -1;
    q_args a;
    q_args_init(&a);
    q_args_str(&a, k);
    size_t want = n > Q_DEAD_LIST_MAX ? Q_DEAD_LIST_MAX : n;
    q_args_ll(&a, (long long)want);
    q_args_ll(&a, Q_REASON_MAX);
    redisReply *r = q_eval(c, &list_script, 1, &a, err, errlen);
    if (!r)
        return -1;
    /* out holds the caller's n, whatever the reply claims. */
    if (r->type != REDIS_REPLY_ARRAY || r->elements > want)
        return q_bad_reply(r, "dead-list", err, errlen);
    for (size_t i = 0; i < r->elements; i++) {
        redisReply *e = r->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements != 4)
            return q_bad_reply(r, "dead-list", err, errlen);
        q_copy_str(out[i].id, sizeof out[i].id, e->element[0]);
        q_copy_str(out[i].entry, sizeof out[i].entry, e->element[1]);
        q_copy_str(out[i].reason, sizeof out[i].reason, e->element[2]);
        out[i].job_len = e->element[3]->type == REDIS_REPLY_INTEGER ? e->element[3]->integer : -1;
    }
    int count = (int)r->elements;
    freeReplyObject(r);
    return count;
}

int q_dead_get(q_conn *c, const char *prefix, const char *id, q_dead_info *info, q_blob *job, char *err,
               size_t errlen)
{
    char k[Q_KEY_MAX];
    if (dead_key(k, prefix, err, errlen) < 0 || q_check_token("dead-letter id", id, Q_ID_LEN - 1, err, errlen) < 0)
        return -1;
    q_args a;
    q_args_init(&a);
    q_args_str(&a, "XRANGE");
    q_args_str(&a, k);
    q_args_str(&a, id);
    q_args_str(&a, id);
    redisReply *r = q_command(c, &a, err, errlen);
    if (!r)
        return -1;
    if (r->type != REDIS_REPLY_ARRAY)
        return q_bad_reply(r, "XRANGE", err, errlen);
    if (r->elements == 0) {
        freeReplyObject(r);
        return 0;
    }
    redisReply *e = r->element[0];
    if (e->type != REDIS_REPLY_ARRAY || e->elements != 2 || e->element[1]->type != REDIS_REPLY_ARRAY)
        return q_bad_reply(r, "XRANGE", err, errlen);
    memset(info, 0, sizeof *info);
    info->job_len = -1;
    q_copy_str(info->id, sizeof info->id, e->element[0]);
    memset(job, 0, sizeof *job);
    redisReply *f = e->element[1];
    bool seen_entry = false, seen_reason = false;
    for (size_t i = 0; i + 1 < f->elements; i += 2) {
        const redisReply *name = f->element[i], *val = f->element[i + 1];
        if (name->type != REDIS_REPLY_STRING)
            continue;
        if (strcmp(name->str, "entry") == 0 && !seen_entry) {
            q_copy_str(info->entry, sizeof info->entry, val);
            seen_entry = true;
        } else if (strcmp(name->str, "reason") == 0 && !seen_reason) {
            q_copy_str(info->reason, sizeof info->reason, val);
            seen_reason = true;
        } else if (strcmp(name->str, "job") == 0 && val->type == REDIS_REPLY_STRING && !job->data) {
            job->data = val->str;
            job->len = val->len;
            if (!info->job_cut)
                info->job_len = (long long)val->len;
        } else if (strcmp(name->str, "job_bytes") == 0 && val->type == REDIS_REPLY_STRING && !info->job_cut) {
            char *end;
            errno = 0;
            long long n = val->len && val->str[0] >= '0' && val->str[0] <= '9' ? strtoll(val->str, &end, 10) : -1;
            if (n >= 0 && !errno && end == val->str + val->len) {
                info->job_len = n;
                info->job_cut = true;
            }
        }
    }
    job->reply = r; /* the job's bytes live in the reply */
    return 1;
}

int q_dead_requeue(q_conn *c, const char *prefix, const char *id, char entry_out[Q_ID_LEN], char *err,
                   size_t errlen)
{
    char dead[Q_KEY_MAX], jobs[Q_KEY_MAX];
    if (dead_key(dead, prefix, err, errlen) < 0 || q_check_token("dead-letter id", id, Q_ID_LEN - 1, err, errlen) < 0)
        return -1;
    q_mkkey(jobs, prefix, "jobs", NULL);
    q_args a;
    q_args_init(&a);
    q_args_str(&a, dead);
    q_args_str(&a, jobs);
    q_args_str(&a, id);
    redisReply *r = q_eval(c, &requeue_script, 2, &a, err, errlen);
    if (!r)
        return -1;
    if (r->type == REDIS_REPLY_INTEGER && r->integer == 0) {
        freeReplyObject(r);
        return 0;
    }
    if (r->type != REDIS_REPLY_STRING)
        return q_bad_reply(r, "dead-requeue", err, errlen);
    q_copy_str(entry_out, Q_ID_LEN, r);
    freeReplyObject(r);
    return 1;
}

long long q_dead_purge(q_conn *c, const char *prefix, char *err, size_t errlen)
{
    char k[Q_KEY_MAX];
    if (dead_key(k, prefix, err, errlen) < 0)
        return -1;
    q_args a;
    q_args_init(&a);
    q_args_str(&a, k);
    redisReply *r = q_eval(c, &purge_script, 1, &a, err, errlen);
    if (!r)
        return -1;
    if (r->type != REDIS_REPLY_INTEGER)
        return q_bad_reply(r, "dead-purge", err, errlen);
    long long n = r->integer;
    freeReplyObject(r);
    return n;
}
