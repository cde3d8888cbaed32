#!/bin/sh
# /metrics scraped while jobs run: Prometheus text that parses, busy
# threads while a job runs, and counters that match the results published.
set -u
. "$(dirname "$0")/common.inc"
P=${GRADEQ_PROGS:-build/progs}
start_redis || exit 1
port=$(( 20000 + $$ % 20000 ))
start_worker wm --threads 2 --metrics-addr "$port"
W=$LAST_WORKER
scrape() { curl -sf --max-time 5 "http://127.0.0.1:$port/metrics"; }
metric() { scrape | awk -v k="$1" '$1 == k { print $2 }'; }
for _ in $(seq 1 2400); do scrape >/dev/null 2>&1 && break; sleep 0.05; done

# Busy is seen at some scrape between the job's claim and its result: the
# job ends only once it was (its gate), however slow a scrape (a job of 3 s
# could end before a slow one landed).
"$B/gradeq" submit --id long1 --wall-ms 120000 -- /bin/sh -c "$(gate_job)" >/dev/null
wait_pending wm/ 120
busy_seen() {
    deadline=$(( $(date +%s) + 60 ))
    while [ "$(rcli exists gradeq:result:long1)" = 0 ] && [ "$(date +%s)" -lt "$deadline" ]; do
        [ "$(metric "gradeq_threads{state=\"busy\"}")" = 1 ] && return 0
    done
    return 1
}
check "busy while a job runs" busy_seen
open_gate
for n in 1 2 3 4 5; do "$B/gradeq" submit --wait 120 -- /bin/true >/dev/null 2>&1; done
for n in 1 2; do "$B/gradeq" submit --wait 120 --cpu-ms 100 --wall-ms 20000 -- "$P/busy_loop" >/dev/null 2>&1; done
"$B/gradeq" submit --wait 120 --stdout-max 100 -- "$P/yes_stdout" >/dev/null 2>&1
"$B/gradeq" submit --wait 120 --interactor "/bin/sh -c 'exit 1'" -- /bin/true >/dev/null 2>&1
"$B/gradeq" submit --wait 120 --interactor "/bin/sh -c 'exit 3'" -- /bin/true >/dev/null 2>&1
"$B/gradeq" submit --wait 120 --interactor "/bin/sh -c 'echo points 1 >&2; exit 7'" -- /bin/true >/dev/null 2>&1
rcli xadd gradeq:jobs '*' job 'not msgpack' >/dev/null
rcli blpop gradeq:result:long1 120 >/dev/null
wait_jobs 13 120
for _ in $(seq 1 2400); do [ "$(rcli xlen gradeq:dead)" = 1 ] && break; sleep 0.05; done
page=$(scrape)
check "every line parses as Prometheus text" \
    '! echo "$page" | grep -v "^#" | grep -Ev "^[a-z_]+(\{[a-z_]+=\"[^\"]*\"(,[a-z_]+=\"[^\"]*\")*\})? [0-9.e+-]+$" | grep -q .'
for st in OK TIME_LIMIT OUTPUT_LIMIT; do
    check "jobs_total{$st} matches P:stats" \
        '[ "$(metric "gradeq_jobs_total{status=\"$st\"}")" -eq "$(rcli hget gradeq:stats $st)" ] && [ "$(rcli hget gradeq:stats $st)" -gt 0 ]'
done
check "one label per status: WRONG_ANSWER, INTERACTOR_ERROR and PARTIAL apart" \
    '[ "$(metric "gradeq_jobs_total{status=\"WRONG_ANSWER\"}")" = 1 ] && [ "$(metric "gradeq_jobs_total{status=\"INTERACTOR_ERROR\"}")" = 1 ] &&
     [ "$(metric "gradeq_jobs_total{status=\"PARTIAL\"}")" = 1 ]'
check "a dead letter counted" '[ "$(metric gradeq_dead_letters_total)" = 1 ]'
check "build info" 'echo "$page" | grep -q "^gradeq_build_info{version=\"[0-9.]*\"} 1$"'
check "duration buckets reach the default --max-wall-ms (180 s)" \
    'echo "$page" | grep -q "^gradeq_job_duration_seconds_bucket{le=\"180\"}"'
undocumented() {
    for m in $(echo "$page" | sed -n 's/^# TYPE \([a-z_]*\) .*/\1/p'); do
        grep -q "\`$m" "$(dirname "$0")/../../docs/operations.md" || echo "$m"
    done
}
check "every metric served is documented in operations.md" '[ -z "$(undocumented)" ] || { undocumented; false; }'
check "duration histogram counts every run" \
    '[ "$(metric gradeq_job_duration_seconds_count)" = "$(rcli hget gradeq:stats jobs)" ]'
# 40 jobs waiting at once (one pipeline; each {id, argv} in msgpack by
# hand, as the system python3 may lack the module): each result brings the next
# job in the same round trip, so the job threads make about one per job
# (two or more each when fetched apart).
rt0=$(metric gradeq_redis_round_trips_total)
j0=$(rcli hget gradeq:stats jobs)
python3 -c '
import socket, sys
def fixstr(t):
    return bytes([0xa0 | len(t)]) + t.encode()
cmds = b""
for i in range(40):
    job = b"\x82" + fixstr("id") + fixstr("rt%d" % i) + fixstr("argv") + b"\x91" + fixstr("/bin/true")
    args = [b"XADD", b"gradeq:jobs", b"*", b"job", job]
    cmds += b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(cmds)
got = b""
while got.count(b"\r\n") < 80:  # 40 replies "$N", "<entry id>"
    chunk = s.recv(65536)
    if not chunk:
        sys.exit("redis closed the connection")
    got += chunk
' "$SOCK"
wait_jobs $((j0 + 40)) 60
rt1=$(metric gradeq_redis_round_trips_total)
check "40 waiting jobs: under 1.5 round trips each ($rt0 -> $rt1)" \
    '[ -n "$rt1" ] && [ $((rt1 - rt0)) -ge 40 ] && [ $((rt1 - rt0)) -lt 60 ]'
check "truncated stdout counted" '[ "$(metric "gradeq_output_truncated_total{stream=\"stdout\"}")" = 1 ]'
check "unknown path is 404" '[ "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$port/x")" = 404 ]'
check "bound to loopback by default (only a port given)" \
    'ss -ltn | grep -q "127.0.0.1:$port " && ! ss -ltn | grep -q "0.0.0.0:$port "'
# A client that trickles its request, a byte every 0.3 s for 30 s, holds the
# one-client endpoint for its 2 s at most: a scrape meanwhile is answered,
# and so is the stop.
python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for _ in range(100):
    try: s.send(b"G")
    except OSError: break
    time.sleep(0.3)
' "$port" &
SLOW=$!
for _ in $(seq 1 2400); do ss -tn state established "( dport = :$port )" | grep -q "$port" && break; sleep 0.05; done
check "a scrape while a client trickles its request: answered" 'scrape | grep -q "^gradeq_build_info"'
t0=$(date +%s); kill -TERM $W; wait $W; t1=$(date +%s)
check "... and the worker stops without waiting for it" '[ $((t1 - t0)) -le 10 ]'
kill $SLOW 2>/dev/null; wait $SLOW 2>/dev/null
exit $FAIL
