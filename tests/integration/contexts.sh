#!/bin/sh
# Each place a worker can be started on this machine, for real: it either
# runs fully isolated or refuses with how to start it instead, and touches
# no process that is not its own. In each, a bystander job sleeps in one
# slot while a job beside it runs killall -9 and kill(-1) (the bystander
# must finish), a memory hog gets MEMORY_LIMIT, and a process outside
# gradeq (a sleep whose pid is, inside the worker's PID namespace, the
# worker's own) keeps running in its own cgroup. The registry names the
# worker uniquely and gives its pid only as the host knows it.
#
# Contexts here: this shell, and a PID namespace (unshare --pid --fork
# --mount-proc) from it. On a systemd machine (the guest: tests/vm.sh
# --login tests/integration/contexts.sh) also the shipped unit
# (Delegate=yes), systemd-run --scope with and without Delegate=yes, and a
# PID namespace inside a delegated unit, which must refuse: whoever started
# it there shares its cgroup, out of reach.
set -u
. "$(dirname "$0")/common.inc"
P=${GRADEQ_PROGS:-$B/progs}
B=$(cd "$B" && pwd) P=$(cd "$P" && pwd)
# Units with PrivateTmp= do not see $T: Redis and the units' files live
# under /run.
R=$(mktemp -d /run/gradeq-ctx.XXXXXX)
SOCK=$R/redis.sock
export GRADEQ_REDIS="unix://$SOCK"
UNITS=""
BYSTANDER="" X=""
cleanup_ctx() {
    for u in $UNITS; do systemctl stop "$u" 2>/dev/null; systemctl reset-failed "$u" 2>/dev/null; done
    rm -f /run/systemd/system/gradeq-ctx-*.service
    [ -n "$UNITS" ] && systemctl daemon-reload
    [ -n "$BYSTANDER" ] && kill -9 "$BYSTANDER" 2>/dev/null
    cleanup
    rm -rf "$R" ${X:+"$X"}
}
trap cleanup_ctx EXIT
start_redis || exit 1
G() { timeout 300 "$B/gradeq" "$@"; }

systemd=no
[ -d /run/systemd/system ] && command -v systemd-run >/dev/null && systemd=yes
v2=no
grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null && v2=yes
# Whether this shell's cgroup (or one above it) is delegated: a worker in
# a PID namespace started here then shares it with its starter.
delegated() {
    python3 - <<'EOF'
import os, sys
p = open("/proc/self/cgroup").read().split("0::", 1)[1].split("\n")[0]
while p not in ("", "/"):
    for a in ("trusted.delegate", "user.delegate"):
        try:
            if os.getxattr("/sys/fs/cgroup" + p, a) == b"1":
                sys.exit(0)
        except OSError:
            pass
    p = p.rsplit("/", 1)[0]
sys.exit(1)
EOF
}

# wait_until SECONDS CMD: polls CMD (a condition) until true or the deadline.
wait_until() {
    deadline=$(( $(date +%s) + $1 )); shift
    until eval "$1"; do [ "$(date +%s)" -ge "$deadline" ] && return 1; sleep 0.1; done
}
# The outside process: its pid is chosen for the worker inside PID
# namespaces too (ns_last_pid), so a pid of the worker's own namespace
# handed outside names it.
# In a delegated cgroup the worker moves whatever shares it into its
# leaf, as delegation allows: the outside process then lives elsewhere.
if [ $systemd = yes ] && [ $v2 = yes ] && delegated; then
    systemd-run -q --scope --unit gradeq-ctx-bystander-$$ sleep 3600 &
else
    sleep 3600 &
fi
BYSTANDER=$!
wait_until 30 '[ "$(cat /proc/$BYSTANDER/comm)" = sleep ]'
BY_CGROUP=$(cat /proc/$BYSTANDER/cgroup)
host=$(hostname)

