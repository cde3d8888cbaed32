#!/bin/sh
# gradeq-worker against a real redis-server: statuses byte for byte,
# exactly-once delivery across processes, a worker killed mid-job, Redis
# restarted under load, malformed jobs, and the SIGTERM drain.
set -u
. "$(dirname "$0")/common.inc"
P=${GRADEQ_PROGS:-build/progs}
start_redis aof || exit 1

# --- statuses round-trip byte for byte -------------------------------------
start_worker w1 --threads 2 --claim-idle-ms 1000
W1=$LAST_WORKER
same() { # same NAME RUNARGS -- PROG...: run and submit give the same status and output
    label=$1; shift
    local_json=$("$B/gradeq" run --json "$@" 2>/dev/null)
    queue_json=$("$B/gradeq" submit --wait 120 --json "$@" 2>/dev/null)
    for f in status exit_code signal stdout stderr stdout_truncated stderr_truncated; do
        a=$(echo "$local_json" | grep -o "\"$f\":[^,]*"); b=$(echo "$queue_json" | grep -o "\"$f\":[^,]*")
        [ "$a" = "$b" ] || { echo "  $label: $f differs: run $a, queue $b"; return 1; }
    done
    echo "$queue_json" | grep -q "\"status\":\"$label\""
}
check "OK round-trips" 'same OK -- "$P/exact_out" 100000'
check "RUNTIME_ERROR round-trips" 'same RUNTIME_ERROR -- "$P/exit3"'
check "SIGNALED round-trips" 'same SIGNALED -- "$P/segv"'
check "TIME_LIMIT round-trips" 'same TIME_LIMIT --cpu-ms 200 --wall-ms 20000 -- "$P/busy_loop"'
check "WALL_TIME_LIMIT round-trips" 'same WALL_TIME_LIMIT --wall-ms 200 -- "$P/sleep"'
check "MEMORY_LIMIT round-trips" 'same MEMORY_LIMIT --memory 32M -- "$P/memhog" 256'
check "OUTPUT_LIMIT round-trips" 'same OUTPUT_LIMIT --stdout-max 1000 -- "$P/yes_stdout"'
check "EXEC_ERROR round-trips" 'same EXEC_ERROR -- /no/such/program'
printf 'a\0b\377c' > "$T/in.bin"
check "stdin bytes round-trip" 'same OK --stdin "$T/in.bin" -- "$P/cat"'

# --- malformed jobs: answered or dead-lettered, the worker lives on ---------
bad() { printf "$1" > "$T/bad"; rcli -x xadd gradeq:jobs '*' job < "$T/bad" >/dev/null; }
jobs0=$(rcli hget gradeq:stats jobs)
dead0=$(rcli xlen gradeq:dead)
bad 'not msgpack at all'
bad '\223\001\002\003'                                 # an array, not a map
bad '\201\244argv\221\244true'                         # no id
bad '\202\242id\244bad1\244argv\220'                   # empty argv, id readable
bad '\202\242id\244bad2\244argv\335\377\377\377\377'   # 4 billion elements claimed
bad '\203\242id\244bad3\244argv\221\244true\245files\201\246../etc\241x'
rcli xadd gradeq:jobs '*' notjob x >/dev/null          # no job field
check "valid job after bad ones" '"$B/gradeq" submit --wait 120 -- /bin/true 2>&1 | grep -q "gradeq: OK"'
check "bad jobs with an id answered BAD_JOB" '[ "$(rcli hget gradeq:stats BAD_JOB)" -ge 3 ]'
check "unreadable ones dead-lettered" '[ $(( $(rcli xlen gradeq:dead) - dead0 )) -eq 4 ]'
check "BAD_JOB names the field" '"$B/gradeq" submit --wait 5 --id x -- /bin/true >/dev/null 2>&1; rcli --no-raw lrange gradeq:result:bad3 0 -1 | grep -q "path escapes"'
check "worker still alive" 'kill -0 $W1'

# --- kill -9 mid-job: redelivered, attempt 2 ------------------------------
"$B/gradeq" submit --id slow1 --wall-ms 20000 -- /bin/sh -c "$(gate_job)" >/dev/null
wait_pending w1/ 120
# The worker's processes, each as PID:START (its start time: a pid used
# again later is another process).
start_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
tree() { for c in $(pgrep -P "$1"); do s=$(start_of "$c"); [ -n "$s" ] && echo "$c:$s"; tree "$c"; done; }
# running PID:START: that process has not ended (a zombie has: reaping the
# dead worker's children is their new parent's business, and it took this
# machine's PID 1 over a second).
running() { [ "$(sed -n 's/.*) \([A-Za-z]\).*/\1/p' "/proc/${1%:*}/stat" 2>/dev/null)" != Z ] && [ "$(start_of "${1%:*}")" = "${1#*:}" ]; }
left() { for p in $W1_TREE; do running "$p" && echo "$p"; done; }
W1_TREE=$(tree $W1)
kill -9 $W1; wait $W1 2>/dev/null
# Before the gate opens, so that a job left running could not end by
# itself; the bound only catches a process that never ends.
deadline=$(( $(date +%s) + 60 ))
until [ -z "$(left)" ] || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
W1_LEFT=$(left)
open_gate
start_worker w2 --threads 2 --claim-idle-ms 1000
W2=$LAST_WORKER
res=$(rcli --raw blpop gradeq:result:slow1 120 | tail -c +1)
check "killed job finished elsewhere" 'rcli --no-raw xrevrange gradeq:results + - | grep -q slow1 && echo "$res" | grep -q w2'
check "with attempt 2" '"$B/gradeq" stats --json >/dev/null; rcli --no-raw xrevrange gradeq:results + - count 1 | grep -q "attempt\\\\x02"'
check "no process of the dead worker left" '[ -n "$W1_TREE" ] && [ -z "$W1_LEFT" ] || { echo "  left: $W1_LEFT of $W1_TREE"; false; }'

