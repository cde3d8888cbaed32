/* stream_util.c -- checks on caller strings, key names and reply shapes
 * shared by the stream_*.c files (see stream_internal.h).
 *
 * INVARIANT: every string that becomes part of a key name passes one of
 * the checks here first, so a key is never longer than Q_KEY_MAX and never
 * holds a space or a control byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/err.h"
#include "queue/job_id.h"
#include "queue/stream_internal.h"

int q_check_token(const char *what, const char *s, size_t max, char *err, size_t errlen)
{
    size_t n = s ? strnlen(s, max + 1) : 0;
    if (n == 0 || n > max)
        return q_fail(err, errlen, "queue: %s must be 1..%zu bytes", what, max);
    for (size_t i = 0; i < n; i++)
        if (s[i] < '!' || s[i] > '~')
            return q_fail(err, errlen, "queue: %s may only hold printable ASCII, no space", what);
    return 0;
}

int q_check_job_id(const char *id, char *err, size_t errlen)
{
    if (!id || !q_id_valid(id, strnlen(id, Q_ID_MAX + 1)))
        return q_fail(err, errlen, "queue: job id must be 1..%d bytes of " Q_ID_CHARS, Q_ID_MAX);
    return 0;
}

void q_mkkey(char out[Q_KEY_MAX], const char *prefix, const char *name, const char *suffix)
{
    (void)snprintf(out, Q_KEY_MAX, "%s:%s%s", prefix, name, suffix ? suffix : "");
}

bool q_is_array(const redisReply *r, size_t n)
{
    return r->type == REDIS_REPLY_ARRAY && r->elements == n;
}

int q_bad_reply(redisReply *r, const char *what, char *err, size_t errlen)
{
    freeReplyObject(r);
    return q_fail(err, errlen, "redis: unexpected reply to %s", what);
}

void q_copy_str(char *dst, size_t cap, const redisReply *r)
{
    size_t n = r->type == REDIS_REPLY_STRING ? r->len : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(dst, r->str, n);
    dst[n] = '\0';
}

long long q_reply_ll(const redisReply *r)
{
    if (r->type == REDIS_REPLY_INTEGER)
        return r->integer;
    return r->type == REDIS_REPLY_STRING ? strtoll(r->str, NULL, 10) : 0;
}
