/* expr.h -- the placeholders of a language preset: `{memory_mb}`,
 * `{max(memory_mb - 64, memory_mb / 2)}` ... in its commands and
 * environment, worked out from each run's own limits, so that one preset
 * serves every limit a job asks for.
 *
 * An expression is integers, the names below, + - * / (integer division),
 * parentheses, min(a, b) and max(a, b). Arithmetic is on signed 64 bits and
 * saturates instead of overflowing; a division by zero is an error. A
 * placeholder's value is never below 1: a runtime flag derived from a small
 * limit (-Xmx, --max-old-space-size) is never 0 or negative.
 */
#ifndef GRADEQ_WORKER_LANG_EXPR_H
#define GRADEQ_WORKER_LANG_EXPR_H

#include <stddef.h>
#include <stdint.h>

/* The values a placeholder may name, from one run's limits. */
enum {
    WK_V_MEMORY_MB, WK_V_MEMORY_KB, WK_V_MEMORY_BYTES, /* the run's memory limit */
    WK_V_HEAP_MB, WK_V_HEAP_KB, WK_V_HEAP_BYTES,       /* the preset's heap_mb */
    WK_V_STACK_MB, WK_V_STACK_KB,                      /* the stack the sandbox gives */
    WK_V_CPU_MS, WK_V_WALL_MS, WK_V_PROCESSES, WK_V_OPEN_FILES,
    WK_V_COUNT
};
extern const char *const wk_expr_names[WK_V_COUNT];

/* Evaluates the expression s[0..len) with vars (WK_V_COUNT values).
 * Returns 0 with *out, or -1 with err saying why (a syntax error, an
 * unknown name, a division by zero). */
int wk_expr_eval(const char *s, size_t len, const int64_t *vars, int64_t *out, char *err, size_t errlen);

/* Copies in to out with each {EXPR} replaced by its value (at least 1);
 * "{{" and "}}" are literal braces. Returns the length written (out always
 * terminated), or -1 with err filled (a bad placeholder, an unbalanced
 * brace, no room). */
int wk_expand(const char *in, const int64_t *vars, char *out, size_t outlen, char *err, size_t errlen);

#endif
