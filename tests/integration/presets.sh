#!/bin/sh
# Language presets beyond any one language: flags worked out from each
# run's own limits, the time factor in the verdict and the result, a
# runtime's out-of-memory message believed only when the memory was used;
# and a worker proving its presets at start, for real: one that works, and
# one for each way a preset fails (its program missing, behind env too;
# its compile step failing; wrong output; too slow; past the self-tests'
# deadline). The refused ones are named with why, the worker starts with
# the rest (or does not, under --languages-required), a job naming a
# refused one is BAD_JOB saying why, the registry lists only what works,
# and a signal during the self-tests still stops the worker.
set -u
. "$(dirname "$0")/common.inc"
G="timeout 120 $B/gradeq"

cat > "$T/langs" <<'EOF'
[good]
source = main.sh
compile = bash -n main.sh
run = bash main.sh
version = bash --version
selftest = IFS= read -r line; printf '%s\n' "$line"

[wrong]
source = main.sh
run = bash main.sh
selftest = echo nope

[slow]
source = main.sh
run = bash main.sh
cpu_ms = 300
wall_ms = 100000
selftest = while :; do :; done

[missing]
source = main.x
compile = no-such-compiler-xyz main.x
run = ./main
selftest = x

[wrapped]
source = main.x
compile = env LANG=C no-such-compiler-xyz main.x
run = ./main
selftest = x

[broken]
source = main.c
compile = gcc -o main main.c
run = ./main
selftest = int main(void) { return 0 }

[untested]
source = main.sh
run = bash main.sh
EOF
# wait_log FILE TEXT SECONDS: until the worker's log holds TEXT.
wait_log() {
    deadline=$(( $(date +%s) + $3 ))
    until grep -q "$2" "$1" 2>/dev/null; do
        [ "$(date +%s)" -ge "$deadline" ] && return 1
        sleep 0.1
    done
}

# --- placeholders from the run's limits; the time factor ---------------------------
cat > "$T/features" <<'EOF'
[args]
source = main.sh
run = bash main.sh {memory_mb} {heap_mb} {cpu_ms}
heap_mb = memory_mb / 2

[slow]
source = main.sh
run = bash main.sh
time_factor = 2.5
EOF
mkdir -p "$T/none"; : > "$T/none/1.in"; : > "$T/none/1.out"
echo 'echo "$@" >&2' > "$T/args.sh"
$G grade --json --languages "$T/features" --language args --source "$T/args.sh" --tests "$T/none" --memory 64M \
    --cpu-ms 700 > "$T/args.json" 2>/dev/null
