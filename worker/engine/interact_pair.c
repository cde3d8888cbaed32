/* interact_pair.c -- run a program against its interactor and decide.
 *
 * The two talk through direct pipes, not through this process: a relay
 * costs a copy and two wake-ups per message (go-judge measured a userspace
 * relay 8.8x slower than a direct pipe), paid only when a transcript is
 * asked for (relay.c). Both are pinned to the same CPU, where a pipe round
 * trip is several times faster than across CPUs.
 *
 * VERDICT. Whoever failed first decides, "first" by the end times the
 * sandbox measured for each side (sbx_result.end_ns: its kill for a limit,
 * else its exit). An interactor that ended first with anything but OK
 * decides, whatever the program did after (it read end-of-file, got
 * SIGPIPE, exited non-zero): exit 1 WRONG_ANSWER, anything else (a crash,
 * a limit of its own) INTERACTOR_ERROR, never blamed on the program.
 * Otherwise the program's own failures (limits, crashes, a non-zero exit),
 * except a SIGPIPE after the interactor had finished: writing to a judge
 * that already decided is not a crash. A deadlock (both at their wall
 * limit, or the program at its own) is WALL_TIME_LIMIT, saying who was
 * blocked reading. Then the interactor's verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/engine/interact.h"
#include "worker/engine/relay.h"

typedef struct side {
    sbx_box *box;
    sbx_spec *spec;
    sbx_result *res;
    int rc;
    int hold[2]; /* copies of this side's stdin and stdout, closed once it has ended */
} side;

static void *run_side(void *arg)
{
    side *s = arg;
    s->rc = sbx_run(s->box, s->spec, s->res);
    close(s->hold[0]);
    close(s->hold[1]);
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

/* The interactor's own verdict, its failures never blamed on the program. */
static void interactor_verdict(wk_pair *p)
{
    const sbx_result *i = &p->inter;
    if (i->status == SBX_OK) {
        p->status = "OK";
    } else if (i->status == SBX_WALL_TIME_LIMIT && i->waiting_for_input) {
        p->status = "WALL_TIME_LIMIT";
        waiting_message(p);
    } else if (i->status == SBX_RUNTIME_ERROR && i->exit_code == 1) {
        p->status = "WRONG_ANSWER";
    } else {
        p->status = "INTERACTOR_ERROR";
        snprintf(p->message, sizeof p->message, "interactor: %s%s%s", sbx_status_name(i->status),
                 i->error[0] ? ": " : "", i->error);
    }
}

void wk_pair_decide(wk_pair *p)
{
    const sbx_result *g = &p->prog, *i = &p->inter;
    p->message[0] = 0;
    bool inter_first = i->end_ns <= g->end_ns;
    bool sigpipe_after = g->status == SBX_SIGNALED && g->signal == SIGPIPE && inter_first;
    if (g->status == SBX_SANDBOX_ERROR || i->status == SBX_SANDBOX_ERROR) {
        p->status = "SANDBOX_ERROR";
        snprintf(p->message, sizeof p->message, "%s", g->status == SBX_SANDBOX_ERROR ? g->error : i->error);
    } else if (i->status != SBX_OK && inter_first) {
        interactor_verdict(p);
    } else if (g->status == SBX_WALL_TIME_LIMIT) {
        p->status = "WALL_TIME_LIMIT";
        waiting_message(p);
    } else if (g->status != SBX_OK && !sigpipe_after) {
        p->status = sbx_status_name(g->status);
        if (g->error[0])
            snprintf(p->message, sizeof p->message, "%s", g->error);
    } else {
        interactor_verdict(p);
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
        if (wk_relay_start(&relay, transcript_bytes, prog->limits.stdout_bytes, prog_box, pfd, ifd) < 0)
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
     * has them. Copies of each side's two ends stay here until that side's
     * run has ended and its end time is taken: only then does the other
     * side read end-of-file from it or get SIGPIPE writing to it, so it
     * cannot end before the side it reacts to, and "who failed first" is
     * causal, not a race of two exits. */
    int hold[4];
    for (int i = 0; i < 4; i++) {
        hold[i] = fcntl(i < 2 ? pfd[i] : ifd[i - 2], F_DUPFD_CLOEXEC, 3);
        if (hold[i] < 0) {
            int e = errno;
            for (int k = 0; k < i; k++)
                close(hold[k]);
            for (int k = 0; k < 2; k++) {
                close(pfd[k]);
                close(ifd[k]);
            }
            if (relayed) {
                wk_relay_join(&relay);
                free(relay.buf);
            }
            errno = e;
            goto no_pipes;
        }
    }
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
    side is = { inter_box, inter, &out->inter, 0, { hold[2], hold[3] } },
         ps = { prog_box, prog, &out->prog, 0, { hold[0], hold[1] } };
    pthread_t t;
    if (pthread_create(&t, NULL, run_side, &is) != 0) {
        for (int i = 0; i < 4; i++)
            close(hold[i]);
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
        if (relay.over_cap) {
            /* The relay cancelled the run at the cap: the limit is the program's. */
            out->prog.status = SBX_OUTPUT_LIMIT;
            out->prog.error[0] = 0;
            if (relay.over_ns < out->prog.end_ns)
                out->prog.end_ns = relay.over_ns;
        }
    }
    wk_pair_decide(out);
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
