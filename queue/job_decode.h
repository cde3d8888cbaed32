/* job_decode.h -- internal to queue/: what job_decode.c and job_files.c
 * share while decoding one job.
 *
 * A q_job_dec carries the bounds and the caller's err buffer through the
 * decoding functions; each of them returns 0, or -1 with one line in err
 * naming the field (prefixed by `pre`: "" or "interactor.").
 */
#ifndef GRADEQ_QUEUE_JOB_DECODE_H
#define GRADEQ_QUEUE_JOB_DECODE_H

#include <msgpack.h>

#include "queue/err.h"
#include "queue/job.h"

typedef struct q_job_dec {
    const q_bounds *b;
    char *err;
    size_t errlen;
} q_job_dec;

#define DFAIL(d, ...) q_fail((d)->err, (d)->errlen, __VA_ARGS__)

/* "PREFIELD: out of memory"; returns -1. */
static inline int q_job_oom(q_job_dec *d, const char *pre, const char *field)
{
    return DFAIL(d, "%s%s: out of memory", pre, field);
}

/* Decodes the files map `o` (NULL: absent) of one program into pg: every
 * path checked (relative, no empty, "." or ".." component, no NUL, at most
 * Q_PATH_MAX bytes), none given twice, none a directory of another. The
 * contents borrow from the input. On failure pg holds what q_job_free
 * releases. (job_files.c) */
int q_job_decode_files(const msgpack_object *o, const char *pre, q_prog *pg, q_job_dec *d);

/* For the grading fields (grade_decode.c), from job_decode.c: the limits
 * map of a program; a map {argv, files, limits} checked as the interactor's
 * (`name` for the messages, "compile" or "checker"); release of a q_prog. */
int q_job_decode_limits(const msgpack_object *o, const char *pre, q_prog *pg, q_job_dec *d);
int q_job_decode_prog_map(const msgpack_object *o, const char *name, const char *pre, q_prog *pg, q_job_dec *d);
void q_prog_free(q_prog *pg);

/* From job_encode.c, for grade_encode.c: a program's entries (argv unless
 * empty, files, limits), their count, and the files and limits maps alone
 * (each a key and its map). */
struct q_enc;
size_t q_job_prog_entries(const q_prog *pg);
int q_job_put_prog(struct q_enc *e, const q_prog *pg);
int q_job_put_files(struct q_enc *e, const q_prog *pg);
int q_job_put_files_map(struct q_enc *e, const q_prog *pg); /* the map alone */
int q_job_put_limits(struct q_enc *e, const q_prog *pg);

/* For the grading fields, from grade_groups.c: a points value (points.h)
 * of key `key`; the groups array (after the tests, which it names), its
 * release, and its encoding; a points entry (a whole value as an integer,
 * else its canonical decimal string). */
#include "queue/points.h"
struct q_grade;
int q_decode_points(const msgpack_object *o, const char *pre, const char *key, q_points *out, q_job_dec *d);
int q_grade_decode_groups(const msgpack_object *o, struct q_grade *g, q_job_dec *d);
void q_grade_free_groups(struct q_grade *g);
int q_grade_put_groups(struct q_enc *e, const struct q_grade *g);
int q_enc_points(struct q_enc *e, const char *key, q_points p);

/* From grade_problem.c: the problem fields (name, files; NULL when
 * absent) and their encoding. */
int q_grade_decode_problem(const msgpack_object *name, const msgpack_object *files, struct q_grade *g,
                           q_job_dec *d);
size_t q_grade_problem_entries(const struct q_grade *g);
int q_grade_put_problem(struct q_enc *e, const struct q_grade *g);

#endif
