/* judge.c -- a checker program run by its convention, and testlib's exit
 * codes, which interactors follow too (see judge.h).
 *
 * The judge is the problem author's program, but its output is read as
 * untrusted all the same: a points line is parsed from a bounded copy of
 * its first line, a fraction from stdout's, Kattis's files are collected
 * under a bound, and none of it reaches a message unescaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/engine/judge.h"

/* The first line of p[0..n): its length. */
static size_t line_len(const char *p, size_t n)
{
    const char *nl = p ? memchr(p, '\n', n) : NULL;
    return nl ? (size_t)(nl - p) : n;
}

int wk_testlib_points(const char *line, size_t n, q_points *out)
{
    n = line_len(line, n);
    if (n < 7 || memcmp(line, "points ", 7) != 0)
        return -1;
    const char *p = line + 7, *end = line + n;
    if ((size_t)(end - p) >= 12 && memcmp(p, "points_info=", 12) == 0)
        p += 12;
    const char *tok = p;
    while (p < end && p[0] != ' ' && p[0] != '\r')
        p++;
    return q_points_parse(tok, (size_t)(p - tok), true, out);
}

wk_judge_verdict wk_testlib_verdict(const sbx_result *r, q_points *points)
{
    if (r->status == SBX_OK)
        return WK_JUDGE_ACCEPTED;
    if (r->status != SBX_RUNTIME_ERROR)
        return WK_JUDGE_FAILED;
    switch (r->exit_code) {
    case 1: /* wrong answer */
    case 2: /* presentation error, and unexpected EOF by default */
    case 8: /* unexpected EOF with -DENABLE_UNEXPECTED_EOF */
        return WK_JUDGE_REJECTED;
    case 7:
        return wk_testlib_points(r->stderr_buf, r->stderr_len, points) == 0 ? WK_JUDGE_POINTS : WK_JUDGE_FAILED;
    default:
        return WK_JUDGE_FAILED;
    }
}

/* Points given, out of max: ACCEPTED when all, else PARTIAL. */
static int scored(q_points got, q_points max, q_points *points)
{
    *points = got < max ? got : max;
    return got >= max ? WK_CHECK_ACCEPTED : WK_CHECK_PARTIAL;
}

static int testlib(const sbx_result *r, q_points max, q_points *points, char msg[WK_CHECK_MSG_LEN])
{
    q_points got = 0;
    wk_judge_verdict v = wk_testlib_verdict(r, &got);
    if (v == WK_JUDGE_ACCEPTED)
        return WK_CHECK_ACCEPTED;
    if (v == WK_JUDGE_REJECTED)
        return WK_CHECK_REJECTED;
    if (v == WK_JUDGE_POINTS)
        return scored(got, max, points);
    if (r->status == SBX_RUNTIME_ERROR && r->exit_code == 7 && !msg[0])
        snprintf(msg, WK_CHECK_MSG_LEN, "checker exit 7 (points) without \"points X\" on stderr, X a number of "
                                        "0..1000000000");
    return WK_CHECK_FAILED;
}

/* CMS: exit 0 and a fraction in [0, 1]; its messages may be translation
 * keys, shown as CMS shows them. */
static int cms(const sbx_result *r, q_points max, q_points *points, char msg[WK_CHECK_MSG_LEN])
{
    static const char *const keys[][2] = { { "translate:success", "Output is correct" },
                                           { "translate:wrong", "Output isn't correct" },
                                           { "translate:partial", "Output is partially correct" } };
    for (size_t k = 0; k < 3; k++)
        if (strcmp(msg, keys[k][0]) == 0)
            snprintf(msg, WK_CHECK_MSG_LEN, "%s", keys[k][1]);
    if (r->status != SBX_OK)
        return WK_CHECK_FAILED;
    const char *p = r->stdout_buf;
    size_t n = line_len(p, r->stdout_len);
    while (n && (p[0] == ' ' || p[0] == '\t'))
        p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    q_points f;
    if (q_points_parse(p, n, true, &f) < 0 || f > Q_POINTS_ONE) {
        snprintf(msg, WK_CHECK_MSG_LEN, "checker: its outcome is not a number in [0, 1] on its first line");
        return WK_CHECK_FAILED;
    }
    if (f == 0)
        return WK_CHECK_REJECTED;
    return scored(q_points_muldiv(max, f, Q_POINTS_ONE), max, points);
}

