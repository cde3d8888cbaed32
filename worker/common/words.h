/* words.h -- a command line split into words (words.c). */
#ifndef GRADEQ_WORKER_WORDS_H
#define GRADEQ_WORKER_WORDS_H

#include <stdbool.h>
#include <stddef.h>

/* Splits cmd on blanks (single and double quotes group) into argv (max
 * entries, NULL-terminated) with the words in buf. Returns the count, or
 * -1 with err filled. */
int wk_split_words(const char *cmd, char *buf, size_t bufsize, char **argv, size_t max, char *err, size_t errlen);
/* The same; with braces, a {placeholder} is one piece of its word whatever
 * blanks it holds ({{ is a brace). */
int wk_split_braced(const char *cmd, char *buf, size_t bufsize, char **argv, size_t max, bool braces, char *err,
                    size_t errlen);

#endif
