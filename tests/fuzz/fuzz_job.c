/* fuzz_job.c -- libFuzzer target for the job decoder (with its grading
 * fields, grade_decode.c) and the prescan.
 *
 * Any input must be decoded or refused without a crash, a leak or undefined
 * behaviour (ASan, LSan, UBSan). An input that decodes must also survive a
 * round trip: encode it, decode that, encode again, and get the same bytes;
 * a difference traps, so the fuzzer reports it. A refused input may still
 * carry an id (the job is answered under it): that id must obey the rule
 * of job_id.h, whichever path found it.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "queue/job.h"
#include "queue/job_id.h"
#include "queue/prescan.h"

/* has_id promises a valid, NUL-terminated id. */
static void check_id(const q_job *j)
{
    const char *end = memchr(j->id, '\0', sizeof j->id);

    if (j->has_id && (!end || !q_id_valid(j->id, (size_t)(end - j->id))))
        __builtin_trap();
}

/* The decoded job borrows data; its encoding must be a fixed point. */
static void roundtrip(const q_job *j)
{
    char err[Q_ERR_LEN];
    msgpack_sbuffer a, b;
    q_job again;

    msgpack_sbuffer_init(&a);
    msgpack_sbuffer_init(&b);
    if (q_job_encode(j, &a, err, sizeof err) != 0)
        __builtin_trap();
    if (q_job_decode(a.data, a.size, NULL, &again, err, sizeof err) != 0)
        __builtin_trap();
    if (q_job_encode(&again, &b, err, sizeof err) != 0 || a.size != b.size ||
        memcmp(a.data, b.data, a.size) != 0)
        __builtin_trap();
    q_job_free(&again);
    msgpack_sbuffer_destroy(&a);
    msgpack_sbuffer_destroy(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[Q_ERR_LEN];
    q_bounds tight;
    q_job j;

    if (q_job_decode(data, size, NULL, &j, err, sizeof err) == 0)
        roundtrip(&j);
    else if (!memchr(err, '\0', sizeof err) || strchr(err, '\n'))
        __builtin_trap(); /* an error is always one terminated line */
    check_id(&j);
    q_job_free(&j);

    /* Small bounds reach the depth and object limits with short inputs. */
    q_bounds_default(&tight);
    tight.max_depth = 3;
    tight.max_objects = 64;
    tight.max_argv = 4;
    tight.max_files = 2;
    tight.max_env = 2;
    if (q_job_decode(data, size, &tight, &j, err, sizeof err) != 0 && strchr(err, '\n'))
        __builtin_trap();
    check_id(&j);
    q_job_free(&j);
    return 0;
}
