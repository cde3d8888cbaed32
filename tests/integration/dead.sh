#!/bin/sh
# Dead letters for operators: a job given up on (its worker killed with
# max-deliveries 1) is listed, shown, requeued to a real answer, purged;
# `gradeq stats --watch` refreshes.
set -u
. "$(dirname "$0")/common.inc"
G="$B/gradeq"
start_redis || exit 1
start_worker wa --threads 1 --max-deliveries 1 --claim-idle-ms 1000
WA=$LAST_WORKER
"$G" submit --id d1 --wall-ms 20000 -- /bin/sh -c "$(gate_job)" >/dev/null
wait_pending wa/ 120 # the worker's self-tests may take seconds on a busy machine
kill -9 $WA; wait $WA 2>/dev/null
open_gate
start_worker wb --threads 1 --max-deliveries 1 --claim-idle-ms 1000
first=$(rcli --raw blpop gradeq:result:d1 120 | tr -d '\0')
check "given up after its deliveries: SANDBOX_ERROR result" 'echo "$first" | grep -aq SANDBOX_ERROR'
list=$("$G" dead list)
check "dead list shows it" 'echo "$list" | grep -q "given up after 1 deliveries"'
id=$(echo "$list" | awk 'NR==1 { print $1 }')
check "dead show reads its job" '"$G" dead show "$id" | grep -q "^job id: d1" && "$G" dead show "$id" | grep -qF "argv: /bin/sh -c until [ -e $GATE ]"'
check "dead list --json" '"$G" dead --json list | grep -q "\"reason\":\"given up after 1 deliveries"'
check "requeue" '"$G" dead requeue "$id" | grep -q "^requeued as entry"'
second=$(rcli --raw blpop gradeq:result:d1 120 | tr -d '\0')
check "the requeued job gets a real answer" 'echo "$second" | grep -aq "OK" && ! echo "$second" | grep -aq SANDBOX_ERROR'
check "it left the dead letters" '[ "$(rcli xlen gradeq:dead)" = 0 ]'
rcli xadd gradeq:dead '*' entry 'a"b' reason 'x' >/dev/null
check "dead list --json quotes what P:dead holds" '"$G" dead list --json | python3 -c "import json,sys; json.load(sys.stdin)"'
rcli del gradeq:dead >/dev/null
check "requeue of a missing id fails" '! "$G" dead requeue 1-1 2>/dev/null'
rcli xadd gradeq:dead '*' entry 1-0 reason test >/dev/null
rcli xadd gradeq:dead '*' entry 2-0 reason test >/dev/null
check "purge" '"$G" dead purge | grep -q "purged 2 dead letters" && [ "$(rcli xlen gradeq:dead)" = 0 ]'
# Three screens, however long a busy machine takes to show them (a count
# within a fixed time failed where the start alone took it); two intervals
# at least between the first and the third (the default is shorter).
t0=$(date +%s%N)
"$G" stats --watch --interval 1500 >"$T/watch" 2>&1 &
watch=$!
deadline=$(( $(date +%s) + 120 ))
until [ "$(grep -c "queue:" "$T/watch")" -ge 3 ] || [ "$(date +%s)" -ge "$deadline" ] || ! kill -0 $watch 2>/dev/null; do
    sleep 0.05
done
t1=$(date +%s%N)
kill $watch 2>/dev/null; wait $watch 2>/dev/null
check "stats --watch refreshes, at its --interval" \
    '[ "$(grep -c "queue:" "$T/watch")" -ge 3 ] && [ $(( (t1 - t0) / 1000000 )) -ge 3000 ] || { cat "$T/watch"; false; }'

# msgpack by hand: {"id": ID, "argv": ["/bin/true", <N bytes of 'a'>]}.
job_with_arg() {
    printf '\202\242id\244%s\244argv\222\251/bin/true\333' "$1"
    printf "%08x" "$2" | sed 's/../\\x&/g' | xargs -0 printf
    head -c "$2" /dev/zero | tr '\0' a
}
job_with_arg big1 4194304 > "$T/argv4m"
rcli -x xadd gradeq:jobs '*' job < "$T/argv4m" >/dev/null
r=$(rcli --raw blpop gradeq:result:big1 120 | tr -d '\0')
check "a 4 MiB argument: BAD_JOB at once, naming the limit" \
    'echo "$r" | grep -aq BAD_JOB && echo "$r" | grep -aq "exceeds the limit of 131071 per string"'

