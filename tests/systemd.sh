#!/bin/sh
# The systemd units for real, on a machine whose PID 1 is systemd (the
# guest: tests/vm.sh --login tests/systemd.sh): `make install`, the
# documented environment file, `systemctl start`, jobs answered (a run, a
# memory hog, a grading), `systemctl stop` draining a running job, what
# status and the journal say, and the @ template serving a second queue
# beside the first. Not part of `make test`: it installs into /usr/local
# and starts services, which only a throwaway machine should get. Redis
# listens on loopback TCP (the unit's PrivateTmp hides a socket in /tmp).
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] && [ -d /run/systemd/system ] || { echo "tests/systemd.sh: needs root on a machine booted with systemd" >&2; exit 2; }
FAIL=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; FAIL=1; fi; }
T=$(mktemp -d)
PORT=6391
export GRADEQ_REDIS="redis://127.0.0.1:$PORT/0"
cleanup() {
    systemctl stop gradeq-worker gradeq-worker@q2 2>/dev/null
    [ -f "$T/redis.pid" ] && kill -9 "$(cat "$T/redis.pid")" 2>/dev/null
    rm -rf "$T" /etc/gradeq/worker.env /etc/gradeq/q2.env
}
trap cleanup EXIT
G="timeout 300 /usr/local/bin/gradeq"

make -s install >"$T/install.log" 2>&1; rc=$?
check "make install" '[ $rc -eq 0 ] || { tail "$T/install.log"; false; }'
systemctl daemon-reload
# The installed units as systemd reads them, their real ExecStart= and
# Documentation= included (man checks the page where man can find it).
man=--man=no; command -v man >/dev/null 2>&1 && man=--man=yes
units=/usr/local/lib/systemd/system
ln -s "$units/gradeq-worker@.service" "$T/gradeq-worker@q2.service"
for u in "$units/gradeq-worker.service" "$T/gradeq-worker@q2.service"; do
    check "systemd-analyze verify ${u##*/} ($man)" 'out=$(systemd-analyze verify $man "$u" 2>&1); [ -z "$out" ] || { echo "$out"; false; }'
done
# docs/operations.md gives the unit's rating; a looser unit would rate higher.
exposure=$(systemd-analyze security --no-pager gradeq-worker.service 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
check "systemd-analyze security rates the unit OK or better (got ${exposure:-nothing})" \
    '[ -n "$exposure" ] && awk -v e="$exposure" "BEGIN { exit !(e < 5.0) }"'
redis-server --bind 127.0.0.1 --port $PORT --save '' --appendonly no --daemonize yes \
    --pidfile "$T/redis.pid" --logfile "$T/redis.log" --dir "$T"
for _ in $(seq 1 200); do redis-cli -p $PORT ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done

# The documented file, with the example Redis replaced by ours.
mkdir -p /etc/gradeq
sed "s|^GRADEQ_REDIS=.*|GRADEQ_REDIS=$GRADEQ_REDIS|" /usr/local/share/doc/gradeq/gradeq-worker.env >/etc/gradeq/worker.env
# One slot, so the run after the memory hog is in the hog's slot.
echo GRADEQ_THREADS=1 >>/etc/gradeq/worker.env
chmod 0600 /etc/gradeq/worker.env
systemctl start gradeq-worker; rc=$?
check "systemctl start gradeq-worker" '[ $rc -eq 0 ] && systemctl is-active -q gradeq-worker'

out=$($G submit --wait 120 -- /bin/sh -c 'echo hello' 2>&1)
check "a job answered by the service" 'echo "$out" | grep -q "^hello$" && echo "$out" | grep -q "gradeq: OK"'
out=$($G submit --wait 120 --memory 64M --wall-ms 60000 --cpu-ms 20000 -- /usr/bin/python3 -c 'x = b"x" * (200 << 20); print(len(x))' 2>&1)
check "a memory hog: MEMORY_LIMIT" 'echo "$out" | grep -q "gradeq: MEMORY_LIMIT"'
out=$($G submit --wait 120 --memory 64M -- /bin/sh -c 'exit 3' 2>&1)
check "the next run in the slot is its own: exit 3 is RUNTIME_ERROR" 'echo "$out" | grep -q "gradeq: RUNTIME_ERROR"'

mkdir -p "$T/tests"
for i in 1 2 3; do echo "$i $i" >"$T/tests/$i.in"; echo $((i + i)) >"$T/tests/$i.out"; done
$G submit --wait 300 --json --tests "$T/tests" --file main.c=tests/integration/grade/add.c \
    --compile 'gcc -O2 -o main main.c' -- ./main >"$T/grade.json" 2>/dev/null
check "a grading job (gcc, 3 tests) through the service: OK 3/3" \
    '[ "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[\"status\"], d[\"passed\"], d[\"compile\"][\"status\"])" "$T/grade.json")" = "OK 3 OK" ]'

check "the journal says which cgroup it took" 'journalctl -q -u gradeq-worker --no-pager | grep -q "cgroup v2"'
check "systemctl status shows it running, with its slots' cgroups" \
    'systemctl status --no-pager gradeq-worker >"$T/status" 2>&1; grep -q "active (running)" "$T/status" && grep -q "gradeq-supervisor" "$T/status"'

# Drain: a job running when the stop comes is finished and published.
id=$($G submit --wall-ms 60000 -- /bin/sleep 4)
for _ in $(seq 1 600); do redis-cli -p $PORT xpending gradeq:jobs workers - + 10 | grep -q . && break; sleep 0.05; done
systemctl stop gradeq-worker; rc=$?
out=$($G result "$id" 2>&1)
check "systemctl stop drained the running job (its result published)" '[ $rc -eq 0 ] && echo "$out" | grep -q "gradeq: OK"'
check "... and the service is inactive, not failed" '[ "$(systemctl is-active gradeq-worker)" = inactive ]'
# The worker's own line: systemd's "Stopping ..." would match a looser one.
check "the journal says it drained the running job" 'journalctl -q -u gradeq-worker --no-pager | grep -q "draining (1 running)"'

# The template: a second queue (prefix q2) beside the first.
sed 's|^#GRADEQ_PREFIX=.*|GRADEQ_PREFIX=q2|' /etc/gradeq/worker.env >/etc/gradeq/q2.env
chmod 0600 /etc/gradeq/q2.env
systemctl start gradeq-worker gradeq-worker@q2; rc=$?
check "gradeq-worker and gradeq-worker@q2 side by side" '[ $rc -eq 0 ] && systemctl is-active -q gradeq-worker gradeq-worker@q2'
a=$($G submit --wait 120 -- /bin/sh -c 'echo first' 2>&1)
b=$($G submit --wait 120 --prefix q2 -- /bin/sh -c 'echo second' 2>&1)
check "each queue answered by its own instance" 'echo "$a" | grep -q "^first$" && echo "$b" | grep -q "^second$" &&
    [ "$(redis-cli -p $PORT hget q2:stats jobs)" = 1 ]'
systemctl stop gradeq-worker gradeq-worker@q2
exit $FAIL
