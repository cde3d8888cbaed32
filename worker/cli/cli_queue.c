/* cli_queue.c -- what the queue commands (submit, result, stats, dead)
 * share: where Redis is, their common options, their one connection. A
 * file of its own so that `gradeq`, whose own commands never talk to
 * Redis, links none of it (main_gradeq.c). */
#include <stdlib.h>
#include <string.h>

#include "queue/redis.h"
#include "worker/cli/cli.h"

const char *wk_default_redis(void)
{
    const char *v = getenv("GRADEQ_REDIS");
    return v && *v ? v : "redis://127.0.0.1:6379";
}

const char *wk_default_prefix(void)
{
    const char *v = getenv("GRADEQ_PREFIX");
    return v && *v ? v : "gradeq";
}

q_conn *wk_cli_connect(const char *url, int *exit_code, char *err, size_t errlen)
{
    q_redis_addr addr;
    *exit_code = WK_EXIT_USAGE; /* a URL that cannot be parsed is a bad option */
    if (q_redis_url_parse(url, &addr, err, errlen) < 0)
        return NULL;
    *exit_code = WK_EXIT_REDIS;
    return q_conn_open(&addr, NULL, err, errlen);
}

int wk_cli_common_option(int argc, char **argv, int *i, const char **redis, const char **prefix, bool *json)
{
    const char *a = argv[*i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
        return 2;
    if (json && strcmp(a, "--json") == 0)
        return *json = true, 1;
    const char **slot = strcmp(a, "--redis") == 0 ? redis : strcmp(a, "--prefix") == 0 ? prefix : NULL;
    if (!slot)
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *slot = argv[++*i];
    return 1;
}
