/* job.h -- a grading job: decoded from untrusted msgpack by the worker,
 * encoded by the `gradeq submit` client.
 *
 * Wire format: one msgpack map with string keys; str and bin are accepted
 * alike wherever bytes or text are expected. In every map (the job, limits,
 * interactor) unknown keys are ignored and a nil value is an absent field.
 *   id                str, required: 1..Q_ID_MAX bytes of [A-Za-z0-9._:-]
 *                     (the rule of job_id.h, shared with stream.h)
 *   argv              array of strings, required (but with a grading
 *                     language: grade.h), non-empty, no NUL bytes; with
 *                     env within the Q_EXEC_ limits below
 *   files             map path -> bytes; a path is relative, at most 255
 *                     bytes, with no empty, "." or ".." component and no NUL
 *   stdin             bytes
 *   env               map name -> value; name non-empty, no '=' or NUL;
 *                     value no NUL
 *   limits            map, any of q_limit_names -> non-negative integer
 *                     (or a float with a whole value); positive for those
 *                     of Q_LIM_POSITIVE
 *   network           bool, default false
 *   interactor        map with argv (required), files and limits, checked
 *                     as the job's
 *   transcript_bytes  non-negative integer (or whole float), default 0
 * A key present twice in any of these maps is an error: two readers could
 * otherwise disagree on which one counts. So is a file path that another
 * path uses as a directory ("a" and "a/b").
 *
 * Ownership: q_job_decode allocates the argv and env vectors, the files
 * array and NUL-terminated copies of argv strings, env strings and file
 * names; q_job_free releases them. File contents and stdin are not copied:
 * they borrow the buffer given to q_job_decode, which must outlive the job.
 * A q_job is not shared between threads while being decoded or freed.
 */
#ifndef GRADEQ_QUEUE_JOB_H
#define GRADEQ_QUEUE_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "queue/job_id.h"
#include "queue/prescan.h"

#define Q_PATH_MAX 255
/* What execve and the sandbox can take, checked when decoding: argv and
 * env together at most Q_EXEC_BYTES_MAX bytes, each string counted with
 * its NUL (a job without env is counted with Q_EXEC_DEFAULT_ENV for the
 * default environment), and no one string of Q_EXEC_STRING_MAX bytes or
 * more (the kernel's MAX_ARG_STRLEN, NUL included). The interactor's argv
 * is counted on its own, with the default environment; a grading's
 * compile argv with the job's env (it runs with it), its checker's argv
 * with the three file names appended and the default environment. */
#define Q_EXEC_BYTES_MAX (255u * 1024)
#define Q_EXEC_DEFAULT_ENV 1024u
#define Q_EXEC_STRING_MAX (128u * 1024)

enum {
    Q_LIM_CPU_MS,
    Q_LIM_WALL_MS,
    Q_LIM_MEMORY_BYTES,
    Q_LIM_STDOUT_BYTES,
    Q_LIM_STDERR_BYTES,
    Q_LIM_PROCESSES,
    Q_LIM_FILE_BYTES,
    Q_LIM_OPEN_FILES,
    Q_LIM_COUNT
};

/* The limits that cannot be 0 (no program runs without CPU time, memory,
 * a process or a file descriptor): a 0 there is refused when decoding, so a
 * job never fails at its first run of a test, its compile step, its checker
 * or its interactor. A wall_ms of 0 means three times cpu_ms; 0 output or
 * file bytes is a program that may write nothing. */
#define Q_LIM_POSITIVE ((1u << Q_LIM_CPU_MS) | (1u << Q_LIM_MEMORY_BYTES) | (1u << Q_LIM_PROCESSES) | \
                        (1u << Q_LIM_OPEN_FILES))

/* The bytes one program's exec takes as the Q_EXEC_ rules count them: argv,
 * then `extra` (strings the worker appends; NULL: none), then env (NULL:
 * the default environment, Q_EXEC_DEFAULT_ENV), each string with its NUL.
 * For callers that join a job's env to argv of their own (a language
 * preset's commands). */
size_t q_exec_bytes(const char *const *argv, const char *const *extra, const char *const *env);

/* NULL when p[0..n) may name a file under /box (the rules of `files`
 * above), else why not ("absolute path escapes /box", ...). */
const char *q_path_problem(const char *p, size_t n);

/* "cpu_ms", "wall_ms", ... in the order of the Q_LIM_ constants. */
extern const char *const q_limit_names[Q_LIM_COUNT];

typedef struct q_file {
    char *name;       /* owned, NUL-terminated relative path */
    const void *data; /* borrowed from the decoded buffer; may hold NULs */
    size_t len;
} q_file;

/* One program to run: the job's own, or its interactor. */
typedef struct q_prog {
    char **argv;      /* argc owned strings, then NULL; NULL when absent */
    size_t argc;
    q_file *files;    /* NULL when nfiles is 0 */
    size_t nfiles;
    uint64_t limits[Q_LIM_COUNT];
    unsigned limits_present; /* bit i set when limits[i] was given */
} q_prog;

typedef struct q_job {
    char id[Q_ID_MAX + 1];
    bool has_id;
    q_prog prog;
    const void *stdin_data; /* borrowed; NULL unless has_stdin */
    size_t stdin_len;
    bool has_stdin;
    char **env;             /* nenv owned "K=V" strings, then NULL; NULL when absent */
    size_t nenv;
    bool network;
    bool has_interactor;
    q_prog interactor;
    uint64_t transcript_bytes;
    struct q_grade *grade;  /* owned; NULL unless the job has tests (grade.h) */
} q_job;

/* Decodes buf[0..len) into *out, checking every rule above within b (NULL:
 * q_bounds_default). Returns 0, or -1 with one line in err naming the field
 * and the reason (`argv[2]: not a string`); the line quotes job bytes only
 * escaped, so it is safe to log. On failure *out holds nothing but the id:
 * has_id is true when a valid id could be read, so the job can still be
 * answered under it. That is when the top-level map holds one valid id and
 * the job fails a later check, and also, when the bytes themselves are
 * refused (bounds, truncation, trailing bytes, ...), when "id" appears once,
 * with a valid id, among the entries before the refused object (see
 * q_prescan_lookup). Either way *out may be passed to q_job_free. */
int q_job_decode(const void *buf, size_t len, const q_bounds *b, q_job *out,
                 char *err, size_t errlen);

/* Releases what q_job_decode allocated and zeroes *j. Safe on a zeroed job
 * and after a failed decode. */
void q_job_free(q_job *j);

/* Appends the msgpack of *j to out; the job is checked by decoding the result
 * with q_bounds_default, so what the client sends is what a worker accepts.
 * Absent or default fields are left out (files when nfiles is 0, stdin
 * unless has_stdin, env when NULL, limits not present, interactor unless
 * has_interactor, transcript_bytes when 0). Returns 0, or -1 with err
 * filled and out as it was. */
int q_job_encode(const q_job *j, msgpack_sbuffer *out, char *err, size_t errlen);

#endif
