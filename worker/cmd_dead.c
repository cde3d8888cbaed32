/* cmd_dead.c -- `gradeq dead list|show ID|requeue ID|purge`: inspect and
 * retry the jobs the workers gave up on (P:dead). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/dead.h"
#include "queue/job.h"
#include "worker/cli.h"
#include "worker/commands.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq dead [--redis URL] [--prefix P] [--json] list [N]\n"
               "       gradeq dead ... show ID | requeue ID | purge\n"
               "  list     the newest N dead letters (default 20): id, original entry, job size, reason\n"
               "  show     one dead letter, with what can be read of its job\n"
               "  requeue  put its job back into the queue (a new delivery; the result replaces any\n"
               "           earlier one under the job's id)\n"
               "  purge    delete every dead letter\n");
}

static int list(q_conn *c, const char *prefix, size_t n, bool json)
{
    static q_dead_info d[Q_DEAD_LIST_MAX];
    char err[Q_ERR_LEN];
    int k = q_dead_list(c, prefix, n, d, err, sizeof err);
    if (k < 0)
        return fprintf(stderr, "gradeq dead: %s\n", err), 3;
    if (json)
        putchar('[');
    for (int i = 0; i < k; i++) {
        if (json) {
            printf("%s{\"id\":\"%s\",\"entry\":\"%s\",\"job_bytes\":%lld,\"reason\":", i ? "," : "", d[i].id,
                   d[i].entry, d[i].job_len);
            wk_json_string(stdout, d[i].reason);
            putchar('}');
        } else {
            printf("%-20s entry %-20s %9lld bytes  %s\n", d[i].id, d[i].entry, d[i].job_len, d[i].reason);
        }
    }
    if (json)
        puts("]");
    else if (k == 0)
        puts("no dead letters");
    return 0;
}

static int show(q_conn *c, const char *prefix, const char *id, bool json)
{
    char err[Q_ERR_LEN];
    q_dead_info d;
    q_blob job;
    int rc = q_dead_get(c, prefix, id, &d, &job, err, sizeof err);
    if (rc <= 0)
        return fprintf(stderr, "gradeq dead: %s\n", rc < 0 ? err : "no such dead letter"), rc < 0 ? 3 : 1;
    q_job j;
    char jerr[Q_ERR_LEN] = "";
    int ok = job.data ? q_job_decode(job.data, job.len, NULL, &j, jerr, sizeof jerr) : -1;
    if (json) {
        printf("{\"id\":\"%s\",\"entry\":\"%s\",\"job_bytes\":%lld,\"reason\":", d.id, d.entry, d.job_len);
        wk_json_string(stdout, d.reason);
        printf(",\"job_id\":");
        j.has_id ? wk_json_string(stdout, j.id) : (void)fputs("null", stdout);
        printf(",\"job\":\"");
        wk_base64(stdout, job.data, job.len);
        puts("\"}");
    } else {
        printf("dead letter %s (was entry %s)\nreason: %s\njob: %lld bytes\n", d.id, d.entry, d.reason, d.job_len);
        if (j.has_id)
            printf("job id: %s\n", j.id);
        if (ok == 0) {
            printf("argv:");
            for (size_t i = 0; i < j.prog.argc; i++)
                printf(" %s", j.prog.argv[i]);
            printf("\nfiles: %zu, stdin: %zu bytes%s\n", j.prog.nfiles, j.stdin_len,
                   j.has_interactor ? ", with an interactor" : "");
        } else if (job.data) {
            printf("unreadable: %s\n", jerr);
        }
    }
    q_job_free(&j);
    q_blob_free(&job);
    return 0;
}

int wk_cmd_dead(int argc, char **argv)
{
    const char *redis = wk_default_redis(), *prefix = wk_default_prefix();
    bool json = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--redis") == 0 && i + 1 < argc)
            redis = argv[++i];
        else if (strcmp(argv[i], "--prefix") == 0 && i + 1 < argc)
            prefix = argv[++i];
        else
            return usage(strcmp(argv[i], "--help") == 0 ? stdout : stderr), strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
    const char *cmd = i < argc ? argv[i] : NULL, *arg = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t n = 20;
    if (!cmd || (strcmp(cmd, "list") != 0 && strcmp(cmd, "purge") != 0 && !arg) ||
        (strcmp(cmd, "list") == 0 && arg && wk_parse_uint(arg, &n) < 0))
        return usage(stderr), 2;
    char err[Q_ERR_LEN];
    q_conn *c = wk_cli_connect(redis, err, sizeof err);
    if (!c)
        return fprintf(stderr, "gradeq dead: %s\n", err), 3;
    int rc;
    if (strcmp(cmd, "list") == 0) {
        rc = list(c, prefix, (size_t)n, json);
    } else if (strcmp(cmd, "show") == 0) {
        rc = show(c, prefix, arg, json);
    } else if (strcmp(cmd, "requeue") == 0) {
        char entry[Q_ID_LEN];
        int r = q_dead_requeue(c, prefix, arg, entry, err, sizeof err);
        rc = r < 0 ? 3 : r == 0 ? 1 : 0;
        if (r > 0)
            printf("requeued as entry %s\n", entry);
        else
            fprintf(stderr, "gradeq dead: %s\n", r < 0 ? err : "no such dead letter, or it has no job bytes");
    } else if (strcmp(cmd, "purge") == 0) {
        long long k = q_dead_purge(c, prefix, err, sizeof err);
        rc = k < 0 ? 3 : 0;
        if (k >= 0)
            printf("purged %lld dead letters\n", k);
        else
            fprintf(stderr, "gradeq dead: %s\n", err);
    } else {
        usage(stderr);
        rc = 2;
    }
    q_conn_close(c);
    return rc;
}
