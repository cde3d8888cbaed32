/* sandbox_fixtures.h -- what the sandbox test files share (cmocka): one
 * host opened with require_isolation and one box for the whole group, a
 * per-test alarm() as the outer bound, and running a tests/progs program
 * as ./prog in /box, the way a job would. */
#ifndef GRADEQ_TESTS_SANDBOX_FIXTURES_H
#define GRADEQ_TESTS_SANDBOX_FIXTURES_H

#include <pthread.h>
#include <stdio.h>

#include "sandbox/sandbox.h"

#define SX_UID_BASE 60000

extern sbx_host *sx_host;
extern sbx_box *sx_box;

int sx_group_setup(void **state);
int sx_group_teardown(void **state);
int sx_test_setup(void **state);

/* Runs $GRADEQ_PROGS/NAME (default build/progs) with args under limits l
 * (the defaults when NULL) and stdin in[0..inlen). */
int sx_run_prog_in(sbx_box *b, const char *name, const char *const *args, const sbx_limits *l, const void *in,
                   size_t inlen, sbx_result *r);
int sx_run_prog(const char *name, const char *const *args, const sbx_limits *l, sbx_result *r);
/* A run beside the test: NAME of tests/progs in box b, in a thread of its
 * own, its stdin and stdout wired to the test (stderr captured). The
 * program says when it is ready on stdout (sx_bg_line), and takes the end
 * of its stdin as its cue to finish (sx_bg_finish, which returns once its
 * result is in g->r; free it with sbx_result_free). */
typedef struct sx_bg {
    sbx_box *box;
    pthread_t thread;
    char *prog;
    const char *argv[16];
    sbx_file file;
    sbx_spec spec;
    sbx_result r;
    int rc;
    int in;     /* the write end of its stdin; -1 once closed */
    FILE *out;  /* the read end of its stdout */
} sx_bg;
void sx_bg_start(sx_bg *g, sbx_box *b, const char *name, const char *const *args, const sbx_limits *l);
/* sx_bg_start in two steps: g->spec may be changed between them. */
void sx_bg_prepare(sx_bg *g, sbx_box *b, const char *name, const char *const *args, const sbx_limits *l);
void sx_bg_go(sx_bg *g);
/* Its next line of stdout (newline cut off) in buf; fails the test at its
 * end of file. */
void sx_bg_line(sx_bg *g, char *buf, size_t len);
/* Writes line (a newline added) to its stdin. */
void sx_bg_send(sx_bg *g, const char *line);
void sx_bg_finish(sx_bg *g);

/* Fails the test, showing the start of both streams, unless r has want. */
void sx_assert_status(const sbx_result *r, sbx_status want);
/* Processes of a uid anywhere on the host that can still run (a slot's
 * uid is its alone). Zombies are not counted: a killed run's last ones
 * wait a moment for the zygote, their PID 1, to reap them. */
int sx_processes_of_uid(unsigned uid);
unsigned sx_slot_uid(void);

#endif
