/* job_id.h -- the one rule for job ids: 1..Q_ID_MAX bytes of
 * [A-Za-z0-9._:-].
 *
 * The job decoder (job_decode.c) refuses any other id, and the stream
 * protocol (stream.c, stream_client.c) refuses to publish a result under,
 * or wait for the result of, any other id. Both use these functions, so a
 * client can never wait for an id the worker cannot answer. The rule keeps
 * ids safe in Redis key names, log lines and file names, with no escaping.
 */
#ifndef GRADEQ_QUEUE_JOB_ID_H
#define GRADEQ_QUEUE_JOB_ID_H

#include <stdbool.h>
#include <stddef.h>

#define Q_ID_MAX 128
#define Q_ID_CHARS "[A-Za-z0-9._:-]" /* for messages */

/* True when c may appear in a job id. */
static inline bool q_id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == ':' || c == '-';
}

/* True when p[0..n) is a job id: 1..Q_ID_MAX bytes, each q_id_char. */
static inline bool q_id_valid(const char *p, size_t n)
{
    if (n == 0 || n > Q_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!q_id_char(p[i]))
            return false;
    return true;
}

#endif