# --- 1000 jobs, 2 processes x 4 threads, exactly once ----------------------
start_worker w3 --threads 4 --claim-idle-ms 1000
W3=$LAST_WORKER
kill -TERM $W2; wait $W2
start_worker w4 --threads 4 --claim-idle-ms 1000
# Both workers' eight threads blocked on the queue before the first job:
# Redis hands each new entry to the thread blocked longest, so both take
# jobs. A worker still starting (its self-tests take seconds on a busy
# machine) would let the other take all 1000 where submitting is fast.
blocked() { rcli client list | grep -c "name=w[34]/[0-3] .*flags=[A-Za-z]*b"; }
deadline=$(( $(date +%s) + 120 ))
until [ "$(blocked)" = 8 ] || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
before=$(rcli hget gradeq:stats jobs)
rcli del gradeq:results >/dev/null
i=0; while [ $i -lt 1000 ]; do echo "$i"; i=$((i+1)); done | while read -r n; do
    "$B/gradeq" submit --id "bulk-$n" -- /bin/true >/dev/null || echo "submit $n failed"
done
check "1000 jobs done" 'wait_jobs $((before + 1000)) 120'
check "1000 distinct results" '[ "$(rcli xlen gradeq:results)" -eq 1000 ] && [ "$(rcli xrange gradeq:results - + | grep -a "^bulk-" | sort -u | wc -l)" -eq 1000 ]'
check "each result list holds one" '[ "$(for n in 0 1 500 999; do rcli llen gradeq:result:bulk-$n; done | sort -u)" = 1 ]'
check "both workers took jobs" 'rcli xrange gradeq:results - + >"$T/all.txt" && grep -aq w3 "$T/all.txt" && grep -aq w4 "$T/all.txt"'

# --- Redis down for 3 s and back (AOF): nothing lost -----------------------
before=$(rcli hget gradeq:stats jobs)
for n in $(seq 1 40); do "$B/gradeq" submit --id "outage-$n" -- /bin/sleep 0.05 >/dev/null; done
stop_redis
sleep 3   # the outage itself, not a synchronisation
start_redis aof
check "every job done after the outage" 'wait_jobs $((before + 40)) 60'
check "workers reconnected" 'kill -0 $W3 && kill -0 $LAST_WORKER'

# --- SIGTERM drains: the running job is published, exit 0 ------------------
W4=$LAST_WORKER
kill -TERM $W3; wait $W3
"$B/gradeq" submit --id drain1 --wall-ms 20000 -- /bin/sleep 1 >/dev/null
wait_pending w4/ 120
kill -TERM $W4; wait $W4; rc=$?
check "drained worker exits 0" '[ $rc -eq 0 ]'
check "its running job was published" '[ "$(rcli llen gradeq:result:drain1)" = 1 ]'
check "nothing left pending" '[ "$(rcli xpending gradeq:jobs workers | head -1)" = 0 ]'
check "drained worker unregistered" '[ "$(rcli exists gradeq:worker:w4)" = 0 ]'

# --- SIGTERM twice aborts: running jobs killed at once, left pending -------
# An interactive job has runs in both of its slot's boxes; each must end now,
# not at its 60 s wall limit. wait_log waits for the worker's own line.
wait_log() {
    deadline=$(( $(date +%s) + $3 ))
    until grep -q "$2" "$T/$1.log"; do [ "$(date +%s)" -ge "$deadline" ] && return 1; sleep 0.05; done
}
start_worker w5 --threads 2
W5=$LAST_WORKER
"$B/gradeq" submit --id abort1 --wall-ms 60000 -- /bin/sleep 60 >/dev/null
"$B/gradeq" submit --id abort2 --wall-ms 60000 --interactor "/bin/sleep 60" -- /bin/sleep 60 >/dev/null
# Both taken before the stop (a worker's self-tests may take seconds under
# a sanitizer on a busy machine: the bound only catches a hang).
deadline=$(( $(date +%s) + 120 ))
until [ "$(rcli xpending gradeq:jobs workers | head -1)" = 2 ] || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
kill -TERM $W5
wait_log w5 draining 10
kill -TERM $W5
( sleep 20; kill -9 $W5 2>/dev/null ) & guard=$!
wait $W5; rc=$?
kill $guard 2>/dev/null
check "aborted worker exits 1 at once, both jobs' runs ended" '[ $rc -eq 1 ]'
check "the aborted jobs are left pending, unanswered" \
    '[ "$(rcli xpending gradeq:jobs workers | head -1)" = 2 ] && [ "$(rcli llen gradeq:result:abort1)" = 0 ]'

[ $FAIL -eq 0 ] || { for f in "$T"/*.log; do echo "--- $f"; tail -20 "$f"; done; }
exit $FAIL
