/* redis_args.c -- building one command's arguments (q_args, see redis.h).
 *
 * INVARIANT: a q_args never holds more than Q_ARGS_MAX arguments or
 * Q_ARGS_NUMS formatted integers; one more marks it overflowed instead, and
 * a command built from an overflowed list is refused before it is sent.
 */
#include <stdio.h>
#include <string.h>

#include "queue/redis.h"

void q_args_init(q_args *a)
{
    a->argc = 0;
    a->nnums = 0;
    a->overflow = false;
}

void q_args_bin(q_args *a, const void *p, size_t n)
{
    if (a->argc == Q_ARGS_MAX) {
        a->overflow = true;
        return;
    }
    a->argv[a->argc] = n ? p : ""; /* hiredis needs a pointer even for "" */
    a->iov[a->argc] = NULL;
    a->len[a->argc++] = n;
}

void q_args_iov(q_args *a, const struct iovec *iov, int n)
{
    if (a->argc == Q_ARGS_MAX || n < 0 || n > Q_IOV_MAX) {
        a->overflow = true;
        return;
    }
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += iov[i].iov_len;
    a->argv[a->argc] = "";
    a->iov[a->argc] = iov;
    a->niov[a->argc] = n;
    a->len[a->argc++] = len;
}

void q_args_str(q_args *a, const char *s)
{
    q_args_bin(a, s, strlen(s));
}

void q_args_ll(q_args *a, long long v)
{
    if (a->nnums == Q_ARGS_NUMS) {
        a->overflow = true;
        return;
    }
    char *buf = a->nums[a->nnums++];
    q_args_bin(a, buf, (size_t)snprintf(buf, sizeof a->nums[0], "%lld", v));
}
