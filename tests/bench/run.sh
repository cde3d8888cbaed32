#!/bin/sh
# run.sh -- `make bench`: runs each benchmark of build dir $B in turn and
# prints its table. Exits non-zero if a benchmark is missing, fails or runs
# past its time bound (the whole run stays under ~10 minutes on 2 cores).
#
#   BENCH_SANDBOX_N      iterations of bench_sandbox (default 500)
#   BENCH_BOX_N          iterations of bench_box (default 200)
#   BENCH_GRADE_ROUNDS   rounds of bench_grade (default 5)
#   BENCH_MATERIAL_ROUNDS  rounds of bench_material (default 5)
#   BENCH_WORKER_ARGS    options of bench_worker (default: none; see
#                        bench_worker -h, e.g. "-n 2000 -L 60")
#   BENCH_CLIENTS_ARGS   options of bench_clients.py (default: none; see
#                        bench_clients.py -h, e.g. "-j 2000")
#   BENCH_LANGUAGES_N    hello runs per language in bench_languages (default
#                        10; GRADEQ_LANGS="java go" for some presets only)
#
# Benchmarks need root (full isolation). Their scratch files (the private
# redis-server, worker logs) live in one temporary directory removed at exit,
# even when a benchmark is killed.
B=${B:-build}
export GRADEQ_BIN="$B" GRADEQ_PROGS="$B/progs"
T=$(mktemp -d -t gradeq-bench.$(printf "%06d" 0 | tr 0 X)) || exit 1
export TMPDIR="$T"
trap 'rm -rf "$T"' EXIT
# The workers of bench_grade and bench_worker read three presets (c, cpp,
# python3): a worker proves every preset of its file at start, and
# bench_languages measures that apart.
awk '/^\[/ { keep = ($0 == "[c]" || $0 == "[cpp]" || $0 == "[python3]") } keep' deploy/languages > "$T/langs3"
export GRADEQ_LANGUAGES="$T/langs3"
trap 'exit 130' INT TERM

failed=""
# run NAME SECONDS ARGS...: one benchmark under an outer time bound.
run() {
    name=$1; limit=$2; shift 2
    echo "=== $name $*"
    if [ ! -x "$B/bench/$name" ]; then
        echo "$B/bench/$name: not built"
        failed="$failed $name"
        return
    fi
    start=$(date +%s)
    timeout --kill-after=10 "$limit" "$B/bench/$name" "$@"
    rc=$?
    [ $rc -eq 124 ] && echo "$name: killed after ${limit} s"
    [ $rc -ne 0 ] && failed="$failed $name"
    echo "=== $name: exit $rc in $(( $(date +%s) - start )) s"
}

run bench_sandbox 90 "${BENCH_SANDBOX_N:-500}"
run bench_box 120 "${BENCH_BOX_N:-200}"
run bench_interact 120 "${BENCH_INTERACT_N:-50000}"
run bench_grade 240 "${BENCH_GRADE_ROUNDS:-5}"
run bench_material 120 "${BENCH_MATERIAL_ROUNDS:-5}"
# shellcheck disable=SC2086 # BENCH_WORKER_ARGS is a list of options
run bench_worker 360 ${BENCH_WORKER_ARGS:-}
run bench_languages 600 "${BENCH_LANGUAGES_N:-10}"

# The Python package (clients/python) against its baselines; Debian's
# python3 has the redis and msgpack modules.
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
echo "=== bench_clients.py ${BENCH_CLIENTS_ARGS:-}"
start=$(date +%s)
# shellcheck disable=SC2086 # BENCH_CLIENTS_ARGS is a list of options
timeout --kill-after=10 400 "$PY" tests/bench/bench_clients.py ${BENCH_CLIENTS_ARGS:-}
rc=$?
[ $rc -ne 0 ] && failed="$failed bench_clients"
echo "=== bench_clients.py: exit $rc in $(( $(date +%s) - start )) s"

if [ -n "$failed" ]; then
    echo "bench failed:$failed"
    exit 1
fi