# alive PID: running (a child that exited is a zombie until waited for).
alive() { [ -e /proc/"$1" ] && ! grep -q '^State:.*zombie' /proc/"$1"/status 2>/dev/null; }
# stop PID: SIGTERM, then its exit status (137 after a SIGKILL when it
# does not end within 120 s).
stop() {
    kill -TERM "$1"
    wait_until 120 "! alive $1" || kill -9 "$1"
    wait "$1"
}
# The child of process $1 (the only one).
child_of() { cat /proc/"$1"/task/"$1"/children 2>/dev/null | tr -d ' '; }

# jobs CTX PREFIX LOG: the jobs every isolated context must get right.
jobs() {
    ctx=$1 pre=$2 log=$3
    check "$ctx: starts fully isolated" 'grep -q "namespaces yes" "$log" && ! grep -q "missing:" "$log" || { cat "$log"; false; }'
    id=$(G submit --prefix "$pre" --wall-ms 60000 -- /bin/sh -c 'sleep 3; echo bystander-done')
    wait_until 120 'redis-cli -s "$SOCK" xpending "$pre:jobs" workers - + 10 | grep -q .'
    killer=$(G submit --prefix "$pre" --wait 120 --file kill_all="$P/kill_all" -- /bin/sh -c \
        'killall -9 sleep gradeq-worker; exec ./kill_all --really' 2>&1)
    check "$ctx: the killall -9 and kill(-1) job is answered, alive" \
        'echo "$killer" | grep -q "^alive$" && echo "$killer" | grep -q "gradeq: OK" || { echo "$killer"; false; }'
    out=$(G result --prefix "$pre" --wait 120 "$id" 2>&1)
    check "$ctx: the bystander job beside it finishes" 'echo "$out" | grep -q "^bystander-done$" && echo "$out" | grep -q "gradeq: OK"'
    out=$(G submit --prefix "$pre" --wait 120 --json --memory 64M -- "$P/memhog" 200 2>&1)
    check "$ctx: a memory hog, MEMORY_LIMIT, with every protection" \
        'echo "$out" | grep -q "\"status\":\"MEMORY_LIMIT\"" && echo "$out" | grep -q "\"isolation\":\[\"pid_ns\",\"mount_ns\",\"net_ns\",\"ipc_ns\",\"uts_ns\",\"uid\",\"no_new_privs\",\"seccomp\",\"cgroup_memory\",\"cgroup_pids\",\"cgroup_cpu\",\"cgroup_kill\",\"rlimits\",\"fds\",\"clean_env\",\"cgroup_cpu_share\"\]" || { echo "$out"; false; }'
    check "$ctx: the process outside is untouched: alive, in its own cgroup" \
        'alive $BYSTANDER && [ "$(cat /proc/$BYSTANDER/cgroup)" = "$BY_CGROUP" ]'
}

# registry CTX PREFIX NAME_RE PID: the worker's name and pid in P:worker:*.
registry() {
    stats=$(G stats --prefix "$2" --json)
    name=$(echo "$stats" | python3 -c 'import json,sys; w=json.load(sys.stdin)["workers"]; print(w[0]["name"] if len(w) == 1 else "")')
    pid=$(echo "$stats" | python3 -c 'import json,sys; w=json.load(sys.stdin)["workers"]; print(w[0]["pid"] if len(w) == 1 else "")')
    want_name=$3 want_pid=$4
    check "$1: registered as $name, pid $pid (as the host knows it)" \
        '[ "$name" = "$want_name" ] && [ "$pid" = "$want_pid" ]'
}

# --- this shell -------------------------------------------------------------
pre=ctx-here
"$B/gradeq-worker" --prefix $pre --threads 2 >"$T/here.log" 2>&1 &
W=$!; WORKERS="$WORKERS $W"
check "this shell: the worker starts" 'wait_until 120 "grep -q \"threads on Redis\" \"$T/here.log\"" || { cat "$T/here.log"; false; }'
jobs "this shell" $pre "$T/here.log"
registry "this shell" $pre "$host:$W" "$W"
[ $systemd = yes ] && [ $v2 = yes ] && ! delegated &&
    check "this shell: systemd moved the worker (only) into a scope of its own" \
        'grep -q "moved into transient scope gradeq-$W.scope" "$T/here.log" && grep -q "gradeq-$W.scope" /proc/$W/cgroup'
