/* yaml.c -- a bounded reader of package YAML (yaml.h).
 *
 * Recursive descent over lines, at most WK_YAML_DEPTH levels deep (the C
 * stack is bounded with it). The block functions keep one invariant:
 * they start at their first entry's first byte (which may be mid-line:
 * "- key: v") and return at the start of the first line that is not
 * theirs, so each line is looked at a fixed number of times and the
 * whole is linear. Flow collections are read character by character,
 * newlines as blanks. Every scalar is decoded into one scratch buffer and
 * handed to the callback before the next is read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/common/text.h"
#include "worker/problem/yaml_text.h"

/* From a line start: past blank and comment lines to the next line with
 * content; 1 with *indent (y->at at that line's start), 0 at the end of
 * the document, -1 on a tab in indentation or a second document. */
static int next_line(yr *y, size_t *indent)
{
    while (y->at < y->n) {
        size_t s = y->at, i = s;
        while (i < y->n && y->b[i] == ' ')
            i++;
        size_t j = i;
        while (j < y->n && wk_yt_blank(y->b[j]))
            j++;
        if (wk_yt_eol(y, j) || y->b[j] == '#') {
            y->at = j;
            wk_yt_next_row(y);
            continue;
        }
        if (j != i)
            return wk_yt_fail_at(y, i, "a tab in indentation");
        if (i == s && (memcmp(y->b + s, "---", y->n - s >= 3 ? 3 : y->n - s) == 0 && y->n - s >= 3 &&
                       wk_yt_spaceish(y, s + 3)))
            return wk_yt_fail_at(y, s, "a second document (one is read)");
        if (i == s && y->n - s >= 3 && memcmp(y->b + s, "...", 3) == 0 && wk_yt_spaceish(y, s + 3)) {
            y->at = s + 3;
            wk_yt_next_row(y);
            size_t ignored;
            int rc = next_line(y, &ignored);
            return rc < 0 ? -1 : rc ? wk_yt_fail_at(y, y->at, "content after the document's end (...)") : 0;
        }
        *indent = i - s;
        y->at = s;
        return 1;
    }
    return 0;
}

static int depth_ok(yr *y, int d)
{
    return d > WK_YAML_DEPTH ? wk_yt_fail_at(y, y->at, "collections nested deeper than %d", WK_YAML_DEPTH) : 0;
}

/* Blanks, line breaks and comments inside a flow collection. */
static void skip_flow_space(yr *y)
{
    for (;;) {
        size_t s = y->at;
        while (y->at < y->n && (wk_yt_blank(y->b[y->at]) || y->b[y->at] == '\n' || y->b[y->at] == '\r'))
            y->at++;
        if (wk_yt_at_c(y, y->at) == '#' && (y->at > s || y->at == 0 || y->b[y->at - 1] == '\n'))
            wk_yt_next_row(y);
        else
            return;
    }
}

static int flow_node(yr *y, int d);

/* A key inside a flow mapping or a block one, quoted or plain, into
 * y->keys[d]. */
static int read_key(yr *y, int d, bool flow)
{
    size_t s = y->at;
    const char *why = wk_yt_refused_start(y, y->at);
    if (why)
        return wk_yt_fail_at(y, s, "%s", why);
    char c = wk_yt_at_c(y, y->at);
    if (c == '[' || c == '{')
        return wk_yt_fail_at(y, s, "a collection as a key: refused");
    if (c == '"' || c == '\'') {
        if (wk_yt_quoted(y) < 0)
            return -1;
    } else {
        size_t e = wk_yt_plain_end(y, flow);
        y->vlen = 0;
        if (wk_yt_put(y, y->b + s, e - s) < 0)
            return -1;
        y->at = e;
    }
    if (y->vlen > WK_YAML_KEY_MAX)
        return wk_yt_fail_at(y, s, "a key over %d bytes", WK_YAML_KEY_MAX);
    memcpy(y->keys[d], y->val, y->vlen);
    y->keys[d][y->vlen] = 0;
    if (strlen(y->keys[d]) != y->vlen)
        return wk_yt_fail_at(y, s, "a NUL character in a key");
    y->kp[d] = y->keys[d];
    return 0;
}

