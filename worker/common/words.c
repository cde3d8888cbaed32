/* words.c -- a command line split into words, as the operator and the
 * problem material write them (a languages file, --checker 'PROG ARGS', a
 * Polygon package's commands): no shell, no expansion, only quotes.
 */
#include <stdio.h>
#include <string.h>

#include "worker/common/words.h"

int wk_split_braced(const char *cmd, char *buf, size_t bufsize, char **argv, size_t max, bool braces, char *err,
                 size_t errlen)
{
    if (strlen(cmd) >= bufsize)
        return snprintf(err, errlen, "command too long"), -1;
    char *out = buf;
    size_t n = 0;
    for (const char *p = cmd; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        if (n + 1 >= max)
            return snprintf(err, errlen, "more than %zu words", max - 1), -1;
        argv[n++] = out;
        char quote = 0;
        bool brace = false;
        for (; *p && (quote || brace || (*p != ' ' && *p != '\t')); p++) {
            if (braces && !quote && !brace && p[0] == '{' && p[1] == '{') {
                *out++ = *p++;
                *out++ = *p;
            } else if (braces && !quote && (*p == '{' || (brace && *p == '}'))) {
                brace = *p == '{';
                *out++ = *p;
            } else if (!quote && !brace && (*p == '\'' || *p == '"')) {
                quote = *p;
            } else if (quote && *p == quote) {
                quote = 0;
            } else {
                *out++ = *p;
            }
        }
        if (quote || brace)
            return snprintf(err, errlen, quote ? "unbalanced quote" : "a '{' is not closed"), -1;
        *out++ = 0;
    }
    argv[n] = NULL;
    if (!n)
        return snprintf(err, errlen, "empty command"), -1;
    return (int)n;
}

int wk_split_words(const char *cmd, char *buf, size_t bufsize, char **argv, size_t max, char *err, size_t errlen)
{
    return wk_split_braced(cmd, buf, bufsize, argv, max, false, err, errlen);
}
