/* cmd_submit.c -- `gradeq submit`: one job into the queue, optionally
 * waiting for its result, which it prints as `gradeq run` would. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <msgpack.h>

#include "queue/job.h"
#include "queue/result.h"
#include "queue/stream.h"
#include "worker/cli/cli.h"
#include "worker/cli/commands.h"
#include "worker/cli/grade_cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: gradeq submit [options] [--id ID] [--wait SECONDS] [--redis URL] [--prefix P]\n"
               "                     [--max-queue N] [--] PROGRAM ARGS...\n%s"
               "  --id ID             job id (default: random)\n"
               "  --wait SECONDS      wait for the result and print it like `gradeq run`\n"
               "                      (0: no time limit); the job id goes to stderr once queued\n"
               "  --redis URL         (env GRADEQ_REDIS, default redis://127.0.0.1:6379)\n"
               "  --prefix P          key prefix (env GRADEQ_PREFIX, default gradeq)\n"
               "  --max-queue N       refuse (exit 3) when N or more jobs are in the queue,\n"
               "                      waiting or running\n"
               "Without --wait it prints the job id on stdout; `gradeq result ID` fetches the\n"
               "result later. A local PROGRAM travels with the job.\n%s",
            wk_cli_run_help, wk_cli_grade_help);
}

typedef struct submit_opts {
    const char *redis, *prefix, *id;
    uint64_t wait_s, max_queue;
    bool wait;
} submit_opts;

static int own_option(submit_opts *o, int argc, char **argv, int *i, char *err, size_t errlen)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    const char **str = strcmp(a, "--redis") == 0 ? &o->redis : strcmp(a, "--prefix") == 0 ? &o->prefix
                     : strcmp(a, "--id") == 0 ? &o->id : NULL;
    uint64_t *num = strcmp(a, "--wait") == 0 ? &o->wait_s : strcmp(a, "--max-queue") == 0 ? &o->max_queue : NULL;
    if (!str && !num)
        return 0;
    /* --max-queue goes to Redis as a 64-bit signed count. */
    if (!v || (num && (wk_parse_uint(v, num) < 0 || *num > (uint64_t)LLONG_MAX)))
        return snprintf(err, errlen, "%s needs %s", a, num ? "a non-negative integer (at most 2^63-1)" : "a value"), -1;
    if (str)
        *str = v;
    o->wait |= num == &o->wait_s;
    (*i)++;
    return 1;
}

