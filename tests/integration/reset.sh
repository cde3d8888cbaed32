#!/bin/sh
# reset.sh -- nothing a run leaves reaches the next, seen from the commands:
# hostile programs through `gradeq run` and through a worker with one
# thread, whose jobs all run in one slot. Each attack first shows it ran;
# the job after it shows that nothing is left and its files are its own.
set -u
. "$(dirname "$0")/common.inc"
P=${GRADEQ_PROGS:-build/progs}

# --- gradeq run -------------------------------------------------------------
# Copies of stdout and stderr left in flight in a unix socket: the run ends
# when its processes do, not when an EOF that may never come arrives.
out=$(timeout 30 "$B/gradeq" run --wall-ms 3000 -- "$P/stdout_inflight" 2>"$T/e1"); rc=$?
check "gradeq run: stdout kept in flight does not hang the run" '[ $rc -eq 0 ] && [ "$out" = bye ]'
# A wipe the program defeats costs a box, not an exit 3 (SANDBOX_ERROR).
out=$(timeout 30 "$B/gradeq" run -- "$P/plant" 2>"$T/e2"); rc=$?
check "gradeq run: planting against the wipe is not SANDBOX_ERROR" \
    '[ $rc -eq 0 ] && [ "$out" = "planted wipe=8 deep=40 fifo=1 dir=1 link=1" ] && grep -q "^gradeq: OK" "$T/e2"'
# --json stays valid UTF-8 JSON whatever bytes a name holds.
timeout 30 "$B/gradeq" run --json -- "$(printf './\377\376\nname')" >"$T/j" 2>/dev/null
check "gradeq run --json: valid JSON for a name that is not UTF-8" \
    'python3 -c "import json,sys; d=json.loads(open(sys.argv[1],\"rb\").read().decode(\"utf-8\")); assert d[\"status\"]==\"EXEC_ERROR\"" "$T/j"'
out=$(timeout 30 "$B/gradeq" run -- /bin/sh -c 'echo out > /dev/stdout; echo err > /dev/stderr' 2>"$T/e3")
check "gradeq run: a program reopens its stdout and stderr by name" '[ "$out" = out ] && grep -q "^err$" "$T/e3"'

# --- one worker thread: every job in the same slot --------------------------
start_redis || exit 1
start_worker w1 --threads 1
sub() { timeout 180 "$B/gradeq" submit --wait 120 "$@"; }

out=$(sub -- "$P/plant" 2>"$T/s1")
check "worker: the planting job ran, OK" '[ "$out" = "planted wipe=8 deep=40 fifo=1 dir=1 link=1" ] && grep -q "^gradeq: OK" "$T/s1"'
printf 'victim-secret\n' > "$T/secret"; printf 'x\n' > "$T/x"; printf 'in\n' > "$T/in"
out=$(sub --file prog="$P/cat" --file secret.txt="$T/secret" --file data/x="$T/x" --file input.txt="$T/in" \
    -- /bin/sh -c 'cat secret.txt data/x input.txt; ls -A | tr "\n" " "' 2>/dev/null)
check "worker: the next job's files are its own" \
    '[ "$out" = "$(printf "victim-secret\nx\nin\ndata input.txt prog secret.txt ")" ]'
out=$(sub -- "$P/plant" --find victim-secret 2>/dev/null)
check "worker: a later job finds nothing of the earlier one" '[ "$out" = done ]'

out=$(sub -- "$P/ipc_leave" make 2>/dev/null)
check "worker: the IPC job made all four kinds" '[ "$out" = "made shm sem msg mq" ]'
out=$(sub -- "$P/ipc_leave" find 2>/dev/null | tr '\n' ' ')
check "worker: no IPC object survives into the next job" '[ "$out" = "shm=ENOENT sem=ENOENT msg=ENOENT mq=ENOENT " ]'

out=$(sub -- "$P/sock_left" make 2>/dev/null)
check "worker: the socket job left its listeners in flight" '[ "$out" = "left abstract tcp" ]'
out=$(sub -- "$P/sock_left" find 2>/dev/null | tr '\n' ' ')
check "worker: no listener survives into the next job" '[ "$out" = "abstract=ECONNREFUSED bind=ok " ]'

# /box itself: its mode, ACLs, user.* attributes, inode flags and times are
# the job's to change, and the next job's (anyone's) must find it new. The
# interactor's box, which the slot keeps too, the same way.
out=$(sub -- "$P/box_attrs" plant 0 2>"$T/s3")
check "worker: the job planted on /box itself (chmod 0 last)" \
    '[ "$out" = planted ] && grep -Eq "^\.: xattr=(ok|EOPNOTSUPP) acl=ok dacl=ok flags=ok times=ok mode=ok" "$T/s3"'
out=$(sub -- "$P/box_attrs" check 2>"$T/s4")
check "worker: the next job finds /box and /tmp new" '[ "$out" = fresh ] || { cat "$T/s4"; false; }'
sub -- "$P/box_attrs" plant 555 >/dev/null 2>&1
check "worker: after a chmod 555 /box, a job writes and runs its file there" \
    '[ "$(sub -- /bin/sh -c "echo built > main && cat main" 2>/dev/null)" = built ]'
printf 'plant 0\n' > "$T/plant"; printf 'check\n' > "$T/check"
sub --stdin "$T/plant" --interactor "$P/box_attrs input" -- cat >/dev/null 2>&1
check "worker: the interactor's next job finds its /box new" \
    'sub --stdin "$T/check" --interactor "$P/box_attrs input" -- cat 2>&1 | grep -q "^gradeq: OK"'

# A transcript's relay that sees the program's stdout cap crossed only after
# the program's run has returned (held up behind an interactor that reads
# nothing until the program is gone; see test_sandbox_cancel.c): its cancel
# names that run, and the slot's next job is untouched.
sub --transcript 4K --stdout-max 128K --wall-ms 20000 \
    --interactor "/bin/sh -c 'trap \"\" PIPE; while echo x; do :; done 2>/dev/null; exec cat >/dev/null'" \
    -- /usr/bin/head -c 131073 /dev/zero >/dev/null 2>"$T/s5"
check "worker: a transcript job over its stdout cap, the program ended first: OUTPUT_LIMIT" \
    'grep -q "^gradeq: OUTPUT_LIMIT" "$T/s5"'
check "worker: the slot's next job is not cancelled" 'sub -- "$P/greet" 2>&1 | grep -q "^gradeq: OK"'

# 2000 forks in one job do not move the next job's pids.
sub --cpu-ms 20000 --wall-ms 60000 -- "$P/counters" move 2000 >/dev/null 2>&1
out=$(sub -- "$P/counters" show 2>/dev/null | head -4 | tr '\n' ' ')
check "worker: after 2000 forks, the next job's pids are a new box's" '[ "$out" = "pid=2 child=4 tid=3 last_pid=4 " ]'

out=$(sub --wall-ms 3000 -- "$P/stdout_inflight" 2>"$T/s2")
check "worker: stdout kept in flight gets a result" '[ "$out" = bye ] && grep -q "^gradeq: OK" "$T/s2"'
check "worker: and the job behind it too" 'sub -- /bin/true 2>&1 | grep -q "^gradeq: OK"'

kill -TERM $LAST_WORKER; wait $LAST_WORKER
exit $FAIL
