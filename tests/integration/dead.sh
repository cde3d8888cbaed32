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
"$G" submit --id d1 --wall-ms 20000 -- /bin/sleep 1 >/dev/null
wait_pending wa/ 10
kill -9 $WA; wait $WA 2>/dev/null
start_worker wb --threads 1 --max-deliveries 1 --claim-idle-ms 1000
first=$(rcli --raw blpop gradeq:result:d1 30 | tr -d '\0')
check "given up after its deliveries: SANDBOX_ERROR result" 'echo "$first" | grep -aq SANDBOX_ERROR'
list=$("$G" dead list)
check "dead list shows it" 'echo "$list" | grep -q "given up after 1 deliveries"'
id=$(echo "$list" | awk 'NR==1 { print $1 }')
check "dead show reads its job" '"$G" dead show "$id" | grep -q "^job id: d1" && "$G" dead show "$id" | grep -q "^argv: /bin/sleep 1"'
check "dead list --json" '"$G" dead --json list | grep -q "\"reason\":\"given up after 1 deliveries"'
check "requeue" '"$G" dead requeue "$id" | grep -q "^requeued as entry"'
second=$(rcli --raw blpop gradeq:result:d1 30 | tr -d '\0')
check "the requeued job gets a real answer" 'echo "$second" | grep -aq "OK" && ! echo "$second" | grep -aq SANDBOX_ERROR'
check "it left the dead letters" '[ "$(rcli xlen gradeq:dead)" = 0 ]'
check "requeue of a missing id fails" '! "$G" dead requeue 1-1 2>/dev/null'
rcli xadd gradeq:dead '*' entry 1-0 reason test >/dev/null
rcli xadd gradeq:dead '*' entry 2-0 reason test >/dev/null
check "purge" '"$G" dead purge | grep -q "purged 2 dead letters" && [ "$(rcli xlen gradeq:dead)" = 0 ]'
out=$(timeout 2.5 "$G" stats --watch --interval 500)
check "stats --watch refreshes" '[ "$(echo "$out" | grep -c "queue:")" -ge 3 ]'
kill -TERM $LAST_WORKER; wait $LAST_WORKER
exit $FAIL
