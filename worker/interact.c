/* interact.c -- run a program against its interactor and decide.
 *
 * The two talk through direct pipes, not through this process: a relay
 * costs a copy and two wake-ups per message (go-judge measured a userspace
 * relay 8.8x slower than a direct pipe), paid only when a transcript is
 * asked for (relay.c). Both are pinned to the same CPU, where a pipe round
 * trip is several times faster than across CPUs.
 *
 * VERDICT. The program's own failures first (limits, crashes, a non-zero
 * exit), except a SIGPIPE after the interactor had finished: writing to a
 * judge that already decided is not a crash. A deadlock (both at their wall
 * limit, or the program at its own) is WALL_TIME_LIMIT, saying who was
 * blocked reading. Otherwise the interactor decides: exit 0 OK, exit 1
 * WRONG_ANSWER, anything else (a crash, a limit of its own)
 * INTERACTOR_ERROR, never blamed on the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/interact.h"
#include "worker/relay.h"

typedef struct side {
    sbx_box *box;
    sbx_spec *spec;
    sbx_result *res;
    int rc;
} side;

static void *run_side(void *arg)
{
    side *s = arg;
    s->rc = sbx_run(s->box, s->spec, s->res);
    return NULL;
}

/* Who was waiting when time ran out. Each side's watchdog looks at its own
 * processes when its wall limit fires; the program's usually fires first,
 * and the interactor then reads end-of-file instead of timing out. So a
 * program that was not blocked on its stdin at its wall kill kept the
 * interactor waiting for its answer. */
static void waiting_message(wk_pair *p)
{
    const sbx_result *g = &p->prog, *i = &p->inter;
    const char *m;
    if (g->status == SBX_WALL_TIME_LIMIT)
        m = g->waiting_for_input ? "the program was waiting for input the interactor never sent"
                                 : "the program did not answer: the interactor was waiting for it";
    else
        m = i->waiting_for_input ? "the interactor was waiting for the program's answer"
                                 : "the interactor did not finish in time";
    snprintf(p->message, sizeof p->message, "%s", m);
}

static void decide(wk_pair *p)
{
    const sbx_result *g = &p->prog, *i = &p->inter;
    bool inter_done = i->status == SBX_OK || i->status == SBX_RUNTIME_ERROR;
    bool sigpipe_after = g->status == SBX_SIGNALED && g->signal == SIGPIPE && inter_done;
    if (g->status == SBX_SANDBOX_ERROR || i->status == SBX_SANDBOX_ERROR) {
        p->status = "SANDBOX_ERROR";
        snprintf(p->message, sizeof p->message, "%s", g->status == SBX_SANDBOX_ERROR ? g->error : i->error);
    } else if (g->status == SBX_WALL_TIME_LIMIT) {
        p->status = "WALL_TIME_LIMIT";
        waiting_message(p);
    } else if (g->status != SBX_OK && !sigpipe_after) {
        p->status = sbx_status_name(g->status);
        if (g->error[0])
            snprintf(p->message, sizeof p->message, "%s", g->error);
    } else if (i->status == SBX_WALL_TIME_LIMIT && i->waiting_for_input) {
        p->status = "WALL_TIME_LIMIT";
        waiting_message(p);
    } else if (i->status == SBX_OK) {
        p->status = "OK";
    } else if (i->status == SBX_RUNTIME_ERROR && i->exit_code == 1) {
        p->status = "WRONG_ANSWER";
    } else {
        p->status = "INTERACTOR_ERROR";
        snprintf(p->message, sizeof p->message, "interactor: %s%s%s", sbx_status_name(i->status),
                 i->error[0] ? ": " : "", i->error);
    }
}

int wk_run_pair(sbx_box *prog_box, sbx_spec *prog, sbx_box *inter_box, sbx_spec *inter, size_t transcript_bytes,
                wk_pair *out)
{
    memset(out, 0, sizeof *out);
    int pfd[2], ifd[2]; /* [0] stdin, [1] stdout of each side */
    wk_relay relay;
    bool relayed = transcript_bytes > 0;
    int to_inter[2], to_prog[2];
    if (relayed) {
        if (wk_relay_start(&relay, transcript_bytes, pfd, ifd) < 0)
            goto no_pipes;
    } else {
        if (pipe2(to_inter, O_CLOEXEC) < 0)
            goto no_pipes;
        if (pipe2(to_prog, O_CLOEXEC) < 0) {
            close(to_inter[0]);
            close(to_inter[1]);
            goto no_pipes;
        }
        pfd[0] = to_prog[0];
        pfd[1] = to_inter[1];
        ifd[0] = to_inter[0];
        ifd[1] = to_prog[1];
    }
    /* Each run takes its two fds over and closes them once its program
     * has them: when one side exits, the other reads end-of-file. */
    prog->use_stdin_fd = prog->use_stdout_fd = inter->use_stdin_fd = inter->use_stdout_fd = true;
    prog->stdin_fd = pfd[0];
    prog->stdout_fd = pfd[1];
    inter->stdin_fd = ifd[0];
    inter->stdout_fd = ifd[1];
    /* The judge outlives the contestant: were both walls to fire at once,
     * the program could read the interactor's end-of-file and exit before
     * its own watchdog saw it waiting, and the verdict would blame it. */
    uint64_t pwall = prog->limits.wall_ms ? prog->limits.wall_ms : 3 * prog->limits.cpu_ms;
    uint64_t iwall = inter->limits.wall_ms ? inter->limits.wall_ms : 3 * inter->limits.cpu_ms;
    if (iwall < pwall + 1000)
        inter->limits.wall_ms = pwall + 1000;
    prog->pin_cpu = inter->pin_cpu = true;
    prog->cpu = inter->cpu = sbx_box_slot(prog_box);
    side is = { inter_box, inter, &out->inter, 0 }, ps = { prog_box, prog, &out->prog, 0 };
    pthread_t t;
    if (pthread_create(&t, NULL, run_side, &is) != 0) {
        for (int i = 0; i < 2; i++) {
            close(pfd[i]);
            close(ifd[i]);
        }
        out->inter.status = SBX_SANDBOX_ERROR;
        snprintf(out->inter.error, sizeof out->inter.error, "cannot start the interactor's thread");
    } else {
        run_side(&ps);
        pthread_join(t, NULL);
    }
    if (relayed) {
        wk_relay_join(&relay);
        out->transcript = relay.buf;
        out->transcript_len = relay.len;
        out->transcript_truncated = relay.truncated;
    }
    decide(out);
    return strcmp(out->status, "SANDBOX_ERROR") == 0 ? -1 : 0;
no_pipes:
    out->status = "SANDBOX_ERROR";
    snprintf(out->message, sizeof out->message, "pipes for the interactor: %s", strerror(errno));
    return -1;
}

void wk_pair_free(wk_pair *p)
{
    sbx_result_free(&p->prog);
    sbx_result_free(&p->inter);
    free(p->transcript);
    p->transcript = NULL;
}
