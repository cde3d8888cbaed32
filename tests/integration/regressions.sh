#!/bin/sh
# Regression tests for bugs found in review, one check each.
set -u
. "$(dirname "$0")/common.inc"
P=${GRADEQ_PROGS:-build/progs}

start_redis || exit 1

# A job's transcript_bytes reached the relay's allocation unchecked: the
# worker's --max-stdout caps it now, as any other output.
start_worker wt --threads 1 --max-stdout 1K
t=$("$B/gradeq" submit --wait 120 --json --transcript 64K --interactor "$P/guess_interactor" -- "$P/guess_solver" right |
    python3 -c "import json,sys,base64; print(len(base64.b64decode(json.load(sys.stdin)['transcript'])))")
check "a job's transcript is capped by the worker's maximum" '[ "$t" -gt 0 ] && [ "$t" -le 1024 ]'
kill -TERM $LAST_WORKER; wait $LAST_WORKER

# A file placed in /box (a job's file, the compile step's output placed
# for every test) was charged to the worker and writable by the run: mapped
# shared, it served as memory past the run's limit. Placed files are
# root's now; through gradeq run, gradeq grade and the worker, a 48 MiB
# file under a 32 MiB limit is never used as memory.
head -c 48M /dev/zero > "$T/data48"
out=$("$B/gradeq" run --memory 32M --file data.bin="$T/data48" -- "$P/map_placed" data.bin 48 2>&1)
check "gradeq run: a placed job file is not memory" \
    'echo "$out" | grep -q "^open errno=EACCES chmod errno=EPERM" && echo "$out" | grep -q "^gradeq: RUNTIME_ERROR exit 1"'
mkdir -p "$T/none"; : > "$T/none/1.in"; : > "$T/none/1.out"
"$B/gradeq" grade --json --memory 32M --tests "$T/none" --compile "sh -c 'head -c 48M /dev/zero > data.bin'" \
    -- "$P/map_placed" data.bin 48 > "$T/placed.json" 2>/dev/null
st=$(python3 -c "import json,sys; d=json.load(open('$T/placed.json')); print(d['tests'][0]['status'])" 2>&1)
check "gradeq grade: the compile step's output, placed for a test, is not memory" '[ "$st" = RUNTIME_ERROR ]'
start_worker wp --threads 1
st=$("$B/gradeq" submit --wait 120 --json --memory 32M --file data.bin="$T/data48" -- "$P/map_placed" data.bin 48 |
     python3 -c "import json,sys,base64; d=json.load(sys.stdin); print(d['status'], base64.b64decode(d['stdout']).decode()[:36])")
check "the worker: a placed job file is not memory" '[ "$st" = "RUNTIME_ERROR open errno=EACCES chmod errno=EPERM" ]'
kill -TERM $LAST_WORKER; wait $LAST_WORKER

# The worker logged its Redis URL, password included.
rcli config set requirepass s3cret-pw-do-not-log >/dev/null
"$B/gradeq-worker" --name wr --threads 1 --redis "unix://$SOCK?password=s3cret-pw-do-not-log" >"$T/wr.log" 2>&1 &
WR=$!; WORKERS="$WORKERS $WR"
GRADEQ_REDIS="unix://$SOCK?password=s3cret-pw-do-not-log" "$B/gradeq" submit --wait 120 -- /bin/true >/dev/null 2>&1
kill -TERM $WR; wait $WR
check "the worker never logs the Redis password" '! grep -q s3cret "$T/wr.log" && grep -q "threads on Redis unix:" "$T/wr.log"'

# Pinning an interactive pair picked slot % (online CPUs): in a cpuset of
# fewer CPUs (a container's limit, systemd's AllowedCPUs=) it chose one it
# may not use, and every interactive job failed with SANDBOX_ERROR.
last=$(( $(nproc --all) - 1 ))
cs=/sys/fs/cgroup/cpuset/gradeq-regress-$$
if [ -d /sys/fs/cgroup/cpuset ] && mkdir "$cs" 2>/dev/null; then
    echo "$last" > "$cs/cpuset.cpus"; cat /sys/fs/cgroup/cpuset/cpuset.mems > "$cs/cpuset.mems"
    out=$(sh -c "echo \$\$ > $cs/cgroup.procs && exec '$B/gradeq' run --interactor '$P/guess_interactor' -- '$P/guess_solver' right" 2>&1)
    rmdir "$cs"
    check "interactive run pins within its cpuset" 'echo "$out" | grep -q "^gradeq: OK"'
else
    echo "skip interactive pinning in a cpuset: no writable v1 cpuset hierarchy"
fi
# A worker that could not reach Redis at start-up retried with its signals
# blocked and never looked at them: SIGTERM did nothing, forever.
"$B/gradeq-worker" --name wn --threads 1 --redis "unix://$T/nothing-here.sock" >"$T/wn.log" 2>&1 &
WN=$!; WORKERS="$WORKERS $WN"
for _ in $(seq 1 2400); do grep -q "cannot reach Redis" "$T/wn.log" && break; sleep 0.05; done
kill -TERM $WN
( sleep 10; kill -9 $WN 2>/dev/null ) &
guard=$!
wait $WN; rc=$?
kill $guard 2>/dev/null
check "SIGTERM stops a worker still waiting for Redis" '[ $rc -eq 1 ] && grep -q "Terminated before Redis could be reached" "$T/wn.log"'
exit $FAIL