static int flow_seq(yr *y, int d)
{
    size_t s = y->at++;
    if (depth_ok(y, d + 1) < 0 || wk_yt_emit(y, WK_YAML_SEQ, d, false, false, s) < 0)
        return -1;
    for (size_t i = 0;; i++) {
        skip_flow_space(y);
        if (y->at >= y->n)
            return wk_yt_fail_at(y, s, "a [ not closed");
        if (wk_yt_at_c(y, y->at) == ']')
            break;
        y->kp[d + 1] = NULL;
        y->index[d + 1] = i;
        if (flow_node(y, d + 1) < 0)
            return -1;
        skip_flow_space(y);
        char c = wk_yt_at_c(y, y->at);
        if (y->at >= y->n)
            return wk_yt_fail_at(y, s, "a [ not closed");
        if (c == ',')
            y->at++;
        else if (c != ']')
            return wk_yt_fail_at(y, y->at, c == ':' ? "a mapping inside [ ] without { }: refused"
                                              : "',' or ']' was expected");
    }
    y->at++;
    return wk_yt_emit(y, WK_YAML_END, d, false, false, y->at);
}

static int flow_map(yr *y, int d)
{
    size_t s = y->at++;
    if (depth_ok(y, d + 1) < 0 || wk_yt_emit(y, WK_YAML_MAP, d, false, false, s) < 0)
        return -1;
    for (;;) {
        skip_flow_space(y);
        if (wk_yt_at_c(y, y->at) == '}')
            break;
        if (y->at >= y->n)
            return wk_yt_fail_at(y, s, "a { not closed");
        if (read_key(y, d + 1, true) < 0)
            return -1;
        skip_flow_space(y);
        char c = wk_yt_at_c(y, y->at);
        if (c == ':') {
            y->at++;
            skip_flow_space(y);
            c = wk_yt_at_c(y, y->at);
            if (c != ',' && c != '}') {
                if (flow_node(y, d + 1) < 0)
                    return -1;
                skip_flow_space(y);
                c = wk_yt_at_c(y, y->at);
            } else {
                y->vlen = 0;
                if (wk_yt_room(y, 0) < 0 || wk_yt_emit(y, WK_YAML_SCALAR, d + 1, true, false, y->at) < 0)
                    return -1;
            }
        } else {
            y->vlen = 0;
            if (wk_yt_room(y, 0) < 0 || wk_yt_emit(y, WK_YAML_SCALAR, d + 1, true, false, y->at) < 0)
                return -1;
        }
        if (y->at >= y->n)
            return wk_yt_fail_at(y, s, "a { not closed");
        if (c == ',')
            y->at++;
        else if (c != '}')
            return wk_yt_fail_at(y, y->at, "',' or '}' was expected");
    }
    y->at++;
    return wk_yt_emit(y, WK_YAML_END, d, false, false, y->at);
}

static int flow_node(yr *y, int d)
{
    const char *why = wk_yt_refused_start(y, y->at);
    if (why)
        return wk_yt_fail_at(y, y->at, "%s", why);
    char c = wk_yt_at_c(y, y->at);
    if (y->at >= y->n)
        return wk_yt_fail_at(y, y->at, "a collection not closed");
    if (c == '[')
        return flow_seq(y, d);
    if (c == '{')
        return flow_map(y, d);
    if (c == '"' || c == '\'') {
        size_t s = y->at;
        return wk_yt_quoted(y) < 0 ? -1 : wk_yt_emit(y, WK_YAML_SCALAR, d, false, true, s);
    }
    if (c == '|' || c == '>')
        return wk_yt_fail_at(y, y->at, "a block scalar inside [ ] or { }");
    return wk_yt_plain(y, d, true);
}

/* Whether the content at i is a sequence entry ("-" then a blank or the
 * line's end). */
static bool is_dash(const yr *y, size_t i)
{
    return wk_yt_at_c(y, i) == '-' && wk_yt_spaceish(y, i + 1);
}

/* Whether the content at i is a mapping key ("key:" then a blank or the
 * line's end; the key plain or quoted on this line). */
