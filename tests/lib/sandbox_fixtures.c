/* sandbox_fixtures.c -- the sandbox tests' shared fixture (see the header).
 * A machine that cannot give full isolation fails the group setup loudly
 * rather than passing on a weaker box. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/files.h"
#include "tests/lib/sandbox_fixtures.h"

sbx_host *sx_host;
sbx_box *sx_box;

int sx_run_prog_in(sbx_box *b, const char *name, const char *const *args, const sbx_limits *l, const void *in,
                   size_t inlen, sbx_result *r)
{
    size_t len;
    char *bytes = tl_read_prog(name, &len);
    if (!bytes)
        fail_msg("test program %s missing (build it with make)", name);
    const char *argv[16] = { "./prog" };
    for (int i = 0; args && args[i]; i++)
        argv[i + 1] = args[i];
    sbx_file f = { "prog", bytes, len, true };
    sbx_spec s = { .argv = argv, .files = &f, .nfiles = 1, .stdin_data = in, .stdin_len = inlen };
    if (l)
        s.limits = *l;
    else
        sbx_limits_default(&s.limits);
    int rc = sbx_run(b, &s, r);
    free(bytes);
    return rc;
}

int sx_run_prog(const char *name, const char *const *args, const sbx_limits *l, sbx_result *r)
{
    return sx_run_prog_in(sx_box, name, args, l, NULL, 0, r);
}

static void *bg_main(void *arg)
{
    sx_bg *g = arg;
    g->rc = sbx_run(g->box, &g->spec, &g->r);
    return NULL;
}

void sx_bg_prepare(sx_bg *g, sbx_box *b, const char *name, const char *const *args, const sbx_limits *l)
{
    memset(g, 0, sizeof *g);
    size_t len;
    g->box = b;
    g->prog = tl_read_prog(name, &len);
    if (!g->prog)
        fail_msg("test program %s missing (build it with make)", name);
    g->argv[0] = "./prog";
    for (int i = 0; args && args[i] && i < 14; i++)
        g->argv[i + 1] = args[i];
    g->file = (sbx_file){ "prog", g->prog, len, true };
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
        fail_msg("pipe");
    g->spec = (sbx_spec){ .argv = g->argv, .files = &g->file, .nfiles = 1, .use_stdin_fd = true,
                          .stdin_fd = in[0], .use_stdout_fd = true, .stdout_fd = out[1] };
    if (l)
        g->spec.limits = *l;
    else
        sbx_limits_default(&g->spec.limits);
    g->in = in[1];
    g->out = fdopen(out[0], "r");
    if (!g->out)
        fail_msg("starting a run beside the test");
}

void sx_bg_go(sx_bg *g)
{
    if (pthread_create(&g->thread, NULL, bg_main, g) != 0)
        fail_msg("starting a run beside the test");
}

void sx_bg_start(sx_bg *g, sbx_box *b, const char *name, const char *const *args, const sbx_limits *l)
{
    sx_bg_prepare(g, b, name, args, l);
    sx_bg_go(g);
}

void sx_bg_line(sx_bg *g, char *buf, size_t len)
{
    if (!fgets(buf, (int)len, g->out))
        fail_msg("the run beside the test ended before its line");
    buf[strcspn(buf, "\n")] = 0;
}

void sx_bg_send(sx_bg *g, const char *line)
{
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s\n", line);
    if (n < 0 || (size_t)n >= sizeof buf || write(g->in, buf, (size_t)n) != n)
        fail_msg("writing to the run beside the test");
}

void sx_bg_finish(sx_bg *g)
{
    if (g->in >= 0)
        close(g->in);
    g->in = -1;
    pthread_join(g->thread, NULL);
    fclose(g->out);
    free(g->prog);
}

void sx_assert_status(const sbx_result *r, sbx_status want)
{
    if (r->status != want)
        fail_msg("status %s, wanted %s (exit %d signal %d error \"%s\")\nstdout: %.*s\nstderr: %.*s",
                 sbx_status_name(r->status), sbx_status_name(want), r->exit_code, r->signal, r->error,
                 (int)(r->stdout_len < 300 ? r->stdout_len : 300), r->stdout_buf,
                 (int)(r->stderr_len < 300 ? r->stderr_len : 300), r->stderr_buf);
}

int sx_processes_of_uid(unsigned uid)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        bool zombie = false;
        while (f && fgets(line, sizeof line, f)) {
            unsigned u;
            char st;
            if (sscanf(line, "State: %c", &st) == 1)
                zombie = st == 'Z';
            if (sscanf(line, "Uid: %u", &u) == 1) {
                n += u == uid && !zombie;
                break;
            }
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

unsigned sx_slot_uid(void)
{
    return SX_UID_BASE + sbx_box_slot(sx_box);
}

int sx_group_setup(void **state)
{
    (void)state;
    char err[SBX_ERR_LEN];
    sbx_host_options o = { .require_isolation = true, .uid_base = SX_UID_BASE };
    if (sbx_host_open(&sx_host, &o, err, sizeof err) < 0 || sbx_box_open(sx_host, &sx_box, err, sizeof err) < 0) {
        fprintf(stderr, "sandbox unavailable: %s\n", err);
        return -1;
    }
    return 0;
}

int sx_group_teardown(void **state)
{
    (void)state;
    sbx_box_close(sx_box);
    sbx_host_close(sx_host);
    return 0;
}

int sx_test_setup(void **state)
{
    (void)state;
    alarm(120);
    return 0;
}