static void random_id(char *out, size_t size)
{
    unsigned char r[12];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        memset(r, 0, sizeof r);
    size_t n = (size_t)snprintf(out, size, "job-");
    for (size_t i = 0; i < sizeof r && n + 2 < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%02x", r[i]);
}

static int build_job(const wk_cli_run *c, const char *id, q_job *j, q_file *files, q_file *ifiles)
{
    memset(j, 0, sizeof *j);
    snprintf(j->id, sizeof j->id, "%s", id);
    j->has_id = true;
    j->prog.argv = (char **)c->argv;
    for (j->prog.argc = 0; c->argv[j->prog.argc]; j->prog.argc++)
        ;
    for (size_t i = 0; i < c->spec.nfiles; i++)
        files[i] = (q_file){ (char *)c->files[i].name, c->files[i].data, c->files[i].len };
    j->prog.files = c->spec.nfiles ? files : NULL;
    j->prog.nfiles = c->spec.nfiles;
    const uint64_t *l = &c->limits.cpu_ms; /* sbx_limits is Q_LIM_ order */
    _Static_assert(sizeof(sbx_limits) == Q_LIM_COUNT * sizeof(uint64_t), "limits layout");
    for (int i = 0; i < Q_LIM_COUNT; i++)
        j->prog.limits[i] = l[i];
    j->prog.limits_present = c->limits_given;
    if (c->has_interactor) {
        j->has_interactor = true;
        j->interactor.argv = (char **)c->inter_argv;
        for (j->interactor.argc = 0; c->inter_argv[j->interactor.argc]; j->interactor.argc++)
            ;
        for (size_t i = 0; i < c->ninter_files; i++)
            ifiles[i] = (q_file){ (char *)c->inter_files[i].name, c->inter_files[i].data, c->inter_files[i].len };
        j->interactor.files = c->ninter_files ? ifiles : NULL;
        j->interactor.nfiles = c->ninter_files;
        sbx_limits il;
        wk_cli_interactor_limits(c, &il);
        memcpy(j->interactor.limits, &il.cpu_ms, sizeof j->interactor.limits);
        j->interactor.limits_present = j->prog.limits_present | c->inter_given;
        j->transcript_bytes = c->transcript_bytes;
    }
    j->has_stdin = c->spec.stdin_data != NULL;
    j->stdin_data = c->spec.stdin_data;
    j->stdin_len = c->spec.stdin_len;
    return 0;
}

int wk_cmd_submit(int argc, char **argv)
{
    static wk_cli_run c;
    static q_file files[WK_MAX_FILES], ifiles[64];
    static wk_cli_grade g;
    submit_opts o = { wk_default_redis(), wk_default_prefix(), NULL, 0, 0, false };
    char err[512] = "";
    int i = 1, rc = 0;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(stdout), 0;
        rc = own_option(&o, argc, argv, &i, err, sizeof err);
        if (rc == 0)
            rc = wk_cli_grade_option(&g, argc, argv, &i, err, sizeof err);
        if (rc == 0)
            rc = wk_cli_run_option(&c, argc, argv, &i, err, sizeof err);
        if (rc < 0 || (rc == 0 && argv[i][0] == '-')) {
            wk_cli_run_free(&c);
            wk_cli_grade_free(&g);
            return rc < 0 ? wk_usage_error("submit", "%s", err) : wk_usage_error("submit", "unknown option %s", argv[i]);
        }
        if (rc == 0)
            break;
    }
    /* A language preset gives the program; a local interactor travels all
     * the same. */
    if ((i < argc || !g.language ? wk_cli_run_program(&c, argc, argv, i, err, sizeof err)
                                 : wk_cli_run_preset(&c, err, sizeof err)) < 0) {
        wk_cli_run_free(&c);
        wk_cli_grade_free(&g);
        return wk_usage_error("submit", "%s", err);
    }
    char id[Q_ID_MAX + 1];
    if (o.id)
        snprintf(id, sizeof id, "%s", o.id);
    else
        random_id(id, sizeof id);
    q_job j;
    if (!g.any) {
        build_job(&c, id, &j, files, ifiles);
    } else if (wk_cli_grade_job(&g, &c, &j, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq submit: %s\n", err);
        wk_cli_run_free(&c);
        wk_cli_grade_free(&g);
        return 2;
    } else {
        wk_cli_grade_ship(&g);
        snprintf(j.id, sizeof j.id, "%s", id);
        j.has_id = true;
    }
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    q_conn *conn = NULL;
    char entry[Q_ID_LEN];
    if (q_job_encode(&j, &buf, err, sizeof err) < 0) {
        fprintf(stderr, "gradeq submit: bad job: %s\n", err);
        rc = WK_EXIT_USAGE;
    } else if (!(conn = wk_cli_connect(o.redis, &rc, err, sizeof err))) {
        fprintf(stderr, "gradeq submit: %s\n", err);
    } else if (q_submit(conn, o.prefix, buf.data, buf.size, (long long)o.max_queue, entry, err, sizeof err) <= 0) {
        fprintf(stderr, "gradeq submit: %s\n", err);
        rc = WK_EXIT_REDIS;
    } else if (o.wait) {
        /* Whatever happens while waiting, the id is already known. */
        fprintf(stderr, "gradeq submit: queued job %s\n", id);
        rc = wk_print_result_of(conn, "submit", o.prefix, id, wk_wait_ms(o.wait_s), c.json);
    } else {
        printf("%s\n", id);
        rc = WK_EXIT_OK;
    }
    q_conn_close(conn);
    msgpack_sbuffer_destroy(&buf);
    wk_cli_run_free(&c);
    wk_cli_grade_free(&g);
    return rc;
}