static bool is_key(const yr *y, size_t i)
{
    char c = wk_yt_at_c(y, i);
    if (c == '"' || c == '\'') {
        size_t k = i + 1;
        while (!wk_yt_eol(y, k) && y->b[k] != c)
            k += c == '"' && y->b[k] == '\\' ? 2 : 1;
        if (wk_yt_eol(y, k))
            return false;
        k++;
        while (!wk_yt_eol(y, k) && wk_yt_blank(y->b[k]))
            k++;
        return wk_yt_at_c(y, k) == ':' && wk_yt_spaceish(y, k + 1);
    }
    if (c == '[' || c == '{' || c == '#' || is_dash(y, i) || wk_yt_refused_start(y, i))
        return false;
    for (size_t k = i; !wk_yt_eol(y, k); k++) {
        if (y->b[k] == '#' && k > i && wk_yt_blank(y->b[k - 1]))
            return false;
        if (y->b[k] == ':' && wk_yt_spaceish(y, k + 1))
            return true;
    }
    return false;
}

static int block_seq(yr *y, int d, size_t n);
static int block_map(yr *y, int d, size_t n);

/* A value on the rest of this line (block context), then the line's end. */
static int inline_value(yr *y, int d, size_t parent)
{
    size_t s = y->at;
    const char *why = wk_yt_refused_start(y, s);
    if (why)
        return wk_yt_fail_at(y, s, "%s", why);
    char c = wk_yt_at_c(y, s);
    if (c == '|' || c == '>')
        return wk_yt_block_scalar(y, d, parent);
    if (c == '[' || c == '{' || c == '"' || c == '\'') {
        if (flow_node(y, d) < 0)
            return -1;
    } else if (is_dash(y, s)) {
        return wk_yt_fail_at(y, s, "a sequence entry after a key on its line: put it on the next line");
    } else if (wk_yt_plain(y, d, false) < 0) {
        return -1;
    } else if (wk_yt_at_c(y, y->at) == ':') {
        return wk_yt_fail_at(y, y->at, "a mapping inside a plain value: quote the value");
    }
    return wk_yt_end_line(y);
}

/* The value of a key or an entry whose own line ended: the block below it
 * (indented more than `parent`; a sequence may also sit at `parent` when
 * seq_same), else null. */
static int block_value(yr *y, int d, size_t parent, bool seq_same, bool top)
{
    size_t i;
    int rc = next_line(y, &i);
    if (rc < 0)
        return -1;
    size_t c = y->at + i;
    bool deeper = top || i > parent;
    if (rc > 0 && (deeper || (seq_same && i == parent && is_dash(y, c)))) {
        if (depth_ok(y, d) < 0)
            return -1;
        y->at = c;
        if (is_dash(y, c))
            return block_seq(y, d, i);
        if (is_key(y, c))
            return block_map(y, d, i);
        return inline_value(y, d, top ? 0 : parent);
    }
    y->vlen = 0;
    if (wk_yt_room(y, 0) < 0)
        return -1;
    return wk_yt_emit(y, WK_YAML_SCALAR, d, true, false, y->at);
}

/* After an entry: 1 when the next line holds another entry of the
 * collection at indentation n (y->at on it), 0 when the collection ends
 * (y->at at that line's start), -1 on bad indentation. */
static int next_entry(yr *y, size_t n, bool seq)
{
    size_t i;
    int rc = next_line(y, &i);
    if (rc <= 0)
        return rc;
    size_t c = y->at + i;
    if (i > n)
        return wk_yt_fail_at(y, c, "bad indentation (or a plain value over several lines: quote it)");
    if (i < n)
        return 0;
    if (seq != is_dash(y, c)) {
        if (seq)
            return 0; /* "key:\n- a\nnext:" -- the sequence was the key's value */
        return wk_yt_fail_at(y, c, "a sequence entry where a key was expected");
    }
    if (!seq && !is_key(y, c))
        return wk_yt_fail_at(y, c, "a key was expected (key: value)");
    y->at = c;
    return 1;
}

