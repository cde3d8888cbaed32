#!/bin/sh
# Results that always fit: against a Redis with the shipped
# proto-max-bulk-len (96mb), the largest results a worker's default maxima
# allow (a plain run at both output caps, an interactive run with its
# transcript and both stderrs at theirs) are published and read back by
# `gradeq submit --wait`; a Redis that refuses a result for good (its
# proto-max-bulk-len lowered under a running worker) gets it without its
# outputs, saying so, the entry is dead-lettered, and the worker's thread
# goes on to the next job; one that refuses writes for a while (read-only)
# is retried at a pace, and gets the result whole after.
set -u
. "$(dirname "$0")/common.inc"
P=${GRADEQ_PROGS:-build/progs}
G="$B/gradeq"
start_redis || exit 1
rcli config set proto-max-bulk-len 96mb >/dev/null
start_worker wr --threads 1
W=$LAST_WORKER
sizes() { field "$1" "len(base64.b64decode(d[\"stdout\"])), len(base64.b64decode(d[\"stderr\"])), len(base64.b64decode(d.get(\"transcript\", \"\"))), len(base64.b64decode(d.get(\"interactor\", {}).get(\"stderr\", \"\")))" 2>/dev/null; }
# field NAME EXPR: a Python expression over the JSON result d of NAME.
field() { python3 -c "import json,sys,base64; d=json.load(open(sys.argv[1])); print($2)" "$T/$1.json"; }
submit() { name=$1; shift; timeout 180 "$G" submit --wait 100 --json "$@" > "$T/$name.json" 2> "$T/$name.err"; echo $? > "$T/$name.rc"; }

# Asking for more than the worker allows: 4 MiB of stderr, then stdout
# flooded to the worker's cap.
FLOOD="head -c 4194304 /dev/zero >&2; exec yes"
submit plain --stdout-max 1G --stderr-max 1G --wall-ms 20000 -- /bin/sh -c "$FLOOD"
check "a run at the worker's stdout cap: published, read back (exit 0)" \
    '[ "$(cat $T/plain.rc)" = 0 ] && [ "$(field plain "d[\"status\"], len(base64.b64decode(d[\"stdout\"])) > (16 << 20)")" = "OUTPUT_LIMIT True" ]'
echo "  plain: $(sizes plain)"
# The same program floods its interactor (kept in the transcript), which
# drains its stdin, then floods its own stderr.
submit inter --stdout-max 1G --stderr-max 1G --transcript 1G --wall-ms 20000 \
    --interactor "/bin/sh -c 'cat >/dev/null; exec yes >&2'" -- /bin/sh -c "$FLOOD"
check "an interactive run at every cap (transcript, both stderrs): published, read back" \
    '[ "$(cat $T/inter.rc)" = 0 ] && [ "$(field inter "len(base64.b64decode(d[\"transcript\"])) > (16 << 20)")" = True ]'
echo "  interactive: $(sizes inter)"
# A Redis that refuses results over 1 MiB from now on.
rcli config set proto-max-bulk-len 1mb >/dev/null
submit big --stdout-max 4M -- /bin/sh -c 'head -c 2000000 /dev/zero'
check "a result Redis refuses for good: answered without its outputs, saying so" \
    '[ "$(cat $T/big.rc)" = 0 ] && [ "$(field big "d[\"status\"], d[\"stdout\"], d[\"stdout_truncated\"], \"refused by Redis\" in d[\"error\"]")" = "OK  True True" ]'
check "... and its entry dead-lettered with the reason" \
    '[ "$(rcli xlen gradeq:dead)" = 1 ] && "$G" dead list | grep -q "refused by Redis"'
submit next -- /bin/echo next
check "... and the worker's one thread goes on to the next job" \
    '[ "$(cat $T/next.rc)" = 0 ] && [ "$(field next "base64.b64decode(d[\"stdout\"])")" = "b'"'"'next\\n'"'"'" ]'
check "the pending list is empty: nothing left to retry" '[ "$(rcli xlen gradeq:jobs)" = 0 ]'
rcli config set proto-max-bulk-len 96mb >/dev/null

# A Redis that refuses every write for a while (a replica for now, as in
# a fail-over): the worker holds the result and retries at a pace (it spun:
# some 50,000 tries a second), and publishes it whole once Redis takes
# writes again (READONLY is not refused for good). The job ends once Redis
# is read-only (its gate), so that the worker holds its result then.
"$G" submit --id ro1 --wall-ms 60000 -- /bin/sh -c "$(gate_job 'echo whole')" >/dev/null
wait_pending wr/ 120
rcli replicaof 127.0.0.1 1 >/dev/null
open_gate
calls() { rcli info commandstats | sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\),.*/\1/p'; }
deadline=$(( $(date +%s) + 120 ))
until grep -q "job ro1: publishing: .*READONLY" "$T/wr.log" || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
# Retried: a try after the one logged (the pace caps the wait at 2 s; the
# bound only catches a hang). At a pace: at most 40 tries over the 2 s and
# more since that one (the pace allows some 7 in its first 4 s, then one
# each 2 s).
c0=$(calls)
deadline=$(( $(date +%s) + 120 ))
until [ "$(calls)" -gt "$c0" ] || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
retried=$(( $(calls) - c0 ))
sleep 2   # the span the pace is counted over, not a synchronisation
c1=$(calls)
check "READONLY: the result held, retried at a pace (not thousands of tries a second)" \
    '[ "$(rcli exists gradeq:result:ro1)" = 0 ] && [ $retried -ge 1 ] && [ $((c1 - c0)) -le 40 ] || { echo "  $retried, then $((c1 - c0)) tries"; false; }'
rcli replicaof no one >/dev/null
check "... and published whole once Redis takes writes" \
    '[ "$(rcli --raw blpop gradeq:result:ro1 120 | grep -ac whole)" = 1 ] && [ "$(rcli xlen gradeq:dead)" = 1 ]'
kill -TERM $W; wait $W; rc=$?
check "the worker drained and exited 0" '[ $rc = 0 ]'
exit $FAIL
