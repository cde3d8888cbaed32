#!/bin/sh
# deploy/redis/users.acl and redis.conf for real: a private redis-server
# loads both (passwords set by deploy/redis/acl-passwords.sh), a worker runs
# as gradeq-worker, `gradeq submit` as gradeq-client, `gradeq stats` as
# gradeq-monitor. Every path the worker takes (fetch, publish, dead letter,
# claim after a kill, heartbeat, drain) must cause no ACL denial; what a
# role must not do is refused.
set -u
. "$(dirname "$0")/common.inc"
D=$(cd "$(dirname "$0")/../../deploy/redis" && pwd)

ADMIN_PW=admin-$$-pw WORKER_PW='w:pw/with@odd%chars' CLIENT_PW=client-$$ MONITOR_PW=monitor-$$
GRADEQ_ADMIN_PASSWORD=$ADMIN_PW GRADEQ_WORKER_PASSWORD=$WORKER_PW GRADEQ_CLIENT_PASSWORD=$CLIENT_PW \
    GRADEQ_MONITOR_PASSWORD=$MONITOR_PW "$D/acl-passwords.sh" "$D/users.acl" > "$T/users.acl" || exit 1
check "no password is written in clear" '! grep -q -e "$WORKER_PW" -e "$ADMIN_PW" "$T/users.acl"'

# The shipped redis.conf, with only the paths and the listener replaced.
redis-server "$D/redis.conf" --port 0 --unixsocket "$SOCK" --unixsocketperm 700 --dir "$T" \
    --aclfile "$T/users.acl" --maxmemory 256mb --daemonize yes --pidfile "$T/redis.pid" \
    --logfile "$T/redis.log" || { cat "$T/redis.log"; exit 1; }
admin() { redis-cli -s "$SOCK" --user gradeq-admin --pass "$ADMIN_PW" --no-auth-warning "$@"; }
worker() { redis-cli -s "$SOCK" --user gradeq-worker --pass "$WORKER_PW" --no-auth-warning "$@"; }
client() { redis-cli -s "$SOCK" --user gradeq-client --pass "$CLIENT_PW" --no-auth-warning "$@"; }
monitor() { redis-cli -s "$SOCK" --user gradeq-monitor --pass "$MONITOR_PW" --no-auth-warning "$@"; }
rcli() { admin "$@"; } # for common.inc's wait_jobs and wait_pending
for _ in $(seq 1 2400); do admin ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
check "redis.conf and users.acl load" 'admin ping | grep -q PONG'
check "AOF on, noeviction, bulk cap" 'admin config get appendonly | grep -qx yes && admin config get maxmemory-policy | grep -qx noeviction && admin config get proto-max-bulk-len | grep -qx 100663296'
check "no anonymous access" 'redis-cli -s "$SOCK" ping 2>&1 | grep -q NOAUTH'
check "shipped ACL alone lets nobody in" 'redis-cli -s "$SOCK" --user gradeq-worker --pass "" --no-auth-warning ping 2>&1 | grep -q WRONGPASS'

# Percent-encoded like any URL: the worker's password has : / @ %.
enc() { printf '%s' "$1" | sed -e 's/%/%25/g' -e 's/:/%3A/g' -e 's|/|%2F|g' -e 's/@/%40/g' -e 's/&/%26/g'; }
URL_W="unix://$SOCK?user=gradeq-worker&password=$(enc "$WORKER_PW")"
URL_C="unix://$SOCK?user=gradeq-client&password=$CLIENT_PW"
URL_M="unix://$SOCK?user=gradeq-monitor&password=$MONITOR_PW"

start_worker acl1 --redis "$URL_W" --threads 2 --claim-idle-ms 1000
W1=$LAST_WORKER
admin acl log reset >/dev/null
out=$(GRADEQ_REDIS=$URL_C "$B/gradeq" submit --wait 120 -- /bin/echo hi 2>&1)
check "submit as gradeq-client, run as gradeq-worker" 'echo "$out" | grep -qx hi && echo "$out" | grep -q "gradeq: OK"'
# What the Python and Node clients use: results read in place, the results stream followed.
check "client: reads results in place and follows the results stream" \
    'client lindex gradeq:result:none 0 | grep -qv NOPERM && client blmove gradeq:result:none gradeq:result:none 0.01 LEFT LEFT | grep -qv NOPERM &&
     client xrevrange gradeq:results + - count 1 | grep -q result && client xread count 1 streams gradeq:results 0 | grep -q result'