static int block_seq(yr *y, int d, size_t n)
{
    size_t s = y->at;
    if (wk_yt_emit(y, WK_YAML_SEQ, d, false, false, s) < 0)
        return -1;
    int more = 1;
    for (size_t idx = 0; more > 0; idx++) {
        if (depth_ok(y, d + 1) < 0)
            return -1;
        y->kp[d + 1] = NULL;
        y->index[d + 1] = idx;
        y->at++; /* the '-' */
        wk_yt_skip_blanks(y);
        size_t c = y->at, col = c - wk_yt_line_start(y, c);
        int rc;
        if (wk_yt_eol(y, c) || wk_yt_at_c(y, c) == '#') {
            wk_yt_next_row(y);
            rc = block_value(y, d + 1, n, false, false);
        } else if (is_dash(y, c)) {
            rc = block_seq(y, d + 1, col);
        } else if (is_key(y, c)) {
            rc = block_map(y, d + 1, col);
        } else {
            rc = inline_value(y, d + 1, n);
        }
        if (rc < 0 || (more = next_entry(y, n, true)) < 0)
            return -1;
    }
    return wk_yt_emit(y, WK_YAML_END, d, false, false, y->at);
}

static int block_map(yr *y, int d, size_t n)
{
    size_t s = y->at;
    if (wk_yt_emit(y, WK_YAML_MAP, d, false, false, s) < 0)
        return -1;
    int more = 1;
    while (more > 0) {
        if (depth_ok(y, d + 1) < 0 || read_key(y, d + 1, false) < 0)
            return -1;
        y->index[d + 1] = 0;
        wk_yt_skip_blanks(y);
        if (wk_yt_at_c(y, y->at) != ':')
            return wk_yt_fail_at(y, y->at, "':' was expected after the key");
        y->at++;
        wk_yt_skip_blanks(y);
        int rc;
        if (wk_yt_eol(y, y->at) || wk_yt_at_c(y, y->at) == '#') {
            wk_yt_next_row(y);
            rc = block_value(y, d + 1, n, true, false);
        } else {
            rc = inline_value(y, d + 1, n);
        }
        if (rc < 0 || (more = next_entry(y, n, false)) < 0)
            return -1;
    }
    return wk_yt_emit(y, WK_YAML_END, d, false, false, y->at);
}

int wk_yaml_parse(const char *buf, size_t len, wk_yaml_fn fn, void *ctx, char *err, size_t errlen)
{
    yr *y = calloc(1, sizeof *y);
    if (!y)
        return snprintf(err, errlen, "out of memory"), -1;
    y->b = buf;
    y->n = len;
    y->fn = fn;
    y->ctx = ctx;
    y->err = err;
    y->errlen = errlen;
    y->line = 1;
    size_t bad = wk_utf8_bad(buf, len);
    int rc = 0;
    if (len > WK_YAML_MAX)
        rc = wk_yt_fail_at(y, 0, "over %u bytes", WK_YAML_MAX);
    else if (bad < len)
        rc = buf[bad] ? wk_yt_fail_at(y, bad, "a byte (0x%02x) not of well-formed UTF-8", (unsigned char)buf[bad])
                      : wk_yt_fail_at(y, bad, "a NUL byte");
    if (rc == 0 && len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
        y->at = 3;
    /* Before the document: comments, blank lines, at most one "---". */
    while (rc == 0 && y->at < y->n) {
        size_t s = y->at;
        wk_yt_skip_blanks(y);
        if (wk_yt_eol(y, y->at) || wk_yt_at_c(y, y->at) == '#') {
            wk_yt_next_row(y);
            continue;
        }
        y->at = s;
        if (wk_yt_at_c(y, s) == '%')
            rc = wk_yt_fail_at(y, s, "a directive (%%YAML, %%TAG): refused");
        else if (y->n - s >= 3 && memcmp(buf + s, "---", 3) == 0 && wk_yt_spaceish(y, s + 3)) {
            y->at = s + 3;
            rc = wk_yt_end_line(y);
        }
        break;
    }
    if (rc == 0)
        rc = block_value(y, 0, 0, false, true);
    if (rc == 0) {
        size_t i;
        int more = next_line(y, &i);
        if (more < 0)
            rc = -1;
        else if (more > 0)
            rc = wk_yt_fail_at(y, y->at + i, "bad indentation (content after the document's top level)");
    }
    free(y->val);
    free(y);
    return rc;
}
