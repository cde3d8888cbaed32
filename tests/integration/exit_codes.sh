#!/bin/sh
# The exit statuses of gradeq and gradeq-worker, each reached for real,
# against the one table of gradeq(1) and gradeq-worker(8): a code used here
# and not in the table (or the reverse) fails. Also --version on both, the
# job id on stderr when a wait fails, and SIGHUP/SIGQUIT draining.
set -u
. "$(dirname "$0")/common.inc"
G="$B/gradeq"
M=$(dirname "$0")/../../docs/man
code() { "$@" >/dev/null 2>&1 </dev/null; echo $?; }
# The codes of a man page's EXIT STATUS section.
table() { sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$1" | sed -n '/^\.TP/{n;s/^\.B //p}' | tr '\n' ' '; }
check "gradeq(1) lists 0 1 2 3 4 5" '[ "$(table "$M/gradeq.1")" = "0 1 2 3 4 5 " ]'
check "gradeq-worker(8) lists 0 1 2" '[ "$(table "$M/gradeq-worker.8")" = "0 1 2 " ]'
check "--version on both" '"$G" --version | grep -qx "gradeq [0-9.]*" && "$B/gradeq-worker" --version | grep -qx "gradeq-worker [0-9.]*"'

NOWHERE="unix://$T/none.sock"
check "2: a bad option, each command" \
    '[ "$(code "$G" run --bogus -- /bin/true)$(code "$G" submit --bogus -- /bin/true)$(code "$G" stats --bogus)$(code "$G" dead list --bogus)$(code "$G" result)$(code "$G" result "a b")" = 222222 ]'
check "2: a malformed URL, each client command" \
    '[ "$(code "$G" submit --redis http://x -- /bin/true)$(code "$G" stats --redis http://x)$(code "$G" dead list --redis http://x)$(code "$G" result j --redis http://x)" = 2222 ]'
check "2: a usage error is one line and a hint" '[ "$("$G" run --bogus -- x 2>&1 | wc -l)" = 2 ] && "$G" run --bogus -- x 2>&1 | grep -q "Try .gradeq run --help."'
check "2: a limit the sandbox would refuse (run, grade, submit), naming the flag" \
    '[ "$(code "$G" run --cpu-ms 0 -- /bin/true)$(code "$G" run --wall-ms 99999999999 -- /bin/true)$(code "$G" grade --tests "$T" --memory 0 -- /bin/true)$(code "$G" submit --redis "$NOWHERE" --open-files 0 -- /bin/true)" = 2222 ] && "$G" run --cpu-ms 0 -- /bin/true 2>&1 | grep -q "cpu-ms: 0, must be positive"'
A100K=$(head -c 100000 /dev/zero | tr '\0' a)
check "2: PROGRAM ARGS over what the sandbox execs (was SANDBOX_ERROR, exit 3)" \
    '[ "$(code "$G" run -- /bin/echo "$A100K" "$A100K" "$A100K")" = 2 ]'
check "2: --max-queue past a signed 64-bit count (was exit 3)" '[ "$(code "$G" submit --redis "$NOWHERE" --max-queue 18446744073709551615 -- /bin/true)" = 2 ]'
check "2: two --file names that clash, a path escaping /box (was SANDBOX_ERROR, exit 3)" \
    '[ "$(code "$G" run --file a=/dev/null --file a/b=/dev/null -- /bin/true)$(code "$G" run --file ../x=/dev/null -- /bin/true)" = 22 ]'
check "2: the worker, a malformed URL (the unit does not restart it)" '[ "$(code "$B/gradeq-worker" --redis http://x)" = 2 ]'
check "2: the worker, a bad option" '[ "$(code "$B/gradeq-worker" --threads many)" = 2 ]'
check "2: the worker, --metrics-addr \"[:9100\" (it crashed), with a message" \
    '[ "$(code timeout 20 "$B/gradeq-worker" --metrics-addr "[:9100")" = 2 ] && "$B/gradeq-worker" --metrics-addr "[:9100" 2>&1 | grep -q "^gradeq-worker: --metrics-addr \"\[:9100\": "'
check "2: the worker, maxima a run cannot have or a result cannot hold" \
    '[ "$(code timeout 20 "$B/gradeq-worker" --max-cpu-ms 0)$(code timeout 20 "$B/gradeq-worker" --max-stdout 64M)$(code timeout 20 "$B/gradeq-worker" --max-result-bytes 1G)" = 222 ]'
check "3: Redis unreachable, each client command" \
    '[ "$(code "$G" submit --redis "$NOWHERE" -- /bin/true)$(code "$G" stats --redis "$NOWHERE")$(code "$G" dead list --redis "$NOWHERE")$(code "$G" result j --redis "$NOWHERE")" = 3333 ]'
mkdir "$T/alone" && cp "$G" "$T/alone/gradeq"
check "3: a gradeq without gradeq-queue beside it, each queue command, naming it" \
    '[ "$(code "$T/alone/gradeq" submit -- /bin/true)$(code "$T/alone/gradeq" stats)$(code "$T/alone/gradeq" dead list)$(code "$T/alone/gradeq" result j)" = 3333 ] &&
     "$T/alone/gradeq" stats 2>&1 | grep -q "^gradeq stats: cannot run $T/alone/gradeq-queue: No such file or directory\$"'
# full CMD...: the status of CMD with stdout on a full disk (/dev/full), its
# stderr kept in $T/full.err.
full() { "$@" >/dev/full 2>"$T/full.err" </dev/null; echo $?; }
mkdir "$T/one" && echo 1 >"$T/one/1.in" && echo 1 >"$T/one/1.out"
check "5: stdout full (run in process, run, grade, languages, --version, --help), said (was 0)" \
    '[ "$(GRADEQ_RUN_HOLD_MS=0 full "$G" run -- /bin/echo hi)" = 5 ] &&
     grep -q "^gradeq run: its output could not be written (stdout: No space left on device)\$" "$T/full.err" &&
     [ "$(full "$G" run -- /bin/echo hi)$(full "$G" grade --tests "$T/one" -- /bin/cat)$(full "$G" languages)$(full "$G" --version)$(full "$G" --help)" = 55555 ]'
check "1: the worker's --help and --version, stdout full, said (was 0)" \
    '[ "$(full "$B/gradeq-worker" --help)$(full "$B/gradeq-worker" --version)" = 11 ] &&
     grep -q "^gradeq-worker: its output could not be written (stdout: No space left on device)\$" "$T/full.err"'
# The holders of $G (gradeq-hold processes of its binary), one pid a line.
holders() { for p in $(pgrep -x gradeq-hold); do [ "$(readlink "/proc/$p/exe")" = "$(readlink -f "$G")" ] && echo "$p"; done; }
# Each run of a holder left by a failed one has its own status: the
# holder keeps none of its maker's failure.
for p in $(holders); do kill "$p"; done
export GRADEQ_RUN_HOLD_MS=60000
left=$(full "$G" run -- /bin/echo hi)
for _ in $(seq 1 300); do [ -n "$(holders)" ] && break; sleep 0.1; done
h=$(holders)
held="$(full "$G" run -- /bin/echo hi)$(code "$G" run -- /bin/echo hi)"
check "5: stdout full, the command that leaves a holder, then two held, one full, one that writes: 5 5 0" \
    '[ -n "$h" ] && [ "$left$held" = 550 ] && [ "$(holders)" = "$h" ]'
for p in $(holders); do kill "$p"; done
unset GRADEQ_RUN_HOLD_MS
start_redis || exit 1
check "5: stdout full, the queue commands (stats, dead list)" \
    '[ "$(full "$G" stats)$(full "$G" dead list --json)" = 55 ] && grep -q "^gradeq dead: its output" "$T/full.err"'
# A watch on a closed pipe, SIGPIPE ignored (as under systemd): it ends.
( timeout 60 env --ignore-signal=PIPE "$G" stats --watch --interval 10 2>"$T/watch.err"; echo $? >"$T/watch.rc" ) |
    head -c 1 >/dev/null
check "5: stats --watch into a closed pipe, SIGPIPE ignored, ends (it wrote on for ever)" \
    '[ "$(cat "$T/watch.rc")" = 5 ] && grep -q "^gradeq stats: its output could not be written (stdout: Broken pipe)\$" "$T/watch.err"'
check "0: submit, stats, dead list" '[ "$(code "$G" submit -- /bin/true)$(code "$G" stats)$(code "$G" dead list)" = 000 ]'
check "1: no such dead letter, no result yet" '[ "$(code "$G" dead show 1-1)$(code "$G" result nosuch)" = 11 ]'
check "3: the queue full" '[ "$(code "$G" submit --max-queue 1 -- /bin/true)" = 3 ]'
err=$("$G" submit --id w1 --wait 1 -- /bin/true 2>&1 >/dev/null); rc=$?
check "4: --wait ran out, the id on stderr" '[ $rc = 4 ] && echo "$err" | grep -q "queued job w1" && echo "$err" | grep -q "job w1: no result before --wait ran out"'
check "4: result --wait ran out" '[ "$(code "$G" result nosuch --wait 1)" = 4 ]'
# Redis goes away mid-wait: exit 3, and the id was already given.
"$G" submit --id w2 --wait 120 -- /bin/true >/dev/null 2>"$T/w2.err" &
sub=$!
for _ in $(seq 1 2400); do grep -q "queued job w2" "$T/w2.err" && break; sleep 0.05; done
kill -9 "$(cat "$T/redis.pid")"
wait $sub; rc=$?
check "3: Redis died mid-wait, the id known" '[ $rc = 3 ] && grep -q "queued job w2" "$T/w2.err"'
start_redis || exit 1

# Every stop signal drains: the running job is finished and published.
for sig in HUP QUIT; do
    start_worker ws$sig --threads 1
    "$G" submit --id s$sig --wall-ms 20000 -- /bin/sleep 1 >/dev/null
    wait_pending ws$sig/ 120
    kill -$sig $LAST_WORKER; wait $LAST_WORKER; rc=$?
    check "SIG$sig drains: exit 0, the running job published" \
        '[ $rc = 0 ] && rcli --raw lindex gradeq:result:s$sig 0 | grep -aq OK && grep -q draining "$T/ws$sig.log"'
done

# A refused password: error level, counted, and not once only.
rcli config set requirepass right >/dev/null
start_worker wp --threads 1 --redis "unix://$SOCK?password=wrong"
for _ in $(seq 1 200); do grep -c "error.*refused our credentials" "$T/wp.log" 2>/dev/null | grep -qv '^[01]$' && break; sleep 0.1; done
check "a wrong password: logged at error level, again later" '[ "$(grep -c "error.*refused our credentials" "$T/wp.log")" -ge 2 ]'
kill -9 $LAST_WORKER; wait $LAST_WORKER 2>/dev/null
exit $FAIL