stop $W; rc=$?
check "this shell: drains and exits 0" '[ $rc -eq 0 ]'

# --- a cgroup with a memory limit of its own (a container's) ----------------
# Its jobs are under it: the limit holds them too.
limited() {
    out=$("$@" 2>/dev/null)
    # (v2's peak may pass the parent's limit by what the kernel charged
    # while it reclaimed, in per-CPU batches: 100.2 and 101.05 MiB seen.)
    check "a cgroup limited to 100M: a 272 MiB job allowed 512M is held to it" \
        '[ "$(echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"status\"], d[\"memory_bytes\"] <= 104 << 20)")" = "MEMORY_LIMIT True" ] || { echo "$out"; false; }'
}
job_272="$B/gradeq run --json --memory 512M -- $P/memhog 272"
if [ $v2 = no ]; then
    M=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)/gradeq-ctx-limit-$$
    mkdir "$M" && echo 100M >"$M/memory.limit_in_bytes"
    limited sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$M" $job_272
    find "$M" -depth -type d -exec rmdir {} +
elif [ $systemd = yes ]; then
    limited systemd-run -q --scope -p Delegate=yes -p MemoryMax=100M $job_272
fi

# --- a PID namespace from this shell ---------------------------------------
# Inside, the worker gets the outside process's pid number.
pidns_cmd='echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid && shift && { "$@" & wait $!; }'
pre=ctx-pidns
unshare --pid --fork --mount-proc sh -c "$pidns_cmd" sh $BYSTANDER \
    "$B/gradeq-worker" --prefix $pre --threads 2 >"$T/pidns.log" 2>&1 &
U=$!; WORKERS="$WORKERS $U"
wait_until 120 'grep -q "threads on Redis" "$T/pidns.log" || ! alive $U'
if ! alive $U; then
    # Refused: in a delegated cgroup whose controllers are not handed down
    # yet, the starter (unshare) shares it, invisible from inside.
    wait $U; rc=$?
    check "PID namespace: refuses (in a delegated cgroup shared with its starter), saying how to start instead" \
        '[ $v2 = yes ] && delegated && [ $rc -eq 1 ] && grep -q "outside our PID namespace" "$T/pidns.log" &&
         grep -q "systemd-run --scope -p Delegate=yes" "$T/pidns.log" || { cat "$T/pidns.log"; false; }'
    check "... and the process outside is untouched" 'alive $BYSTANDER && [ "$(cat /proc/$BYSTANDER/cgroup)" = "$BY_CGROUP" ]'
else
    check "PID namespace: the worker starts" 'grep -q "threads on Redis" "$T/pidns.log" || { cat "$T/pidns.log"; false; }'
    W=$(child_of "$(child_of $U)")
    WORKERS="$WORKERS $W"
    ino=$(stat -L -c %i /proc/$W/ns/pid)
    check "PID namespace: the worker's pid there is the outside process's ($BYSTANDER)" \
        'grep -q "^NSpid:.*[[:space:]]$BYSTANDER\$" /proc/$W/status'
    jobs "PID namespace" $pre "$T/pidns.log"
    # Its /proc is its namespace's: the host's pid cannot be known there.
    registry "PID namespace" $pre "$host:pidns$ino-$BYSTANDER" 0
    [ $systemd = yes ] && [ $v2 = yes ] && ! delegated &&
        check "PID namespace: systemd moved the worker itself, named by the kernel" \
            'grep -q "moved into transient scope gradeq-pidns$ino-$BYSTANDER.scope" "$T/pidns.log" && grep -q "gradeq-pidns$ino-$BYSTANDER.scope" /proc/$W/cgroup'
    kill -TERM $W
    wait_until 120 "! alive $U" || kill -9 $U
    wait $U; rc=$?
    check "PID namespace: drains and exits 0" '[ $rc -eq 0 ]'
