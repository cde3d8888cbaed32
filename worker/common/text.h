/* text.h -- bytes a program or a job chose, made safe to show. */
#ifndef GRADEQ_WORKER_TEXT_H
#define GRADEQ_WORKER_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

void wk_base64(FILE *f, const void *data, size_t len);
/* Any bytes in, a valid JSON string out (what is not well-formed UTF-8
 * becomes U+FFFD). */
void wk_json_string(FILE *f, const char *s);
/* The length of the character p[0..n) starts with (n > 0) when it is one a
 * terminal shows as text: printable ASCII, or well-formed UTF-8 that is not
 * a C1 control; else 0. */
size_t wk_text_char(const char *p, size_t n);
/* The offset of the first byte of p[0..n) that is a NUL or not part of
 * well-formed UTF-8 (a text file of problem material is refused there),
 * or n when there is none. */
size_t wk_utf8_bad(const char *p, size_t n);
/* vsnprintf, then every byte outside printable ASCII (what material may
 * have slipped into the message) as \xNN: a message about untrusted
 * material is one line a terminal shows as text. */
void wk_vformat_safe(char *out, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* p[0..n) as a terminal may show it: each wk_text_char character as it
 * is (with lines, '\n' and '\t' too: a program's output keeps its lines),
 * every other byte as \xNN, so nothing can move the cursor, retitle the
 * window or hide what follows. */
void wk_text_write(FILE *f, const void *p, size_t n, bool lines);
/* The same for one string into out (NUL-terminated, cut before a
 * character that does not fit); returns its length. */
size_t wk_text_escape(char *out, size_t size, const char *s);
/* A program's output onto f: its bytes as they are unless f is a terminal,
 * then as wk_text_write shows them with lines (`--json` and a redirection
 * keep every byte). */
void wk_text_output(FILE *f, const void *p, size_t n);

#endif
