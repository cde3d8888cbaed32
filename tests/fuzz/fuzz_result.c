/* fuzz_result.c -- libFuzzer target for the result decoder.
 *
 * Any input must be decoded or refused without a crash, a leak or undefined
 * behaviour. A decoded result is encoded, decoded and encoded again: the two
 * encodings must be the same bytes, or the target traps.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "queue/grade.h"
#include "queue/prescan.h"
#include "queue/result.h"

/* With its grading fields when it has them (grade.h's decoder). */
static void roundtrip(const q_result *r)
{
    char err[Q_ERR_LEN];
    msgpack_sbuffer a, b;
    q_result again;
    q_grade_result g = {0};

    msgpack_sbuffer_init(&a);
    msgpack_sbuffer_init(&b);
    if (q_result_encode(r, &a, err, sizeof err) != 0)
        __builtin_trap();
    if (q_result_decode(a.data, a.size, &again, err, sizeof err) != 0 ||
        q_grade_result_decode(a.data, a.size, &g, err, sizeof err) != (r->grade != NULL))
        __builtin_trap();
    again.grade = r->grade ? &g : NULL;
    if (q_result_encode(&again, &b, err, sizeof err) != 0 || a.size != b.size ||
        memcmp(a.data, b.data, a.size) != 0)
        __builtin_trap();
    q_result_free(&again);
    q_grade_result_free(&g);
    msgpack_sbuffer_destroy(&a);
    msgpack_sbuffer_destroy(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[Q_ERR_LEN];
    q_result r;
    q_grade_result g;
    int graded = q_grade_result_decode(data, size, &g, err, sizeof err);

    if (graded < 0 && (!memchr(err, '\0', sizeof err) || strchr(err, '\n')))
        __builtin_trap();
    if (q_result_decode(data, size, &r, err, sizeof err) == 0) {
        r.grade = graded == 1 ? &g : NULL;
        if (graded >= 0)
            roundtrip(&r);
    } else if (!memchr(err, '\0', sizeof err) || strchr(err, '\n')) {
        __builtin_trap(); /* an error is always one terminated line */
    }
    q_result_free(&r);
    q_grade_result_free(&g);
    return 0;
}
