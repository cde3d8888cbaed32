/* yaml.h -- a bounded reader of the YAML that problem packages are
 * written in (problem.yaml, init.yml), of our own (yaml.c): events to a
 * callback, no tree, nothing constructed.
 *
 * What it reads: one document (an optional leading "---", an optional
 * "..." end); block mappings and sequences (a sequence may sit at its
 * key's indentation, an entry may open a compact mapping: "- in: 1.in");
 * flow sequences and mappings ([a, b], {in: 1.in, points: 5}) over
 * several lines; plain, single- and double-quoted scalars (escapes,
 * folding) and block scalars (| and >, chomping and an indentation
 * indicator); comments. Every scalar is a string: no tag, no type is
 * applied (a reader asks for the numbers it wants, numbers.h).
 *
 * What it refuses, with the line and column: tags (!, !!python/...),
 * anchors and aliases (& and *: no node is ever shared or expanded),
 * complex keys (?), directives (%), a second document, tabs in
 * indentation, bad indentation, a plain scalar continued on the next
 * line (quote it), a NUL (also as an escape) or a byte not of well-formed
 * UTF-8, and past the bounds: WK_YAML_MAX bytes, WK_YAML_DEPTH nested
 * collections, WK_YAML_KEY_MAX bytes of one key. Duplicate keys are the
 * reader's to refuse (it knows the keys it reads).
 *
 * Memory: the document is not copied; one scalar is decoded at a time
 * into a buffer of at most 1.5 times the document (an escape like \L
 * decodes to 3 bytes from 2), and the keys of the open collections sit
 * in a fixed stack: at most 1.5 MiB + 64 KiB per MiB of input. Time: one pass, linear in the input.
 */
#ifndef GRADEQ_WORKER_YAML_H
#define GRADEQ_WORKER_YAML_H

#include <stdbool.h>
#include <stddef.h>

#define WK_YAML_MAX (4u << 20)
#define WK_YAML_DEPTH 64
#define WK_YAML_KEY_MAX 256

enum { WK_YAML_MAP, WK_YAML_SEQ, WK_YAML_END, WK_YAML_SCALAR };

typedef struct wk_yaml_ev {
    int type;               /* a mapping or sequence opens, the last open
                             * one ENDs, or a scalar */
    int depth;              /* the document's node is at 0; a collection's
                             * entries one deeper (END: the collection's) */
    const char *key;        /* in a mapping: this node's key, else (and
                             * for END) NULL */
    size_t index;           /* in a sequence: this node's position */
    const char *const *keys; /* keys[1..depth]: the key of each enclosing
                             * level (NULL where it is a sequence entry) */
    const char *value;      /* SCALAR: decoded, NUL-terminated (NUL is
                             * refused inside) */
    size_t len;
    bool null;              /* SCALAR: nothing, ~ or null (unquoted) */
    bool quoted;            /* SCALAR: quoted or a block scalar */
    size_t line;            /* from 1 */
} wk_yaml_ev;

/* Returns 0 to go on, -1 to stop with err filled. ev lives until the
 * callback returns. */
typedef int (*wk_yaml_fn)(void *ctx, const wk_yaml_ev *ev, char *err, size_t errlen);

/* Reads buf[0..len). Returns 0, or -1 with err: "line L, column C: why"
 * (or fn's). */
int wk_yaml_parse(const char *buf, size_t len, wk_yaml_fn fn, void *ctx, char *err, size_t errlen);

#endif
