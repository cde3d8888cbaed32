/* stream_stats.c -- the queue's gauges in one round trip (see stream.h).
 *
 * DESIGN. One script reads every gauge, so they are consistent with one
 * another: lengths, the group's lag and pending list, ages from entry ids
 * (their first part is the submit time in ms) against the server clock,
 * the P:stats counters and the jobs done per second from the P:rate ring.
 *
 * INVARIANT: the reply is bounded: the consumer and counter lists are cut
 * inside the script to Q_STATS_CONSUMERS and Q_STATS_COUNTERS, and the
 * totals sent alongside tell the caller whether they were cut.
 */
#include <string.h>

#include "queue/stream_internal.h"

#define RATE_WINDOW_S 60      /* jobs/s is averaged over this many seconds */

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

/* -------------------------------------------------------------- gauges */

/* The shape script_stats replies with: 11 elements, integers but for the
 * two [name, count, ...] lists at 7 and 9, each within the arrays it fills
 * (whatever answers on the socket, a reply never writes past them). */
static bool stats_shape(const redisReply *r)
{
    if (!q_is_array(r, 11))
        return false;
    for (size_t i = 0; i < 11; i++)
        if (r->element[i]->type != (i == 7 || i == 9 ? REDIS_REPLY_ARRAY : REDIS_REPLY_INTEGER))
            return false;
    return r->element[7]->elements % 2 == 0 && r->element[9]->elements % 2 == 0 &&
           r->element[7]->elements <= 2 * Q_STATS_CONSUMERS && r->element[9]->elements <= 2 * Q_STATS_COUNTERS;
}

int q_stats_read(q_conn *c, const char *prefix, q_stats *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (q_check_token("prefix", prefix, Q_PREFIX_MAX, err, errlen) < 0)
        return -1;
    char keys[4][Q_KEY_MAX];
    const char *names[4] = { "jobs", "dead", "stats", "rate" };
    q_args a;
    q_args_init(&a);
    for (int i = 0; i < 4; i++) {
        q_mkkey(keys[i], prefix, names[i], NULL);
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
        return q_bad_reply(r, "the stats script", err, errlen);
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
        q_copy_str(out->consumers[i].name, sizeof out->consumers[i].name, e[7]->element[2 * i]);
        out->consumers[i].pending = q_reply_ll(e[7]->element[2 * i + 1]);
    }
    out->consumers_truncated = (long long)out->nconsumers < e[8]->integer;
    for (size_t i = 0; i < e[9]->elements / 2; i++, out->ncounters++) {
        q_copy_str(out->counters[i].name, sizeof out->counters[i].name, e[9]->element[2 * i]);
        out->counters[i].value = q_reply_ll(e[9]->element[2 * i + 1]);
    }
    out->counters_truncated = (long long)out->ncounters < e[10]->integer;
    freeReplyObject(r);
    return 0;
}
