#!/bin/sh
# make demo: a private redis-server, one gradeq-worker, a few jobs that end
# in each way a student's program can end, then the queue's view. Leaves
# nothing behind.
set -u
B=${B:-build}
T=$(mktemp -d -t gradeq-demo.$(printf "%06d" 0 | tr 0 X))
export GRADEQ_REDIS="unix://$T/redis.sock"
cleanup() {
    [ -n "${WPID:-}" ] && kill -TERM "$WPID" 2>/dev/null && wait "$WPID" 2>/dev/null
    redis-cli -s "$T/redis.sock" shutdown nosave >/dev/null 2>&1
    rm -rf "$T"
}
trap cleanup EXIT INT TERM
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "gradeq run: one program in the sandbox, no Redis"
"$B/gradeq" run -- /bin/sh -c 'echo "hello from $(hostname), uid $(id -u), in $(pwd)"; ls /' </dev/null

say "starting a private redis-server and a worker (2 threads)"
redis-server --port 0 --unixsocket "$T/redis.sock" --save '' --appendonly no --daemonize yes \
    --pidfile "$T/redis.pid" --logfile "$T/redis.log" --dir "$T"
for _ in $(seq 1 100); do redis-cli -s "$T/redis.sock" ping >/dev/null 2>&1 && break; sleep 0.05; done
"$B/gradeq-worker" --threads 2 --log-level warn &
WPID=$!

job() { say "$1"; shift; "$B/gradeq" submit --wait 30 "$@"; }
job "a correct answer" -- /bin/sh -c 'echo 42'
job "an infinite loop (cpu 300 ms)" --cpu-ms 300 -- /bin/sh -c 'while :; do :; done'
job "a sleeper (wall 300 ms)" --wall-ms 300 -- /bin/sleep 60
job "a memory hog (64 MiB limit)" --memory 64M -- "$B/progs/memhog" 1024
say "a flood on stdout (1 KiB cap: killed at the cap, exactly 1 KiB kept)"
"$B/gradeq" submit --wait 30 --stdout-max 1K -- /usr/bin/yes | wc -c | sed 's/^/stdout bytes kept: /'
job "a crash" -- "$B/progs/segv"
job "a fork bomb (32 processes)" --processes 32 --cpu-ms 500 --wall-ms 1000 -- "$B/progs/forkbomb" --really
job "JSON for tools" --json -- /bin/echo json

say "gradeq stats"
"$B/gradeq" stats
