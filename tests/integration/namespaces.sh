#!/bin/sh
# A machine that refuses namespaces (here: root without CAP_SYS_ADMIN, as
# in a container that drops it): the first box finds it, once, and every
# word about it says so. The worker's start-up line names what its jobs
# get (it once said "namespaces yes" while every job ran without them),
# each result's isolation agrees, --require-isolation refuses to start, and
# `gradeq run` warns with the reason.
set -u
. "$(dirname "$0")/common.inc"
P=${GRADEQ_PROGS:-build/progs}
no_admin() { setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin "$@"; }

start_redis || exit 1
# Not through no_admin: a function run with & is a subshell, and $! (the
# pid the script kills) would be that subshell's, not the worker's; the
# worker outlived the script.
setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin \
    "$B/gradeq-worker" --name nons --threads 1 --require-isolation no >"$T/nons.log" 2>&1 &
LAST_WORKER=$!; WORKERS="$WORKERS $LAST_WORKER"
out=$(timeout 180 "$B/gradeq" submit --wait 120 --json -- /bin/sh -c 'echo $$' 2>/dev/null)
check "worker without CAP_SYS_ADMIN: its job ran, without namespaces" \
    'echo "$out" | grep -q "\"status\":\"OK\"" && ! echo "$out" | grep -q "pid_ns"'
check "worker without CAP_SYS_ADMIN: its start-up line says no namespaces, and why" \
    'grep "sandbox: " "$T/nons.log" | grep -q "namespaces no (.*Operation not permitted).*missing: pid_ns"'
check "... and never that they hold" '! grep -q "namespaces yes" "$T/nons.log"'
kill -TERM $LAST_WORKER; wait $LAST_WORKER

no_admin timeout 60 "$B/gradeq-worker" --name strict --threads 1 >"$T/strict.log" 2>&1; rc=$?
check "worker without CAP_SYS_ADMIN, isolation required: refuses to start, says why" \
    '[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q "Operation not permitted" "$T/strict.log"'

err=$(no_admin timeout 30 "$B/gradeq" run -- /bin/true 2>&1 >/dev/null)
check "gradeq run without CAP_SYS_ADMIN: warns, with the reason" \
    'echo "$err" | grep -q "warning: not fully isolated (.*namespaces no (.*Operation not permitted).*pid_ns"'
exit $FAIL
