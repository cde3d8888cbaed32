/* xml.h -- a bounded XML reader for package files (problem.xml), of our
 * own (xml.c): events to a callback, no tree.
 *
 * What it reads: UTF-8 (a BOM allowed; an encoding other than UTF-8
 * declared is refused), elements, attributes, character data, CDATA,
 * comments and processing instructions (skipped), the five predefined
 * entities and character references. What it refuses, with the line and
 * column: any DOCTYPE or other <!...> declaration (no DTD is ever read, so
 * no external entity, no entity expansion), any other entity, a NUL or a
 * byte not of well-formed UTF-8, a tag not closed or closed by another
 * name, a second root, text outside the root, a duplicate attribute, and
 * past the bounds: WK_XML_MAX bytes, WK_XML_DEPTH open elements,
 * WK_XML_ATTRS attributes of one element, WK_XML_NAME_MAX bytes of one
 * name.
 *
 * Memory: the document is not copied; decoded attribute values and text
 * take at most the document's bytes again, the names of open elements
 * WK_XML_DEPTH * WK_XML_NAME_MAX: at most 1 MiB + 64 KiB per MiB of
 * input. Time: one pass, linear in the input.
 */
#ifndef GRADEQ_WORKER_XML_H
#define GRADEQ_WORKER_XML_H

#include <stddef.h>

#define WK_XML_MAX (16u << 20)
#define WK_XML_DEPTH 64
#define WK_XML_ATTRS 64
#define WK_XML_NAME_MAX 256

enum { WK_XML_START, WK_XML_END };

typedef struct wk_xml_attr {
    const char *name;  /* NUL-terminated */
    const char *value; /* decoded, NUL-terminated (a value holding a NUL
                        * character reference is refused) */
} wk_xml_attr;

typedef struct wk_xml_ev {
    int type;                 /* WK_XML_START or WK_XML_END */
    const char *name;         /* this element's */
    const char *const *path;  /* the open elements' names, path[depth - 1]
                               * this one's */
    int depth;                /* 1 for the root */
    const wk_xml_attr *attrs; /* START only */
    size_t nattrs;
    const char *text;         /* END only: the element's own character data,
                               * decoded, when it had no child element, else
                               * ""; NUL-terminated */
    size_t text_len;
    size_t line;              /* of the tag, from 1 */
} wk_xml_ev;

/* Returns 0 to go on, -1 to stop with err filled. Everything in ev lives
 * until the callback returns. */
typedef int (*wk_xml_fn)(void *ctx, const wk_xml_ev *ev, char *err, size_t errlen);

/* Reads buf[0..len) to its end, calling fn for each element's start and
 * end. Returns 0, or -1 with err: "line L, column C: why" (or fn's). */
int wk_xml_parse(const char *buf, size_t len, wk_xml_fn fn, void *ctx, char *err, size_t errlen);

/* The value of attribute `name` of a START event, or NULL. */
const char *wk_xml_attr_get(const wk_xml_ev *ev, const char *name);

#endif