/* The file feedback/NAME of what the validator left, or NULL. */
static const sbx_file *feedback(const sbx_collect *c, const char *name)
{
    for (size_t i = 0; i < c->nfiles; i++)
        if (strncmp(c->files[i].name, "feedback/", 9) == 0 && strcmp(c->files[i].name + 9, name) == 0)
            return &c->files[i];
    return NULL;
}

/* Kattis: 42 accepted (score.txt, when there, the points), 43 wrong. */
static int kattis(const sbx_result *r, const sbx_collect *c, q_points max, q_points *points,
                  char msg[WK_CHECK_MSG_LEN])
{
    const sbx_file *m = feedback(c, "judgemessage.txt"), *sc = feedback(c, "score.txt");
    if (m && m->len)
        wk_first_line(msg, m->data, m->len);
    if (r->status != SBX_RUNTIME_ERROR || (r->exit_code != 42 && r->exit_code != 43))
        return WK_CHECK_FAILED;
    if (r->exit_code == 43)
        return WK_CHECK_REJECTED;
    q_points got;
    if (!sc)
        return WK_CHECK_ACCEPTED;
    size_t n = line_len(sc->data, sc->len);
    while (n && (((const char *)sc->data)[n - 1] == ' ' || ((const char *)sc->data)[n - 1] == '\r'))
        n--;
    if (q_points_parse(sc->data, n, true, &got) < 0) {
        snprintf(msg, WK_CHECK_MSG_LEN, "validator: feedback_dir/score.txt is not a number");
        return WK_CHECK_FAILED;
    }
    return scored(got, max, points);
}

int wk_check_program(sbx_box *box, const sbx_spec *prog, q_check_convention conv, const wk_check_io *io, q_points max,
                     q_points *points, char msg[WK_CHECK_MSG_LEN])
{
    sbx_spec s = *prog;
    sbx_file *f = (sbx_file *)s.files; /* the caller's array, three free slots at its end */
    sbx_collect fb = { .max_files = 16, .max_bytes = 1u << 20, .max_depth = 1, .only = "feedback" };
    f[s.nfiles++] = (sbx_file){ "input", io->input, io->inlen, false };
    f[s.nfiles++] = (sbx_file){ "answer", io->answer, io->anslen, false };
    if (conv == Q_CONV_KATTIS) {
        /* The output on stdin, an empty message file making feedback/. */
        f[s.nfiles++] = (sbx_file){ "feedback/judgemessage.txt", "", 0, false };
        s.stdin_data = io->output;
        s.stdin_len = io->outlen;
        s.collect = &fb;
    } else {
        f[s.nfiles++] = (sbx_file){ "output", io->output, io->outlen, false };
    }
    sbx_result r;
    sbx_run(box, &s, &r);
    int v;
    *points = 0;
    msg[0] = 0;
    if (r.status == SBX_SANDBOX_ERROR) {
        snprintf(msg, WK_CHECK_MSG_LEN, "checker's sandbox: %s", r.error);
        v = -1;
    } else {
        wk_first_line(msg, r.stderr_buf, r.stderr_len);
        v = conv == Q_CONV_CMS      ? cms(&r, max, points, msg)
            : conv == Q_CONV_KATTIS ? kattis(&r, &fb, max, points, msg)
                                    : testlib(&r, max, points, msg);
        if (v == WK_CHECK_FAILED && !msg[0])
            snprintf(msg, WK_CHECK_MSG_LEN, "checker ended %s (exit %d, signal %d)", sbx_status_name(r.status),
                     r.exit_code, r.signal);
    }
    sbx_collect_free(&fb);
    sbx_result_free(&r);
    return v;
}
