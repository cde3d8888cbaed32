/* prescan.h -- the gate between untrusted msgpack bytes and msgpack-c.
 *
 * msgpack-c trusts its input: an array or map header makes it allocate
 * count * sizeof(msgpack_object) before any element arrives (a 5-byte header
 * asks for ~100 GB), and nesting runs until it reports NOMEM. q_prescan walks
 * the raw bytes first, allocating nothing, and refuses anything msgpack-c
 * could not decode within q_bounds. q_unpack is prescan + unpack in one call,
 * so a codec cannot forget the prescan; it is the only way the codecs in
 * queue/ hand bytes to msgpack-c.
 *
 * Errors: -1 and one line in the caller's err buffer giving the reason
 * without a subject ("not msgpack (truncated at byte 17 of 40)"); callers
 * prefix what was being decoded ("job: ..."). Nothing here exits or prints.
 * Thread-safe: no state outside the arguments.
 */
#ifndef GRADEQ_QUEUE_PRESCAN_H
#define GRADEQ_QUEUE_PRESCAN_H

#include <stdbool.h>
#include <stddef.h>

#include <msgpack.h>

#include "queue/common.h"

/* msgpack-c's fixed parse stack (MSGPACK_EMBED_STACK_SIZE): deeper input
 * fails with NOMEM, so max_depth may not exceed it. */
#define Q_DEPTH_MAX 32

typedef struct q_bounds {
    size_t max_job_bytes; /* whole message */
    unsigned max_depth;   /* containers inside one another; the top-level map is 1 */
    size_t max_objects;   /* every value, key and container, the top level included */
    size_t max_argv;      /* per argv array (job and interactor) */
    size_t max_files;     /* per files map */
    size_t max_env;
} q_bounds;

/* 64 MiB, depth 16, 1,000,000 objects, 4096 argv, 4096 files, 1024 env. */
void q_bounds_default(q_bounds *b);

/* Checks that buf[0..len) is exactly one msgpack object within b: len at
 * most max_job_bytes; nesting at most max_depth; every str/bin/ext length and
 * every array/map count fits in the bytes that remain; at most max_objects
 * objects declared; no trailing bytes. Reads each byte once, allocates
 * nothing. Returns 0, or -1 with the reason in err (also for bounds whose
 * max_depth exceeds Q_DEPTH_MAX). */
int q_prescan(const void *buf, size_t len, const q_bounds *b, char *err, size_t errlen);

/* Best effort, for bytes q_prescan refused: looks for key `name` among the
 * entries of the top-level map of buf[0..len) that come before the first
 * object q_prescan would refuse. The walk applies q_prescan's checks with
 * the same bounds and stops at that object; a key counts once it is itself
 * well-formed, even if its value is not. Returns how many keys equal to
 * `name` (str or bin) were seen; *val and *vlen give the value of the first
 * one when that value is a whole str or bin, else *val is NULL. Returns 0
 * when the top-level value is not a map, when len exceeds max_job_bytes
 * and when b is invalid. One linear pass; allocates nothing. */
unsigned q_prescan_lookup(const void *buf, size_t len, const q_bounds *b, const char *name,
                          const char **val, size_t *vlen);

/* q_prescan, then msgpack_unpack_next into *out. Always initialises *out:
 * the caller calls msgpack_unpacked_destroy(out) whatever the result.
 * Strings and bins in out->data point into buf, which must outlive them. */
int q_unpack(const void *buf, size_t len, const q_bounds *b, msgpack_unpacked *out,
             char *err, size_t errlen);

/* Helpers for reading what q_unpack returns. */

/* true when o is a str or a bin (both are accepted wherever bytes or text are
 * expected); *p and *n then give its bytes, which borrow the input buffer. */
bool q_bytes(const msgpack_object *o, const char **p, size_t *n);

/* Points slots[i] at the value of key names[i] in m, NULL when absent; keys
 * that are not str/bin or not in names are skipped. n <= 32. Returns the set
 * of names seen more than once (bit i for names[i]); slots then hold the
 * first occurrence. */
unsigned q_map_fields(const msgpack_object_map *m, const char *const *names, size_t n,
                      const msgpack_object **slots);

/* Turns each nil among slots[0..n) into NULL: what Python's None and
 * JavaScript's null become is an absent field. */
void q_nil_absent(const msgpack_object **slots, size_t n);

/* A non-negative integer, or a float with a whole value (Python's
 * 2.5 * 1000) that fits in 64 bits, into *out. Returns 0, or -1 for
 * anything else (a fraction, a negative number, not a number). */
int q_whole_number(const msgpack_object *o, uint64_t *out);

#endif
