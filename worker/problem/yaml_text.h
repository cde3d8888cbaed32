/* yaml_text.h -- inside the YAML reader (yaml.c reads the structure,
 * yaml_text.c the text: positions, errors, scalars). Not for use outside
 * the two; yaml.h is the reader's interface.
 *
 * The reader's state is one yr, owned by the wk_yaml_parse call that
 * made it; y->at is where reading stands, y->val the one scalar decoded
 * so far (reused, at most 1.5 times the document).
 */
#ifndef GRADEQ_WORKER_YAML_TEXT_H
#define GRADEQ_WORKER_YAML_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/problem/yaml.h"

typedef struct yr {
    const char *b;
    size_t n, at;
    char keys[WK_YAML_DEPTH + 2][WK_YAML_KEY_MAX + 1];
    const char *kp[WK_YAML_DEPTH + 2];
    size_t index[WK_YAML_DEPTH + 2];
    char *val;
    size_t vlen, vcap;
    wk_yaml_fn fn;
    void *ctx;
    char *err;
    size_t errlen;
    size_t line, line_at;        /* lines counted up to offset line_at */
} yr;

/* "line L, column C: why" for the byte at offset at, into y->err; -1. */
int wk_yt_fail_at(yr *y, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Bytes and lines. */
char wk_yt_at_c(const yr *y, size_t i);          /* 0 past the end */
bool wk_yt_blank(char c);                        /* space or tab */
bool wk_yt_eol(const yr *y, size_t i);           /* a line's content ends at i */
bool wk_yt_spaceish(const yr *y, size_t i);      /* a blank or the end of a line */
void wk_yt_skip_blanks(yr *y);
void wk_yt_next_row(yr *y);                      /* to the next line's start */
size_t wk_yt_line_start(const yr *y, size_t i);
size_t wk_yt_line_of(yr *y, size_t at);
int wk_yt_end_line(yr *y);                       /* only a comment may follow a value */

/* The scalar buffer, and the events handed to the callback (type, depth,
 * null, quoted; the scalar is y->val). */
int wk_yt_room(yr *y, size_t k);
int wk_yt_put(yr *y, const char *p, size_t k);
int wk_yt_emit(yr *y, int type, int d, bool null, bool quoted, size_t where);

/* Scalars. */
const char *wk_yt_refused_start(const yr *y, size_t i); /* &, *, !, %, ?: why */
int wk_yt_quoted(yr *y);                         /* into y->val */
size_t wk_yt_plain_end(const yr *y, bool flow);
bool wk_yt_null_text(const char *p, size_t n);
int wk_yt_plain(yr *y, int d, bool flow);        /* read and emitted */
int wk_yt_block_scalar(yr *y, int d, size_t parent);

#endif