check "worker registered (heartbeat HSET + EXPIRE)" '[ "$(admin exists gradeq:worker:acl1)" = 1 ] && [ "$(admin ttl gradeq:worker:acl1)" -gt 0 ]'
GRADEQ_REDIS=$URL_C "$B/gradeq" submit --id r1 --wait 120 -- /bin/echo r1 >/dev/null 2>&1
check "client: submit --wait 0 (no time limit)" 'GRADEQ_REDIS=$URL_C timeout 180 "$B/gradeq" submit --wait 0 -- /bin/echo zero 2>&1 | grep -qx zero'
stats=$(GRADEQ_REDIS=$URL_M "$B/gradeq" stats 2>&1)
check "gradeq stats as gradeq-monitor" 'echo "$stats" | grep -q "OK=3" && echo "$stats" | grep -q "1 live worker"'
check "gradeq stats --json as gradeq-monitor" 'GRADEQ_REDIS=$URL_M "$B/gradeq" stats --json | grep -q "\"dead\":0"'

check "the Python clients as gradeq-client (run, result, follow; asyncio)" \
    'PYTHONPATH=clients/python /usr/bin/python3 -c "
import asyncio, sys, gradeq, gradeq.aio
c = gradeq.Client(sys.argv[1])
r = c.run({\"argv\": [\"echo\", \"py\"]}, 20)
assert r.ok and r.stdout == b\"py\n\" and c.result(r.id, 0).ok, r
assert next(iter(c.follow(\"0-0\")))[1].status
async def main():
    async with gradeq.aio.Client(sys.argv[1]) as a:
        assert (await a.run({\"argv\": [\"true\"]}, 20)).ok
asyncio.run(main())
" "$URL_C"'

# Dead letter (no readable id) and a bad job answered BAD_JOB: both scripts.
admin xadd gradeq:jobs '*' job 'not msgpack' >/dev/null
printf '\202\242id\244bad1\244argv\220' > "$T/bad"
client -x xadd gradeq:jobs '*' job < "$T/bad" >/dev/null
check "dead-lettered as gradeq-worker" 'wait_jobs 2 120; for _ in $(seq 1 2400); do [ "$(admin xlen gradeq:dead)" = 1 ] && break; sleep 0.05; done; [ "$(admin xlen gradeq:dead)" = 1 ]'
check "BAD_JOB answered, client BLPOPs it" 'client blpop gradeq:result:bad1 120 | grep -q BAD_JOB'

# Claim after kill -9 (XAUTOCLAIM in a script), touch of a long job (XCLAIM).
GRADEQ_REDIS=$URL_C "$B/gradeq" submit --id slow1 --wall-ms 20000 -- /bin/sh -c "$(gate_job)" >/dev/null
wait_pending acl1/ 120
kill -9 $W1; wait $W1 2>/dev/null
open_gate
start_worker acl2 --redis "$URL_W" --threads 2 --claim-idle-ms 1000
W2=$LAST_WORKER
GRADEQ_REDIS=$URL_C "$B/gradeq" submit --id slow2 --wall-ms 20000 -- /bin/sleep 2 >/dev/null
check "claimed job finished by the new worker" 'client blpop gradeq:result:slow1 120 | grep -a -q acl2'
check "long job kept (touched) and finished" 'client blpop gradeq:result:slow2 120 | grep -a -q acl2'
kill -TERM $W2; wait $W2; rc=$?
check "drain exits 0 and unregisters (DEL)" '[ $rc -eq 0 ] && [ "$(admin exists gradeq:worker:acl2)" = 0 ]'
HAS_DEAD=no; "$B/gradeq" dead --help >/dev/null 2>&1 && HAS_DEAD=yes
if [ $HAS_DEAD = yes ]; then
    DEADID=$(admin xrange gradeq:dead - + count 1 | head -1)
    check "gradeq dead list/show as gradeq-monitor" 'GRADEQ_REDIS=$URL_M "$B/gradeq" dead list | grep -q "$DEADID" && GRADEQ_REDIS=$URL_M "$B/gradeq" dead show "$DEADID" >/dev/null'
fi

# Following every result, and fetching one later, as gradeq-client (the
# backends' user) and as gradeq-monitor; `gradeq result` leaves it there.
check "client: XREAD follows P:results" 'client xread count 10 streams gradeq:results 0-0 | grep -q bad1'
check "monitor: XREAD follows P:results" 'monitor xread count 10 streams gradeq:results 0-0 | grep -q bad1'
check "client: gradeq result ID, twice (it stays)" 'GRADEQ_REDIS=$URL_C "$B/gradeq" result r1 2>&1 | grep -qx r1 && GRADEQ_REDIS=$URL_C "$B/gradeq" result --wait 120 r1 2>&1 | grep -qx r1'
check "client: gradeq result ID --wait for one not there: exit 4" '[ "$(GRADEQ_REDIS=$URL_C "$B/gradeq" result nosuch --wait 1 >/dev/null 2>&1; echo $?)" = 4 ]'

# Every command of docs/operations.md's monitoring block, as the user it
# names (gradeq-monitor), read from the document itself; BLOCK 0 (follow
# forever) is bounded here.
OPS=$(dirname "$0")/../../docs/operations.md
sed -n '/^R="redis-cli --user gradeq-monitor/,/^```/p' "$OPS" | grep -e '^\$R ' -e '^gradeq ' | sed 's/  *# .*//' > "$T/ops"
check "operations.md lists its commands" '[ "$(wc -l < "$T/ops")" -ge 10 ]'
R=monitor
while IFS= read -r line; do
    line=$(printf '%s' "$line" | sed -e 's/BLOCK 0 /BLOCK 100 /' -e 's/^gradeq stats --watch/timeout 3 gradeq stats --watch/')
    out=$(GRADEQ_REDIS=$URL_M PATH="$B:$PATH" eval "$line" 2>&1 </dev/null)
    check "operations.md as gradeq-monitor: $line" '! printf "%s" "$out" | grep -q -e NOPERM -e "ERR" -e "no permissions"'
done < "$T/ops"

check "no ACL denial on any of these paths" '[ -z "$(admin acl log 100)" ]'
check "no NOPERM in the workers' logs" '! grep -q NOPERM "$T"/acl*.log'

# What each role must not do.
denied() { "$@" 2>&1 | grep -q -e NOPERM -e "user executing the script can.t run"; }
check "client: no DEL" 'denied client del gradeq:jobs'
check "client: no other keys" 'denied client xadd gradeq:results "*" id x && denied client hincrby gradeq:stats OK 1 && denied client set other 1'
check "client: no writes through a script" "denied client eval \"return redis.call('del', KEYS[1])\" 1 gradeq:jobs"
check "client: no reading the queue" 'denied client xrange gradeq:jobs - +'
check "worker: no FLUSHALL, KEYS, CONFIG" 'denied worker flushall && denied worker keys "*" && denied worker config get maxmemory'
check "worker: no keys outside the prefix" 'denied worker set other 1 && denied worker hset other f 1'
check "monitor: no writes" 'denied monitor del gradeq:stats && denied monitor hset gradeq:stats x 1 && denied monitor xadd gradeq:jobs "*" job x'
check "monitor: no writes through a script" "denied monitor eval \"return redis.call('del', KEYS[1])\" 1 gradeq:stats"
check "monitor: what KEDA and redis-cli watching use" 'monitor xlen gradeq:jobs >/dev/null && monitor xinfo groups gradeq:jobs | grep -q workers && monitor info server | grep -q redis_version'
if [ $HAS_DEAD = yes ]; then
    check "gradeq dead requeue: refused to gradeq-monitor, done by gradeq-admin" '! GRADEQ_REDIS=$URL_M "$B/gradeq" dead requeue "$DEADID" 2>&1 | grep -q requeued &&
        GRADEQ_REDIS="unix://$SOCK?user=gradeq-admin&password=$ADMIN_PW" "$B/gradeq" dead requeue "$DEADID" | grep -q requeued'
fi
check "every denial above is in the ACL log" '[ "$(admin acl log 100 | grep -c "^reason")" -ge 10 ]'

[ $FAIL -eq 0 ] || { for f in "$T"/*.log; do echo "--- $f"; tail -20 "$f"; done; }
exit $FAIL
