/* fuzz_result.c -- libFuzzer target for the result decoder.
 *
 * Any input must be decoded or refused without a crash, a leak or undefined
 * behaviour. A decoded result is encoded, decoded and encoded again: the two
 * encodings must be the same bytes, or the target traps.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "queue/prescan.h"
#include "queue/result.h"

static void roundtrip(const q_result *r)
{
    char err[Q_ERR_LEN];
    msgpack_sbuffer a, b;
    q_result again;

    msgpack_sbuffer_init(&a);
    msgpack_sbuffer_init(&b);
    if (q_result_encode(r, &a, err, sizeof err) != 0)
        __builtin_trap();
    if (q_result_decode(a.data, a.size, &again, err, sizeof err) != 0)
        __builtin_trap();
    if (q_result_encode(&again, &b, err, sizeof err) != 0 || a.size != b.size ||
        memcmp(a.data, b.data, a.size) != 0)
        __builtin_trap();
    q_result_free(&again);
    msgpack_sbuffer_destroy(&a);
    msgpack_sbuffer_destroy(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[Q_ERR_LEN];
    q_result r;

    if (q_result_decode(data, size, &r, err, sizeof err) == 0)
        roundtrip(&r);
    else if (!memchr(err, '\0', sizeof err) || strchr(err, '\n'))
        __builtin_trap(); /* an error is always one terminated line */
    q_result_free(&r);
    return 0;
}
