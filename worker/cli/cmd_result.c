/* cmd_result.c -- `gradeq result ID [--wait S]`: the result of a job
 * submitted earlier, printed as `gradeq run` would; and the printing that
 * `gradeq submit --wait` shares with it. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "queue/grade.h"
#include "queue/job_id.h"
#include "queue/result.h"
#include "queue/stream.h"
#include "worker/cli/cli.h"
#include "worker/cli/commands.h"
#include "worker/cli/grade_cli.h"

long wk_wait_ms(uint64_t s)
{
    return s == 0 || s > (uint64_t)(LONG_MAX / 1000) ? -1 : (long)s * 1000;
}

int wk_print_result_of(q_conn *conn, const char *cmd, const char *prefix, const char *id, long timeout_ms, bool json)
{
    char err[Q_ERR_LEN];
    q_blob blob = { 0 };
    int rc = q_wait_result(conn, prefix, id, timeout_ms, &blob, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "gradeq %s: job %s: %s\n", cmd, id, err);
        return WK_EXIT_REDIS;
    }
    if (rc == 0) {
        fprintf(stderr, "gradeq %s: job %s: %s\n", cmd, id,
                timeout_ms ? "no result before --wait ran out" : "no result (yet, or it expired)");
        return timeout_ms ? WK_EXIT_TIMEOUT : WK_EXIT_NOT_FOUND;
    }
    q_result r;
    if (q_result_decode(blob.data, blob.len, &r, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq %s: job %s: unreadable result: %s\n", cmd, id, err);
        q_blob_free(&blob);
        return WK_EXIT_REDIS;
    }
    q_grade_result g;
    if (q_grade_result_decode(blob.data, blob.len, &g, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq %s: job %s: unreadable result: %s\n", cmd, id, err);
        q_result_free(&r);
        q_blob_free(&blob);
        return WK_EXIT_REDIS;
    }
    r.grade = g.priv ? &g : NULL;
    if (json)
        wk_print_json(stdout, &r);
    else if (r.grade)
        wk_print_grade_plain(stdout, &r, true);
    else
        wk_print_plain(&r);
    q_grade_result_free(&g);
    q_result_free(&r);
    q_blob_free(&blob);
    return WK_EXIT_OK;
}

static const char usage[] =
    "usage: gradeq result ID [--wait SECONDS] [--json] [--redis URL] [--prefix P]\n"
    "  The result of job ID, printed like `gradeq run` (it stays in Redis until\n"
    "  --result-ttl). Without --wait: exit 1 when there is none yet. --wait S waits\n"
    "  up to S seconds (0: no time limit), then exit 4. Options go anywhere.\n";

int wk_cmd_result(int argc, char **argv)
{
    const char *redis = wk_default_redis(), *prefix = wk_default_prefix(), *id = NULL;
    bool json = false, wait = false;
    uint64_t wait_s = 0;
    for (int i = 1; i < argc; i++) {
        int opt = wk_cli_common_option(argc, argv, &i, &redis, &prefix, &json);
        if (opt == 2)
            return fputs(usage, stdout), WK_EXIT_OK;
        if (opt == 1)
            continue;
        if (opt == 0 && strcmp(argv[i], "--wait") == 0) {
            if (i + 1 >= argc || wk_parse_uint(argv[i + 1], &wait_s) < 0)
                return wk_usage_error("result", "--wait needs a number of seconds");
            wait = true;
            i++;
        } else if (opt == 0 && argv[i][0] != '-' && !id) {
            id = argv[i];
        } else {
            return wk_usage_error("result", opt < 0 ? "%s needs a value" : "unexpected %s", argv[i]);
        }
    }
    if (!id)
        return wk_usage_error("result", "which job? (gradeq result ID)");
    if (!q_id_valid(id, strlen(id)))
        return wk_usage_error("result", "a job id is 1..%d bytes of %s", Q_ID_MAX, Q_ID_CHARS);
    char err[Q_ERR_LEN];
    int code;
    q_conn *c = wk_cli_connect(redis, &code, err, sizeof err);
    if (!c)
        return fprintf(stderr, "gradeq result: %s\n", err), code;
    code = wk_print_result_of(c, "result", prefix, id, wait ? wk_wait_ms(wait_s) : 0, json);
    q_conn_close(c);
    return code;
}
