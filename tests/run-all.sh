#!/bin/sh
# Runs every test binary and integration script of build dir $B, each under
# an outer time bound (900 s, or what a script's "# run-all bound: SECONDS"
# line says), and prints "N passed, N failed". Exits non-zero when any test
# failed. A test binary counts as one test here; cmocka prints its own
# per-case lines above.
B=${B:-build}
export GRADEQ_PROGS="$B/progs" GRADEQ_BIN="$B"
passed=0; failed=0; failures=""
for t in "$B"/tests/test_* tests/integration/*.sh; do
    [ -e "$t" ] || continue
    name=$(basename "$t")
    echo "=== $name"
    bound=$(sed -n 's/^# run-all bound: \([0-9][0-9]*\)$/\1/p' "$t" 2>/dev/null | head -1)
    if timeout --kill-after=10 "${bound:-900}" "$t" </dev/null; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); failures="$failures $name"
    fi
done
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
