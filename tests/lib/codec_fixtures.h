/* codec_fixtures.h -- helpers shared by the codec tests (test_job_codec.c,
 * test_prescan.c, test_result_codec.c).
 *
 * tc_mp builds msgpack from a compact notation, so a malformed input is one
 * table row; tc_expect_job_error checks that q_job_decode refuses an input
 * with an exact error line and id; tc_write_file writes a fuzzer seed.
 * Everything but tc_write_file fails the running cmocka test on error, so
 * include <cmocka.h> (and its prerequisites) in the test first.
 */
#ifndef GRADEQ_TESTS_CODEC_FIXTURES_H
#define GRADEQ_TESTS_CODEC_FIXTURES_H

#include <stddef.h>

#include <msgpack.h>

#include "queue/prescan.h"

/* ---- tc_mp: msgpack from a compact notation --------------------------------
 *   {k v k v}  map       [v v]  array      'text'  str     b'text'  bin
 *   12  -5     integers  true false nil    bare words are str
 * Commas and colons are whitespace, so {id: 'j1', argv: ['a']} reads well.
 * Inside quotes: \xNN, \' and \\ escapes. The caller destroys the buffer. */
msgpack_sbuffer tc_mp(const char *notation);

/* One malformed input, for a table of cases. */
struct tc_bad {
    const char *in;  /* tc_mp notation */
    const char *err; /* the exact line */
    const char *id;  /* the id still reported, or NULL */
};

/* q_job_decode(buf, len, b) must fail with exactly `want`, report `id` (NULL:
 * none) and leave nothing allocated. label names the case in a failure
 * message. */
void tc_expect_job_error(const char *label, const void *buf, size_t len, const q_bounds *b,
                         const char *want, const char *id);

/* Two byte ranges are equal (either may be NULL when its length is 0). */
void tc_assert_bytes(const void *a, size_t alen, const void *b, size_t blen);

/* Writes sb to dir/name; 0, or -1 after printing why on stderr. */
int tc_write_file(const char *dir, const char *name, const msgpack_sbuffer *sb);

#endif
