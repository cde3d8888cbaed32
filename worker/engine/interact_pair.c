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
 * SIGPIPE, exited non-zero), by testlib's table (judge.h): exit 1, 2 or 8
 * WRONG_ANSWER, 7 PARTIAL (its points), anything else (3, a crash, a limit
 * of its own) INTERACTOR_ERROR, never blamed on the program. Otherwise the
 * program's own failures (limits, crashes, a non-zero exit), except a
 * SIGPIPE after the interactor had finished: writing to a judge that
 * already decided is not a crash. A deadlock (both at their wall limit, or
 * the program at its own) is WALL_TIME_LIMIT, saying who was blocked
 * reading. Then the interactor's verdict, with the mirror of the SIGPIPE
 * rule: an interactor that died writing to a program that had already
 * exited (SIGPIPE, or the shell's exit 141 for it) was left talking to no
 * one by the program, whose failure it is (WRONG_ANSWER), not the
 * judge's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "queue/job.h"
#include "worker/engine/interact.h"
#include "worker/engine/judge.h"
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

/* An interactor that failed its own way: "interactor: STATUS (exit N):
 * first line", so that a crash is told from a message. */
static void interactor_failed(wk_pair *p)
{
    const sbx_result *i = &p->inter;
    char line[WK_CHECK_MSG_LEN], how[32] = "";
    wk_first_line(line, i->stderr_buf, i->stderr_len);
    if (i->status == SBX_RUNTIME_ERROR)
        snprintf(how, sizeof how, " (exit %d)", i->exit_code);
    else if (i->status == SBX_SIGNALED)
        snprintf(how, sizeof how, " (signal %d)", i->signal);
    const char *why = i->error[0] ? i->error : line;
    snprintf(p->message, sizeof p->message, "interactor: %s%s%s%s", sbx_status_name(i->status), how,
             why[0] ? ": " : "", why);
}

/* The interactor's own verdict, its failures never blamed on the program. */
static void interactor_verdict(wk_pair *p)
{
    const sbx_result *i = &p->inter;
    if (i->status == SBX_WALL_TIME_LIMIT && i->waiting_for_input) {
        p->status = "WALL_TIME_LIMIT";
        waiting_message(p);
        return;
    }
    switch (wk_testlib_verdict(i, &p->points)) {
    case WK_JUDGE_ACCEPTED:
        p->status = "OK";
        return;
    case WK_JUDGE_REJECTED:
        p->status = "WRONG_ANSWER";
        break;
    case WK_JUDGE_POINTS:
        p->status = "PARTIAL";
        break;
    case WK_JUDGE_FAILED:
        p->status = "INTERACTOR_ERROR";
        if (i->status == SBX_RUNTIME_ERROR && i->exit_code == 3)
            break; /* testlib's FAIL: its own line says why */
        interactor_failed(p);
        return;
    }
    wk_first_line(p->message, i->stderr_buf, i->stderr_len);
    if (!p->message[0])
        snprintf(p->message, sizeof p->message, "interactor: exit %d", i->exit_code);
}

/* The interactor died writing to a program that had exited. */
static bool broken_pipe(const sbx_result *i)
{
    return (i->status == SBX_SIGNALED && i->signal == SIGPIPE) ||
           (i->status == SBX_RUNTIME_ERROR && i->exit_code == 128 + SIGPIPE);
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
    } else if (!inter_first && broken_pipe(i)) {
        p->status = "WRONG_ANSWER";
        snprintf(p->message, sizeof p->message, "the program exited while the interactor was still writing to it");
    } else {
        interactor_verdict(p);
    }
}

/* A job's interactor argv is checked against Q_EXEC_BYTES_MAX when it is
 * decoded (with room counted for the default environment): the names
 * appended here fit in what the sandbox takes. */
_Static_assert(Q_EXEC_BYTES_MAX + sizeof "input" + sizeof "tout" + sizeof "answer" <= SBX_EXEC_BYTES_MAX,
               "the interactor's appended arguments fit the sandbox's exec request");

/* inter's argv with input, tout (and answer) appended, in *argv (freed by
 * the caller). -1: out of memory. */
static int judge_argv(const sbx_spec *inter, bool answer, const char ***argv)
{
    size_t n = 0;
    while (inter->argv[n])
        n++;
    const char **v = calloc(n + 4, sizeof *v);
    if (!v)
        return -1;
    memcpy(v, inter->argv, n * sizeof *v);
    v[n] = "input";
    v[n + 1] = "tout";
    v[n + 2] = answer ? "answer" : NULL;
    *argv = v;
    return 0;
}

int wk_run_pair(sbx_box *prog_box, sbx_spec *prog, sbx_box *inter_box, sbx_spec *inter, const wk_pair_opts *o,
                wk_pair *out)
{
    static const wk_pair_opts none = { 0 };
    memset(out, 0, sizeof *out);
    o = o ? o : &none;
    size_t transcript_bytes = o->transcript_bytes;
    int pfd[2], ifd[2]; /* [0] stdin, [1] stdout of each side */
    wk_relay relay;
    bool relayed = transcript_bytes > 0;
    const char *const *own_argv = inter->argv;
    const char **argv = NULL;
    if (judge_argv(inter, o->answer, &argv) < 0) {
        errno = ENOMEM;
        goto no_pipes;
    }
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
    inter->argv = argv;
    inter->collect = o->tout;
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
    inter->argv = own_argv;
    inter->collect = NULL;
    free(argv);
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
    free(argv);
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
