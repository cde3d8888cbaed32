/* codec_util.h -- internal to queue/: helpers shared by the job codec
 * (job_decode.c, job_files.c, job_encode.c) and the result codec
 * (result_codec.c).
 *
 * Encoding: a q_enc wraps a msgpack packer with the caller's err buffer.
 * msgpack-c reports an allocation failure as a negative return and casts
 * every length and count to 32 bits without a check; the q_enc_ functions
 * turn both into -1 with one line in err ("job: out of memory"), so the
 * codecs read as a chain of `< 0 ? -1`. The caller resets the buffer on
 * failure.
 *
 * Decoding: q_quote is the only way bytes from a message reach an error
 * line (escaped and cut short), and q_dup_bytes makes the NUL-terminated
 * copies a decoded job owns.
 */
#ifndef GRADEQ_QUEUE_CODEC_UTIL_H
#define GRADEQ_QUEUE_CODEC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

struct q_refs;

typedef struct q_enc {
    msgpack_packer pk;
    const char *what; /* "job" or "result": starts the messages below */
    char *err;
    size_t errlen;
    struct q_refs *refs; /* NULL, or where large bin bodies are referenced */
} q_enc;

/* Appends to `out`. `what` must outlive e. */
void q_enc_init(q_enc *e, msgpack_sbuffer *out, const char *what, char *err, size_t errlen);

/* rc is what a msgpack_pack_ call returned: 0, or -1 with
 * "WHAT: out of memory". */
int q_enc_packed(q_enc *e, int rc);

/* 0 when msgpack can hold n as a length or count, else -1 with
 * "WHAT: N items or bytes exceed msgpack's 32 bits". */
int q_enc_fits(q_enc *e, size_t n);

/* Each packs one value, checking its length or count with q_enc_fits. */
int q_enc_map(q_enc *e, size_t n);
int q_enc_array(q_enc *e, size_t n);
int q_enc_str(q_enc *e, const void *p, size_t n);
int q_enc_cstr(q_enc *e, const char *s);
int q_enc_bin(q_enc *e, const void *p, size_t n);

/* A map entry: the key (a str), then the value. */
int q_enc_uint(q_enc *e, const char *key, uint64_t v);
int q_enc_bool(q_enc *e, const char *key, bool v);
/* An array of the n NUL-terminated strings v[0..n). */
int q_enc_strings(q_enc *e, const char *key, const char *const *v, size_t n);

/* Message bytes shown in an error line, at most this many: the longest job
 * line, two quoted paths under "interactor.files", then fits Q_ERR_LEN. */
#define Q_QUOTE_SHOWN 24
#define Q_QUOTE_LEN (2 + Q_QUOTE_SHOWN * 4 + 3 + 1)

/* Writes p[0..n) into out as a double-quoted string: printable ASCII as
 * is, '"' and '\\' escaped, other bytes as \xNN, cut after Q_QUOTE_SHOWN
 * bytes with "...". Returns out. */
const char *q_quote(char out[Q_QUOTE_LEN], const char *p, size_t n);

/* A NUL-terminated malloc'ed copy of p[0..n), or NULL when out of memory. */
char *q_dup_bytes(const char *p, size_t n);

/* q_unpack of a result (either kind) under the default bounds with the
 * result's size cap; the message starts "result: ". Initialises *out
 * whatever it returns, as q_unpack does. */
int q_unpack_result(const void *buf, size_t len, msgpack_unpacked *out, char *err, size_t errlen);

#endif