check "placeholders follow the job's limits" 'python3 -c "
import base64, json, sys
d = json.load(open(sys.argv[1]))
assert base64.b64decode(d[\"tests\"][0][\"stderr\"]) == b\"64 32 700\\n\", d
" "$T/args.json"'
echo 'while :; do :; done' > "$T/loop.sh"
$G grade --json --languages "$T/features" --language slow --source "$T/loop.sh" --tests "$T/none" --cpu-ms 400 --wall-ms 100000 \
    > "$T/slow.json" 2>/dev/null
check "time_factor: the CPU limit times 2.5, said in the result" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
t = d[\"tests\"][0]
assert d[\"time_factor\"] == 2.5 and t[\"status\"] == \"TIME_LIMIT\" and 1000000 <= t[\"cpu_us\"] < 1400000, d
" "$T/slow.json"'
$G grade --languages "$T/features" --language slow --source "$T/loop.sh" --tests "$T/none" --cpu-ms 400 --wall-ms 100000 \
    > "$T/slow.txt" 2>/dev/null
check "... and in the summary line" 'grep -q "(TIME_LIMIT), time limits x2.5" "$T/slow.txt"'

# --- a runtime's own out-of-memory: believed only when measured -------------------
cat > "$T/oomlang" <<'EOF'
[fake]
source = main.py
run = python3 -S main.py
heap_mb = memory_mb / 2
oom = OutOfMemoryError
EOF
printf 'import sys\nb = bytearray(b"x" * (150 << 20))\nsys.stderr.write("java.lang.OutOfMemoryError\\n")\nsys.exit(1)\n' > "$T/used.py"
printf 'import sys\nsys.stderr.write("java.lang.OutOfMemoryError\\n")\nsys.exit(1)\n' > "$T/said.py"
for p in used said; do
    $G grade --json --languages "$T/oomlang" --language fake --source "$T/$p.py" --tests "$T/none" > "$T/$p.json" 2>/dev/null
done
st() { python3 -c "import json,sys; t = json.load(open(sys.argv[1]))[\"tests\"][0]; print(t[\"status\"], t[\"memory_bytes\"] >> 20)" "$T/$1.json"; }
check "its message and 150 MiB used of a 128 MiB ceiling: MEMORY_LIMIT" '[ "$(st used | cut -d" " -f1)" = MEMORY_LIMIT ] || { echo "  $(st used)"; false; }'
check "its message alone, the memory unused: RUNTIME_ERROR" '[ "$(st said | cut -d" " -f1)" = RUNTIME_ERROR ] || { echo "  $(st said)"; false; }'
$G grade --json --languages "$T/oomlang" --language fake --source "$T/used.py" --tests "$T/none" \
    --interactor "${GRADEQ_PROGS:-build/progs}/guess_interactor" > "$T/iused.json" 2>/dev/null
check "... and against an interactor, the same: MEMORY_LIMIT" '[ "$(st iused | cut -d" " -f1)" = MEMORY_LIMIT ] || { echo "  $(st iused)"; false; }'

# --- gradeq languages --check: every reason, exit 1 ----------------------------
$G languages --languages "$T/langs" --check > "$T/check.out" 2>&1; echo $? > "$T/check.rc"
check "--check exits 1 when a preset is refused" '[ "$(cat $T/check.rc)" = 1 ]'
reason() { grep "^$1	" "$T/check.out" | grep -q "$2" || { echo "  $1: $(grep "^$1	" "$T/check.out" | cut -f7)"; return 1; }; }
check "good: passed, its version shown" 'reason good "version=5\.[0-9.]*	.*passed (" '
check "wrong: refused, wrong output" 'reason wrong "unavailable: self-test: wrong output \"nope\""'
check "slow: refused, timed out" 'reason slow "unavailable: self-test timed out (TIME_LIMIT)"'
check "missing: refused, not installed" 'reason missing "unavailable: no-such-compiler-xyz is not installed"'
check "env before a missing compiler: refused all the same" 'reason wrapped "unavailable: no-such-compiler-xyz is not installed"'
check "broken: refused, the compiler's first line" 'reason broken "unavailable: self-test: compile failed (RUNTIME_ERROR: main.c"'
check "untested: available, no self-test to run" 'reason untested "	available$"'
$G languages --languages "$T/langs" --check --json > "$T/check.json" 2>/dev/null
check "--json: one array, each preset's state" 'python3 -c "
import json, sys
v = {l[\"name\"]: l for l in json.load(open(sys.argv[1]))}
assert v[\"good\"][\"available\"] and v[\"good\"][\"checked\"] and v[\"good\"][\"version\"]
assert not v[\"wrong\"][\"available\"] and \"wrong output\" in v[\"wrong\"][\"why\"]
assert v[\"untested\"][\"available\"] and not v[\"untested\"][\"checked\"]
" "$T/check.json"'

# --- a worker: starts with the good ones --------------------------------------------
start_redis || exit 1
start_worker sw --threads 2 --languages "$T/langs"
check "the worker starts with 2 of 7 presets" 'wait_log "$T/sw.log" "grading: 2 of 7 language presets work" 60'
check "it names each refused preset and why" 'grep -q "language wrong refused: self-test: wrong output" "$T/sw.log" &&
    grep -q "language wrapped refused: no-such-compiler-xyz is not installed" "$T/sw.log" &&
    grep -q "language broken refused: self-test: compile failed" "$T/sw.log"'
mkdir -p "$T/tests"; echo "a b" > "$T/tests/1.in"; echo "a b" > "$T/tests/1.out"
printf 'read -r x; echo "$x"\n' > "$T/echo.sh"
$G submit --wait 120 --json --tests "$T/tests" --language good --source "$T/echo.sh" > "$T/good.json" 2>"$T/good.err"
check "a job for a proven preset runs" 'python3 -c "import json,sys; assert json.load(open(sys.argv[1]))[\"status\"] == \"OK\"" "$T/good.json"'
$G submit --wait 120 --json --tests "$T/tests" --language wrong --source "$T/echo.sh" > "$T/wrong.json" 2>"$T/wrong.err"
check "a job for a refused preset is BAD_JOB saying why" 'python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d[\"status\"] == \"BAD_JOB\" and d[\"error\"].startswith(\"language: wrong: self-test: wrong output\"), d
" "$T/wrong.json"'
check "the registry lists what works, with versions" 'rcli hget gradeq:worker:sw languages | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert sorted(d) == [\"good\", \"untested\"] and d[\"good\"].startswith(\"5.\"), d
"'
kill -TERM "$LAST_WORKER"; wait "$LAST_WORKER"

# --- --languages-required ------------------------------------------------------------
timeout 120 $B/gradeq-worker --name req1 --languages "$T/langs" --languages-required good,wrong > "$T/req1.log" 2>&1
echo $? > "$T/req1.rc"
check "--languages-required naming a refused preset: the worker does not start" '[ "$(cat $T/req1.rc)" = 1 ] &&
    grep -q "language wrong is required (--languages-required) but refused: self-test: wrong output" "$T/req1.log"'
timeout 120 $B/gradeq-worker --name req2 --languages "$T/langs" --languages-required nosuch > "$T/req2.log" 2>&1
echo $? > "$T/req2.rc"
check "--languages-required naming no preset: refused at once" '[ "$(cat $T/req2.rc)" = 1 ] && grep -q "no preset nosuch" "$T/req2.log"'

# --- the self-tests' deadline, and a signal during them --------------------------------
cat > "$T/sleepy" <<'EOF'
[good]
source = main.sh
run = bash main.sh
selftest = IFS= read -r line; printf '%s\n' "$line"

[sleepy]
source = main.sh
run = bash main.sh
wall_ms = 600000
cpu_ms = 600000
selftest = sleep 600
EOF
start_worker dl --threads 1 --languages "$T/sleepy" --self-test-timeout 2
check "past --self-test-timeout: refused as timed out, the worker starts with the rest" 'wait_log "$T/dl.log" "grading: 1 of 2 language presets work" 30 &&
    grep -q "language sleepy refused: self-test timed out (the self-tests. 2 s ran out)" "$T/dl.log"'
kill -TERM "$LAST_WORKER"; wait "$LAST_WORKER"
start_worker sig --threads 2 --languages "$T/sleepy" --self-test-timeout 600
wait_log "$T/sig.log" "language good:" 30
kill -TERM "$LAST_WORKER"
start=$(date +%s)
wait "$LAST_WORKER"; echo $? > "$T/sig.rc"
check "SIGTERM during the self-tests stops the worker at once" '[ $(( $(date +%s) - start )) -le 10 ] && [ "$(cat $T/sig.rc)" = 1 ] &&
    grep -q "stopping the language self-tests" "$T/sig.log" && grep -q "stopped during the language self-tests" "$T/sig.log"'
exit $FAIL
