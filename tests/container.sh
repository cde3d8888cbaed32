#!/bin/sh
# A container's view of a cgroup v2 host, for real, on a machine whose PID 1
# is systemd (the guest: tests/vm.sh --login tests/container.sh). What
# Docker and Kubernetes give a container with a private cgroup namespace is
# made here from the same parts: a scope with Delegate=yes (the container's
# cgroup, as the systemd cgroup driver makes it), then new cgroup, mount and
# PID namespaces, a cgroup2 mount that shows only that cgroup as its root,
# and no systemd to ask. Inside, gradeq must find the namespace's root its
# own, move what runs there into a leaf, give the slots the rest, and hold
# every limit with each run's own accounting: through `gradeq run` and
# through a worker started as a container's command. Not part of `make
# test`: the development machines are cgroup v1 hybrids.
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] && [ -d /run/systemd/system ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null ||
    { echo "tests/container.sh: needs root on a systemd machine with cgroup v2 unified" >&2; exit 2; }
B=${GRADEQ_BIN:-build}
P=${GRADEQ_PROGS:-$B/progs}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
unit=gradeq-container-$$

# The container's own command, run inside its namespaces.
cat >"$T/inside.sh" <<'EOF'
set -u
B=$1 P=$2 T=$3
FAIL=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; FAIL=1; fi; }
# The host's cgroup2 mount goes first: the same hierarchy cannot be mounted
# over itself, and a container never sees the host's anyway.
mount --make-rprivate / && umount -l /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup &&
    mount -t tmpfs tmpfs /run/systemd ||
    { echo "FAIL the container's mounts"; exit 1; }
check "inside: the cgroup namespace's root is ours (/proc/self/cgroup says 0::/)" '[ "$(cat /proc/self/cgroup)" = "0::/" ]'
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

"$B/gradeq" run --json --memory 64M -- "$P/greet" >"$T/hello.json" 2>"$T/hello.err"
check "gradeq run: OK, with every protection" \
    '[ "$(json "d[\"status\"], \" \".join(d[\"isolation\"])" <"$T/hello.json")" = "OK pid_ns mount_ns net_ns ipc_ns uts_ns uid no_new_privs seccomp cgroup_memory cgroup_pids cgroup_cpu cgroup_kill rlimits fds clean_env cgroup_cpu_share" ] || { cat "$T/hello.err"; false; }'
check "... and its one line says what it did with the cgroup" 'grep -q "cgroup v2" "$T/hello.err" && grep -q "gradeq-supervisor" "$T/hello.err"'
check "... having moved the container's processes out of its root" \
    '[ -z "$(cat /sys/fs/cgroup/cgroup.procs)" ] && grep -qx "0::/gradeq-supervisor" /proc/self/cgroup'
check "a program that ran reports memory" '[ "$(json "d[\"memory_bytes\"] > 0" <"$T/hello.json")" = True ]'
"$B/gradeq" run --json --memory 64M -- "$P/memhog" 200 >"$T/hog.json" 2>/dev/null
check "a memory hog: MEMORY_LIMIT" '[ "$(json "d[\"status\"]" <"$T/hog.json")" = MEMORY_LIMIT ]'
"$B/gradeq" run --json --memory 64M -- "$P/exit3" >"$T/exit3.json" 2>/dev/null
check "the next run is its own: RUNTIME_ERROR, its own peak" \
    '[ "$(json "d[\"status\"], d[\"memory_bytes\"] < (32 << 20)" <"$T/exit3.json")" = "RUNTIME_ERROR True" ]'
