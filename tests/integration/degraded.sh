#!/bin/sh
# Without root (so without namespaces, cgroups or a uid of its own) `gradeq
# run` still runs, enforces what it can, kills what the run left behind,
# and says honestly what held; --require-isolation refuses instead.
# Regression: the zygote's kill loop once reaped the main process itself
# and the run hung waiting for its exit.
set -u
B=${GRADEQ_BIN:-build}
dir=$(mktemp -d); trap 'pkill -9 -u 65534 -f "^sleep 6161" 2>/dev/null; rm -rf "$dir"' EXIT
cp "$B/gradeq" "$dir/gradeq"; chmod 755 "$dir" "$dir/gradeq"
as_nobody() { timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/gradeq" "$@"; }
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

out=$(as_nobody run --json -- /bin/echo hi)
check "runs without root" 'echo "$out" | grep -q "\"status\":\"OK\""'
check "says what held" 'echo "$out" | grep -q "\"isolation\":\[\"no_new_privs\",\"seccomp\",\"rlimits\",\"fds\",\"clean_env\"\]"'
for n in 1 2; do
    err=$(as_nobody run -- /bin/true 2>&1 >/dev/null)
    check "warns on stderr, run $n: what did not hold, how to get full isolation" \
        'echo "$err" | grep -q "warning: not fully isolated.*pid_ns.*cgroup_memory" && echo "$err" | grep -q "run as root for full isolation"'
done
out=$(as_nobody run --memory 64M -- /usr/bin/python3 -c 'x = [0] * (100 << 20)' 2>&1)
check "an allocation refused at the address-space limit: what was measured, the limit named as a guess" \
    'echo "$out" | grep -q "gradeq: RUNTIME_ERROR exit 1 .*: a guess: stderr says \"MemoryError\""'
out=$(as_nobody run -- /bin/sh -c 'echo "Out of memory" >&2; exit 3' 2>&1)
check "... which any program can print: never the verdict" \
    'echo "$out" | grep -q "gradeq: RUNTIME_ERROR exit 3 .*a guess" && ! echo "$out" | grep -q MEMORY_LIMIT'
out=$(as_nobody run -- /bin/sh -c 'echo "out of memory" >&2; exit 0' 2>&1)
check "... and only for a failed run" 'echo "$out" | grep -q "gradeq: OK" && ! echo "$out" | grep -q "a guess"'
out=$(as_nobody run --cpu-ms 300 --wall-ms 20000 -- /bin/sh -c 'while :; do :; done' 2>&1)
check "CPU limit without a cgroup" 'echo "$out" | grep -q "gradeq: TIME_LIMIT"'
out=$(as_nobody run --wall-ms 500 -- /bin/sleep 20 2>&1)
check "wall limit" 'echo "$out" | grep -q "gradeq: WALL_TIME_LIMIT"'
# The daemon is a sleep no one else runs; the run ends by itself once the
# daemon is away, so no limit decides when.
out=$(as_nobody run --wall-ms 60000 -- /bin/sh -c '(setsid sleep 6161 &); until pgrep -u 65534 -f "^sleep 6161" >/dev/null; do :; done; echo daemon-started' 2>&1)
check "daemon started, then killed at the end" \
    'echo "$out" | grep -q daemon-started && ! pgrep -u 65534 -f "^sleep 6161" >/dev/null'
as_nobody run --require-isolation -- /bin/true 2>"$dir/err"; rc=$?
check "--require-isolation refuses" '[ $rc -ne 0 ] && grep -q "full isolation required" "$dir/err"'
exit $fail
