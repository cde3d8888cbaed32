/* redis_script.c -- q_eval: Lua scripts by SHA1, loaded on demand (see
 * redis.h).
 *
 * DESIGN. Each connection caches the SHA1 of every script it has run (at
 * most SCRIPTS_MAX), keyed by the q_script's address. The first run on a
 * connection, or a NOSCRIPT reply after Redis restarted or flushed its
 * scripts, pipelines SCRIPT LOAD with EVAL of the body: the script runs
 * once and is cached again, in one round trip.
 *
 * INVARIANT: a NOSCRIPT reply means the script did not run, so running it
 * again through EVAL never runs it twice.
 */
#include <stdio.h>
#include <string.h>

#include "queue/err.h"
#include "queue/redis_internal.h"

/* Appends every argument of `src` (pointers only: `src` must outlive `dst`). */
static void args_append(q_args *dst, const q_args *src)
{
    dst->overflow |= src->overflow;
    for (int i = 0; i < src->argc; i++) {
        if (src->iov[i])
            q_args_iov(dst, src->iov[i], src->niov[i]);
        else
            q_args_bin(dst, src->argv[i], src->len[i]);
    }
}

/* The connection's cache slot for `s`, created empty on first use. */
static int script_slot(q_conn *c, const q_script *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < c->nscripts; i++)
        if (c->scripts[i].script == s)
            return (int)i;
    if (c->nscripts == SCRIPTS_MAX)
        return q_fail(err, errlen, "redis: more than %d scripts on one connection", SCRIPTS_MAX);
    c->scripts[c->nscripts].script = s;
    c->scripts[c->nscripts].sha[0] = '\0';
    return (int)c->nscripts++;
}

/* SCRIPT LOAD + EVAL pipelined: runs the script once and caches it on the
 * server and its SHA1 here, in one round trip. */
static redisReply *load_and_eval(q_conn *c, int slot, int nkeys, const q_args *a,
                                 const char *label, char *err, size_t errlen)
{
    const char *body = c->scripts[slot].script->body;
    q_args load, ev;
    q_args_init(&load);
    q_args_str(&load, "SCRIPT");
    q_args_str(&load, "LOAD");
    q_args_str(&load, body);
    q_args_init(&ev);
    q_args_str(&ev, "EVAL");
    q_args_str(&ev, body);
    q_args_ll(&ev, nkeys);
    args_append(&ev, a);
    const q_args *cmds[2] = { &load, &ev };
    redisReply *r[2];
    if (q_pipeline(c, 2, cmds, r, err, errlen) < 0)
        return NULL;
    if (r[0]->type == REDIS_REPLY_STRING && r[0]->len == 40)
        memcpy(c->scripts[slot].sha, r[0]->str, 41);
    freeReplyObject(r[0]);
    return q_reply_or_error(r[1], label, err, errlen);
}

redisReply *q_eval(q_conn *c, const q_script *s, int nkeys, const q_args *a, char *err,
                   size_t errlen)
{
    char label[64];
    (void)snprintf(label, sizeof label, "script %s: ", s->name);
    if (nkeys < 0 || nkeys > a->argc) {
        (void)q_fail(err, errlen, "redis: %s%d keys for %d arguments", label, nkeys, a->argc);
        return NULL;
    }
    int slot = script_slot(c, s, err, errlen);
    if (slot < 0)
        return NULL;
    if (!c->scripts[slot].sha[0])
        return load_and_eval(c, slot, nkeys, a, label, err, errlen);
    q_args cmd;
    q_args_init(&cmd);
    q_args_str(&cmd, "EVALSHA");
    q_args_str(&cmd, c->scripts[slot].sha);
    q_args_ll(&cmd, nkeys);
    args_append(&cmd, a);
    redisReply *r;
    if (q_pipeline(c, 1, (const q_args *const[]){ &cmd }, &r, err, errlen) < 0)
        return NULL;
    /* NOSCRIPT: Redis restarted or ran SCRIPT FLUSH; the script did not run. */
    if (r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "NOSCRIPT", 8)) {
        freeReplyObject(r);
        return load_and_eval(c, slot, nkeys, a, label, err, errlen);
    }
    return q_reply_or_error(r, label, err, errlen);
}