"$B/gradeq" run --json --processes 16 --cpu-ms 1000 -- "$P/forkbomb" --really >"$T/bomb.json" 2>/dev/null
check "a fork bomb: a time (or memory: its processes' kernel memory) limit, and nothing of it left" \
    '[ "$(json "d[\"status\"] in (\"TIME_LIMIT\", \"WALL_TIME_LIMIT\", \"MEMORY_LIMIT\")" <"$T/bomb.json")" = True ] &&
     [ -z "$(find /sys/fs/cgroup -name cgroup.procs ! -path "*/gradeq-supervisor/*" -exec cat {} +)" ]'

# The worker as the container's command, its Redis beside it. One slot, so
# the runs after the hog are in the hog's slot.
S=$T/redis.sock
redis-server --port 0 --unixsocket "$S" --unixsocketperm 700 --dir "$T" --save '' --appendonly no \
    --daemonize yes --pidfile "$T/redis.pid" --logfile "$T/redis.log"
for _ in $(seq 1 200); do redis-cli -s "$S" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
export GRADEQ_REDIS="unix://$S"
"$B/gradeq-worker" --threads 1 >"$T/worker.log" 2>&1 &
worker=$!
out=$(timeout 300 "$B/gradeq" submit --wait 120 --memory 64M -- "$P/memhog" 200 2>&1)
check "worker: a memory hog, MEMORY_LIMIT" 'echo "$out" | grep -q "gradeq: MEMORY_LIMIT"'
for i in 1 2 3 4; do
    out=$(timeout 300 "$B/gradeq" submit --wait 120 --json --memory 64M -- "$P/exit3" 2>/dev/null)
    check "worker: exit 3 after it ($i), RUNTIME_ERROR with its own peak" \
        '[ "$(echo "$out" | json "d[\"status\"], d[\"memory_bytes\"] < (32 << 20)")" = "RUNTIME_ERROR True" ]'
done
check "worker: its start-up line says cgroup v2" 'grep -q "cgroup v2" "$T/worker.log" || { cat "$T/worker.log"; false; }'
kill -TERM "$worker"; wait "$worker"; rc=$?
check "worker: drains and exits 0 on TERM" '[ $rc -eq 0 ] || { cat "$T/worker.log"; false; }'
kill -9 "$(cat "$T/redis.pid")"
exit $FAIL
EOF

# The container: a delegated scope S (the cgroup a container runtime makes
# under systemd), the runtime's shim in S/shim and the container in S/ct
# with S's controllers given to both, as the container's parent slice
# gives them to it. The container's first process moves itself into S/ct,
# then takes its cgroup namespace there: what it sees as / is S/ct alone.
cat >"$T/launch.sh" <<'EOF'
set -u
S=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
mkdir "$S/shim" "$S/ct" && echo $$ >"$S/shim/cgroup.procs" &&
    sed 's/\([a-z]*\)/+\1/g' "$S/cgroup.controllers" >"$S/cgroup.subtree_control" ||
    { echo "FAIL making the container's cgroup in $S"; exit 1; }
unshare --pid --mount --fork --kill-child --mount-proc \
    sh -c 'echo $$ >"$1/ct/cgroup.procs" && shift && exec unshare --cgroup sh "$@"' sh "$S" "$@"
rc=$?
# Nothing may be left in the container's cgroups: each one comes away.
find "$S/ct" -depth -type d -exec rmdir {} + || { echo "FAIL a cgroup of the container still held something"; rc=1; }
sed 's/\([a-z]*\)/-\1/g' "$S/cgroup.controllers" >"$S/cgroup.subtree_control"
echo $$ >"$S/cgroup.procs" && rmdir "$S/shim"
exit $rc
EOF
# --scope: the launcher runs as our child, in the scope systemd made. The
# PID namespace ends everything in it when its first process exits, and
# --kill-child ends that one when unshare goes (the outer bound included).
timeout --kill-after=10 900 systemd-run -q --scope -p Delegate=yes --unit "$unit" \
    sh "$T/launch.sh" "$T/inside.sh" "$B" "$P" "$T" </dev/null
rc=$?
[ "$(systemctl is-active "$unit.scope" 2>/dev/null)" = active ] && { echo "FAIL the container's scope outlived it"; rc=1; }
exit $rc