# An entry without a job field keeps its fields; show reads it (it once
# freed an uninitialised job).
rcli xadd gradeq:jobs '*' other keepme >/dev/null
for _ in $(seq 1 2400); do [ "$(rcli xlen gradeq:dead)" = 1 ] && break; sleep 0.05; done
check "an entry without job: its fields kept" 'rcli xrange gradeq:dead - + | grep -q keepme'
nid=$(rcli xrange gradeq:dead - + | head -1)
check "dead show of one without job" '"$G" dead show "$nid" | grep -q "^job: none"'
check "options after the subcommand, as before it" \
    '"$G" dead list --redis "$GRADEQ_REDIS" --json | grep -q "$nid" && "$G" dead --json show "$nid" --prefix gradeq | grep -q "\"job_bytes\":-1"'
kill -TERM $LAST_WORKER; wait $LAST_WORKER

# A job over --max-job-bytes: BAD_JOB under its id, not read whole, not kept.
start_worker wc --threads 1 --max-job-bytes 64K
job_with_arg big2 1048576 > "$T/job1m"
rcli -x xadd gradeq:jobs '*' job < "$T/job1m" >/dev/null
r=$(rcli --raw blpop gradeq:result:big2 120 | tr -d '\0')
check "over --max-job-bytes: BAD_JOB under its id" 'echo "$r" | grep -aq BAD_JOB && echo "$r" | grep -aq "max-job-bytes"'
check "... and not dead-lettered" '[ "$(rcli xlen gradeq:dead)" = 1 ]'
printf '\301%s' "$(head -c 100000 /dev/zero | tr '\0' x)" > "$T/junk"
rcli -x xadd gradeq:jobs '*' job < "$T/junk" >/dev/null
for _ in $(seq 1 2400); do [ "$(rcli xlen gradeq:dead)" = 2 ] && break; sleep 0.05; done
check "an oversized entry without an id: at most 4 KiB of it in P:dead" \
    '[ "$(rcli xlen gradeq:dead)" = 2 ] && rcli --raw xrevrange gradeq:dead + - count 1 | grep -qx 100001 && [ "$(rcli --raw xrevrange gradeq:dead + - count 1 | wc -c)" -lt 6000 ]'
did=$(rcli xrevrange gradeq:dead + - count 1 | head -1)
check "a cut dead letter is not requeued" '! "$G" dead requeue "$did" 2>/dev/null'

# Forged fields: an entry's own reason, entry and job_bytes do not pass for
# the worker's; a letter with a job_bytes that is no count (written by
# hand, or by an older worker) does not break the listing; every string
# reaches the terminal escaped.
ESC=$(printf '\033')
rcli xadd gradeq:jobs '*' job 'not msgpack' reason FORGED entry 9-9 job_bytes abc >/dev/null
for _ in $(seq 1 2400); do [ "$(rcli xlen gradeq:dead)" = 3 ] && break; sleep 0.05; done
fid=$(rcli xrevrange gradeq:dead + - count 1 | head -1)
check "a forged reason and entry do not replace the worker's (list, show)" \
    '"$G" dead list 1 | grep -q "^$fid .*bytes  job: trailing bytes" && ! "$G" dead list 1 | grep -q "FORGED\|9-9" && "$G" dead show "$fid" | grep -q "^reason: job: trailing bytes" && ! "$G" dead show "$fid" | grep -q FORGED'
check "... nor a forged job_bytes: the job whole, requeueable" \
    '"$G" dead show "$fid" | grep -q "^job: 11 bytes$" && "$G" dead requeue "$fid" | grep -q "^requeued"'
rcli xadd gradeq:dead '*' entry "$(printf '1-\033]0;pwned\007')" reason "$(printf 'a\033[2Jb')" job x job_bytes abc >/dev/null
check "a job_bytes that is no count: the listing still works" '"$G" dead list >/dev/null && "$G" dead list --json | python3 -c "import json,sys; json.load(sys.stdin)"'
check "reason and entry escaped in plain mode" \
    '! "$G" dead list | grep -aq "$ESC" && "$G" dead list | grep -aqF "a\x1b[2Jb" && "$G" dead list | grep -aqF "1-\x1b]0;pwned\x07"'
# msgpack by hand: {"id": "e1", "argv": ["/bin/\e[2J"]}, dead-lettered by hand.
printf '\202\242id\242e1\244argv\221\251/bin/\033[2J' > "$T/escjob"
rcli -x xadd gradeq:dead '*' entry 3-0 reason r job < "$T/escjob" >/dev/null
eid=$(rcli xrevrange gradeq:dead + - count 1 | head -1)
check "argv escaped by dead show" '! "$G" dead show "$eid" | grep -aq "$ESC" && "$G" dead show "$eid" | grep -aqF "argv: /bin/\x1b[2J"'
kill -TERM $LAST_WORKER; wait $LAST_WORKER
exit $FAIL
