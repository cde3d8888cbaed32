/* cmd_dead.c -- `gradeq dead list|show ID|requeue ID|purge`: inspect and
 * retry the jobs the workers gave up on (P:dead). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/dead.h"
#include "queue/job.h"
#include "worker/cli/cli.h"
#include "worker/cli/commands.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq dead list [N] | show ID | requeue ID | purge  [--redis URL] [--prefix P] [--json]\n"
               "  (options anywhere)\n"
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
            /* P:dead is a stream anyone with write access can add to:
             * its fields are quoted, not trusted. */
            printf("%s{\"id\":", i ? "," : "");
            wk_json_string(stdout, d[i].id);
            printf(",\"entry\":");
            wk_json_string(stdout, d[i].entry);
            printf(",\"job_bytes\":%lld,\"reason\":", d[i].job_len);
            wk_json_string(stdout, d[i].reason);
            putchar('}');
        } else {
            char id[4 * Q_ID_LEN], entry[4 * Q_ID_LEN], reason[4 * Q_REASON_MAX + 4];
            wk_text_escape(id, sizeof id, d[i].id);
            wk_text_escape(entry, sizeof entry, d[i].entry);
            wk_text_escape(reason, sizeof reason, d[i].reason);
            printf("%-20s entry %-20s %9lld bytes  %s\n", id, entry, d[i].job_len, reason);
        }
    }
    if (json)
        puts("]");
    else if (k == 0)
        puts("no dead letters");
    return 0;
}

/* P:dead holds what a job or anyone with write access chose: plain
 * output shows every string escaped. */
static void field(const char *s)
{
    wk_text_write(stdout, s, strlen(s), false);
}

static int show(q_conn *c, const char *prefix, const char *id, bool json)
{
    char err[Q_ERR_LEN];
    q_dead_info d;
    q_blob job;
    int rc = q_dead_get(c, prefix, id, &d, &job, err, sizeof err);
    if (rc <= 0)
        return fprintf(stderr, "gradeq dead: %s\n", rc < 0 ? err : "no such dead letter"), rc < 0 ? 3 : 1;
    q_job j = { 0 };
    char jerr[Q_ERR_LEN] = "";
    int ok = job.data ? q_job_decode(job.data, job.len, NULL, &j, jerr, sizeof jerr) : -1;
    if (json) {
        printf("{\"id\":");
        wk_json_string(stdout, d.id);
        printf(",\"entry\":");
        wk_json_string(stdout, d.entry);
        printf(",\"job_bytes\":%lld,\"reason\":", d.job_len);
        wk_json_string(stdout, d.reason);
        printf(",\"job_cut\":%s,\"job_id\":", d.job_cut ? "true" : "false");
        j.has_id ? wk_json_string(stdout, j.id) : (void)fputs("null", stdout);
        printf(",\"job\":\"");
        wk_base64(stdout, job.data, job.len);
        puts("\"}");
    } else {
        fputs("dead letter ", stdout);
        field(d.id);
        fputs(" (was entry ", stdout);
        field(d.entry);
        fputs(")\nreason: ", stdout);
        field(d.reason);
        putchar('\n');
        if (d.job_len < 0)
            printf("job: none (the entry had no job field)\n");
        else
            printf("job: %lld bytes%s\n", d.job_len, d.job_cut ? " (only its first bytes kept)" : "");
        if (j.has_id)
            printf("job id: %s\n", j.id);
        if (ok == 0) {
            printf("argv:");
            for (size_t i = 0; i < j.prog.argc; i++) {
                putchar(' ');
                field(j.prog.argv[i]);
            }
            printf("\nfiles: %zu, stdin: %zu bytes%s\n", j.prog.nfiles, j.stdin_len,
                   j.has_interactor ? ", with an interactor" : "");
        } else if (job.data && !d.job_cut) {
            fputs("unreadable: ", stdout);
            field(jerr);
            putchar('\n');
        }
    }
    q_job_free(&j);
    q_blob_free(&job);
    return 0;
}

int wk_cmd_dead(int argc, char **argv)
{
    const char *redis = wk_default_redis(), *prefix = wk_default_prefix();
    const char *words[3] = { NULL, NULL, NULL };
    size_t nwords = 0;
    bool json = false;
    /* Options go anywhere among the words, as in every gradeq command. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int opt = wk_cli_common_option(argc, argv, &i, &redis, &prefix, &json);
        if (opt == 1)
            continue;
        if (opt == 2)
            return usage(stdout), 0;
        if (opt < 0 || a[0] == '-' || nwords == 3)
            return wk_usage_error("dead", opt < 0 ? "%s needs a value" : a[0] == '-' ? "unknown option %s"
                                                                                     : "unexpected %s", a);
        words[nwords++] = a;
    }
    const char *cmd = words[0], *arg = words[1];
    uint64_t n = 20;
    if (!cmd)
        return wk_usage_error("dead", "list, show, requeue or purge?");
    bool is_list = strcmp(cmd, "list") == 0, is_purge = strcmp(cmd, "purge") == 0;
    if (!is_list && !is_purge && strcmp(cmd, "show") != 0 && strcmp(cmd, "requeue") != 0)
        return wk_usage_error("dead", "unknown subcommand %s", cmd);
    if ((is_purge && arg) || (!is_list && !is_purge && !arg) || words[2] || (is_list && arg && wk_parse_uint(arg, &n) < 0))
        return wk_usage_error("dead", "%s takes %s", cmd, is_list ? "an optional count N" : is_purge ? "nothing"
                                                                                                   : "one ID");
    char err[Q_ERR_LEN];
    int code;
    q_conn *c = wk_cli_connect(redis, &code, err, sizeof err);
    if (!c)
        return fprintf(stderr, "gradeq dead: %s\n", err), code;
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
    } else {
        long long k = q_dead_purge(c, prefix, err, sizeof err);
        rc = k < 0 ? 3 : 0;
        if (k >= 0)
            printf("purged %lld dead letters\n", k);
        else
            fprintf(stderr, "gradeq dead: %s\n", err);
    }
    q_conn_close(c);
    return rc;
}