fi

[ $systemd = yes ] && [ $v2 = yes ] || exit $FAIL

# --- systemd units (a systemd machine with cgroup v2) -----------------------
# The worker where units can run it: ProtectHome= hides /root, and /run
# is mounted noexec.
X=$(mktemp -d /var/lib/gradeq-ctx.XXXXXX)
cp "$B/gradeq-worker" "$X/gradeq-worker"
chmod 755 "$R" "$X" "$X/gradeq-worker"
unit_main() { systemctl show -p MainPID --value "$1"; }

# The shipped unit, its paths pointed at this build and a file of ours.
pre=ctx-unit
u=gradeq-ctx-shipped.service
printf 'GRADEQ_REDIS=%s\nGRADEQ_PREFIX=%s\nGRADEQ_THREADS=2\n' "$GRADEQ_REDIS" $pre >"$R/worker.env"
chmod 600 "$R/worker.env"
sed -e "s|^ExecStart=.*|ExecStart=$X/gradeq-worker|" -e "s|^EnvironmentFile=.*|EnvironmentFile=$R/worker.env|" \
    -e "s|^\[Service\]|[Service]\nStandardOutput=file:$R/shipped.log\nStandardError=file:$R/shipped.log|" \
    deploy/systemd/gradeq-worker.service >/run/systemd/system/$u
UNITS="$UNITS $u"
systemctl daemon-reload && systemctl start $u
check "the shipped unit: starts" 'wait_until 120 "grep -q \"threads on Redis\" \"$R/shipped.log\"" || { systemctl status --no-pager $u; cat "$R/shipped.log"; false; }'
jobs "the shipped unit" $pre "$R/shipped.log"
M=$(unit_main $u)
registry "the shipped unit" $pre "$host:$M" "$M"
systemctl stop $u
check "the shipped unit: stops cleanly" '[ "$(systemctl is-active $u)" = inactive ]'

# systemd-run --scope, plain (not delegated: the worker asks for a scope of
# its own) and with Delegate=yes (the worker arranges it).
for d in no yes; do
    pre=ctx-scope-$d
    systemd-run -q --scope -p Delegate=$d --unit gradeq-ctx-scope-$d-$$ \
        "$B/gradeq-worker" --prefix $pre --threads 2 >"$T/scope-$d.log" 2>&1 &
    W=$!; WORKERS="$WORKERS $W"
    check "systemd-run --scope -p Delegate=$d: starts" 'wait_until 120 "grep -q \"threads on Redis\" \"$T/scope-$d.log\"" || { cat "$T/scope-$d.log"; false; }'
    jobs "systemd-run --scope -p Delegate=$d" $pre "$T/scope-$d.log"
    stop $W; rc=$?
    check "systemd-run --scope -p Delegate=$d: drains and exits 0" '[ $rc -eq 0 ]'
done

# A PID namespace inside a delegated unit: the refusal.
u=gradeq-ctx-pidns-$$.service
UNITS="$UNITS $u"
systemd-run -q --unit $u -p Delegate=yes -p StandardOutput=file:$R/unit-pidns.log -p StandardError=file:$R/unit-pidns.log \
    unshare --pid --fork --mount-proc "$X/gradeq-worker" --redis "$GRADEQ_REDIS" --prefix ctx-unit-pidns --threads 2
check "PID namespace in a delegated unit: refuses, saying how to start instead" \
    'wait_until 120 "! systemctl is-active -q $u" && grep -q "outside our PID namespace" "$R/unit-pidns.log" &&
     grep -q "systemd-run --scope -p Delegate=yes" "$R/unit-pidns.log" || { cat "$R/unit-pidns.log"; false; }'
check "... and the process outside is untouched" 'alive $BYSTANDER && [ "$(cat /proc/$BYSTANDER/cgroup)" = "$BY_CGROUP" ]'
exit $FAIL
