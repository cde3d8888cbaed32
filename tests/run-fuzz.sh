#!/bin/sh
# Runs each libFuzzer target of $B/fuzz for FUZZ_SECONDS on a scratch copy
# of its seed corpus (the repo's corpus is never written), and prints
# "N passed, N failed". A crash, leak or timeout fails the target and keeps
# the input in the scratch dir, whose path is printed.
B=${B:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
passed=0; failed=0
for f in "$B"/fuzz/fuzz_*; do
    [ -x "$f" ] || continue
    name=$(basename "$f"); seeds="tests/fuzz/corpus_${name#fuzz_}"
    work=$(mktemp -d -t gradeq-fuzz.$(printf "%06d" 0 | tr 0 X))
    mkdir -p "$work/corpus"
    [ -d "$seeds" ] && cp "$seeds"/* "$work/corpus/" 2>/dev/null
    echo "=== $name ($FUZZ_SECONDS s)"
    if timeout $((FUZZ_SECONDS + 60)) "$f" -max_total_time="$FUZZ_SECONDS" -max_len=65536 \
        -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" >"$work/log" 2>&1; then
        grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/log"
        passed=$((passed + 1)); rm -rf "$work"
    else
        tail -30 "$work/log"; echo "FAILED: $name, inputs kept in $work"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
