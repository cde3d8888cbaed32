/* result.h -- the result of a job: encoded by the worker, decoded by clients
 * and tests.
 *
 * Wire format: one msgpack map with string keys.
 *   id, status, worker   str
 *   exit_code, signal    int, or nil when absent
 *   stdout, stderr       bin (any bytes; capped by the worker, not here)
 *   stdout_truncated, stderr_truncated   bool
 *   cpu_us, wall_us, memory_bytes, attempt   non-negative integer
 *   error                str, or nil
 *   isolation            array of str
 *   interactor           only when present: map of status, exit_code,
 *                        signal, stderr, cpu_us, wall_us, memory_bytes
 *   transcript           only when present: bin
 * The decoder requires id, status and worker (and interactor.status), as
 * the encoder does; it treats other missing keys as zero, false, nil or
 * empty, ignores unknown keys and refuses a key given twice.
 *
 * Ownership: q_result_encode only reads *r; the worker fills it with
 * pointers to its own buffers. q_result_decode copies everything into one
 * block owned by the result (priv), so the input may be freed at once;
 * q_result_free releases it. q_result_free on a result built by hand frees
 * nothing, since priv is NULL there.
 */
#ifndef GRADEQ_QUEUE_RESULT_H
#define GRADEQ_QUEUE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>
#include <sys/uio.h>

/* The largest result q_result_decode reads (and the gradeq commands with
 * it), the tightest bound of every client: a worker never publishes more
 * (its --max-result-bytes is at most this). */
#define Q_RESULT_BYTES_MAX (64u << 20)

typedef struct q_proc_result {
    const char *status;
    bool has_exit_code;
    int64_t exit_code;
    bool has_signal;
    int64_t signal;
    const void *stderr_buf;
    size_t stderr_len;
    uint64_t cpu_us, wall_us, memory_bytes;
} q_proc_result;

typedef struct q_result {
    const char *id;
    const char *status;
    bool has_exit_code;
    int64_t exit_code;
    bool has_signal;
    int64_t signal;
    const void *stdout_buf;
    size_t stdout_len;
    bool stdout_truncated;
    const void *stderr_buf;
    size_t stderr_len;
    bool stderr_truncated;
    uint64_t cpu_us, wall_us, memory_bytes;
    const char *worker;
    uint64_t attempt;
    const char *error;               /* NULL: nil */
    const char *const *isolation;
    size_t nisolation;
    bool has_interactor;
    q_proc_result interactor;
    const void *transcript;          /* NULL: absent */
    size_t transcript_len;
    const struct q_grade_result *grade; /* grading jobs (grade.h); NULL otherwise.
                                     * Encoded only; q_grade_result_decode reads it */
    void *priv;                      /* storage of a decoded result; NULL otherwise */
} q_result;

/* Appends the msgpack of *r to out. id, status and worker must be set (and
 * interactor.status when has_interactor); a buffer may be NULL only when its
 * length is 0. Returns 0, or -1 with one line in err and out as it was. */
int q_result_encode(const q_result *r, msgpack_sbuffer *out, char *err, size_t errlen);

/* Large bin bodies (stdout, stderr, a transcript) left where they are: each
 * is "len bytes at p, to be inserted at offset `at` of the encoded buffer".
 * Smaller ones are copied as usual. */
#define Q_REFS_MAX 8
#define Q_REF_MIN 4096
typedef struct q_refs {
    int n;
    struct {
        size_t at;
        const void *p;
        size_t len;
    } ref[Q_REFS_MAX];
} q_refs;

/* q_result_encode without copying large bodies (see q_refs): r's buffers
 * must outlive out. refs is reset first. */
int q_result_encode_refs(const q_result *r, msgpack_sbuffer *out, q_refs *refs, char *err, size_t errlen);
/* The whole encoding as pieces in order, into iov (2 * refs->n + 1 at
 * most); returns their count. */
int q_refs_iov(const msgpack_sbuffer *out, const q_refs *refs, struct iovec *iov);

/* Decodes buf[0..len) (checked by q_prescan with q_bounds_default, the
 * whole at most Q_RESULT_BYTES_MAX) into
 * *out, copying every string (NUL-terminated) and buffer. Returns 0, or -1
 * with one line in err naming the field; *out may be passed to
 * q_result_free either way. */
int q_result_decode(const void *buf, size_t len, q_result *out, char *err, size_t errlen);

/* Releases what q_result_decode allocated and zeroes *r. */
void q_result_free(q_result *r);

#endif
