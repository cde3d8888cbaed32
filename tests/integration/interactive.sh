#!/bin/sh
# Interactive runs through `gradeq run --interactor` and through Redis jobs:
# guess-the-number over 20 rounds, wrong answers, silence, a crashing
# interactor, a flood at the interactor, 100,000 round trips.
set -u
. "$(dirname "$0")/common.inc"
P=${GRADEQ_PROGS:-build/progs}
G="$B/gradeq"
verdict() { "$G" run "$@" 2>&1 >/dev/null | grep "^gradeq: [A-Z]" | tail -1; }

check "binary search over 20 rounds: OK" \
    'verdict --interactor "$P/guess_interactor" -- "$P/guess_solver" right | grep -q "^gradeq: OK"'
printf '1\n1000000\n500000\n7\n42\n999999\n2\n3\n4\n5\n6\n8\n9\n10\n11\n12\n13\n14\n15\n16\n' > "$T/secrets"
check "test data reaches the interactor as input" \
    'verdict --stdin "$T/secrets" --interactor "$P/guess_interactor" -- "$P/guess_solver" right | grep -q "^gradeq: OK"'
check "the interactor's own file input is its input, without --stdin (was SANDBOX_ERROR)" \
    'verdict --interactor-file input="$T/secrets" --interactor "$P/guess_interactor" -- "$P/guess_solver" right | grep -q "^gradeq: OK"'
check "... and with --stdin too: exit 2, naming both" \
    '"$G" run --stdin "$T/secrets" --interactor-file input="$T/secrets" --interactor "$P/guess_interactor" -- "$P/guess_solver" right >/dev/null 2>"$T/both.err"; [ $? = 2 ] && grep -q "\-\-stdin and \-\-interactor-file input=" "$T/both.err"'
check "a wrong solution: WRONG_ANSWER" \
    'verdict --interactor "$P/guess_interactor" -- "$P/guess_solver" wrong | grep -q "^gradeq: WRONG_ANSWER"'
out=$(verdict --wall-ms 3000 --interactor "$P/guess_interactor" -- "$P/guess_solver" silent)
check "a silent solution: WALL_TIME_LIMIT, the waiting side named" \
    'echo "$out" | grep -q "^gradeq: WALL_TIME_LIMIT.*interactor was waiting"'
out=$(verdict --wall-ms 3000 --interactor "$P/pingpong answer" -- /bin/sh -c 'read x')
check "a deadlock: the program named as waiting" \
    'echo "$out" | grep -q "program was waiting for input"'
out=$(verdict --wall-ms 3000 --interactor "$P/pingpong answer" -- "$P/stdin_swap")
check "a program blocked on a pipe of its own over stdin: not the interactor's silence" \
    'echo "$out" | grep -q "^gradeq: WALL_TIME_LIMIT.*program did not answer"'
check "a crashing interactor: INTERACTOR_ERROR" \
    'verdict --interactor "$P/guess_interactor crash" -- "$P/guess_solver" right | grep -q "^gradeq: INTERACTOR_ERROR"'
check "a flood at the interactor: its verdict, no hang" \
    'verdict --wall-ms 5000 --interactor "$P/guess_interactor" -- "$P/guess_solver" flood | grep -Eq "^gradeq: (WRONG_ANSWER|OUTPUT_LIMIT)"'
check "100,000 one-line round trips" \
    'verdict --cpu-ms 20000 --interactor "$P/pingpong answer" -- "$P/pingpong" ask 100000 | grep -q "^gradeq: OK"'
check "JSON carries the interactor" \
    '"$G" run --json --interactor "$P/guess_interactor" -- "$P/guess_solver" right | grep -q "\"interactor\":{\"status\":\"OK\",\"exit_code\":0"'

# Whoever failed first decides; each case five times, as an order decided
# by a race between two exits would not hold every time.
five() { for _ in 1 2 3 4 5; do verdict "$@" | cut -d" " -f2; done | sort -u | tr '\n' ' '; }
check "a C student exiting 1 on EOF after the judge's rejection: WRONG_ANSWER" \
    '[ "$(five --interactor "/bin/sh -c \"exit 1\"" -- "$P/eof_exit")" = "WRONG_ANSWER " ]'
check "a Python student's EOFError after the judge's rejection: WRONG_ANSWER" \
    '[ "$(five --interactor "/bin/sh -c \"exit 1\"" -- python3 -c "input()")" = "WRONG_ANSWER " ]'
# Its wall limit a minute: the judge, pinned to one CPU with the program,
# spends its 300 ms there, which on a busy machine took it longer than
# the default wall (3 x 300 ms), where the program's wall came first.
check "a judge over its own CPU limit (--cpu-ms for both): INTERACTOR_ERROR" \
    'verdict --cpu-ms 300 --wall-ms 60000 --interactor "/bin/sh -c \"while :; do :; done\"" -- "$P/eof_exit" | grep -q "^gradeq: INTERACTOR_ERROR.*interactor: TIME_LIMIT *$"'
check "a judge over --interactor-cpu-ms: INTERACTOR_ERROR" \
    '[ "$(five --interactor-cpu-ms 10 --interactor "/bin/sh -c \"while :; do :; done\"" -- "$P/eof_exit")" = "INTERACTOR_ERROR " ]'
check "a judge failing first (testlib's FAIL, exit 3), the program failing after: INTERACTOR_ERROR" \
    '[ "$(five --interactor "/bin/sh -c \"exit 3\"" -- "$P/eof_exit")" = "INTERACTOR_ERROR " ]'
check "a judge rejecting first with testlib's 2 (presentation) or 8 (unexpected EOF): WRONG_ANSWER" \
    '[ "$(five --interactor "/bin/sh -c \"exit 2\"" -- "$P/eof_exit")" = "WRONG_ANSWER " ] &&
     [ "$(five --interactor "/bin/sh -c \"exit 8\"" -- "$P/eof_exit")" = "WRONG_ANSWER " ]'
check "a program crashing first, the judge rejecting after: the program's SIGNALED" \
    '[ "$(five --interactor "/bin/sh -c \"cat >/dev/null; exit 1\"" -- "$P/segv")" = "SIGNALED " ]'
check "--interactor-memory reaches the interactor" \
    'verdict --interactor-memory 8M --interactor "$P/memhog 64" -- "$P/eof_exit" | grep -q "^gradeq: INTERACTOR_ERROR.*MEMORY_LIMIT"'
check "a flood with a transcript: OUTPUT_LIMIT at the program's stdout cap" \
    'verdict --stdout-max 64K --transcript 1K --interactor "/bin/sh -c \"cat >/dev/null\"" -- "$P/guess_solver" flood | grep -q "^gradeq: OUTPUT_LIMIT"'

b64field() { python3 -c "import json,sys,base64; print(base64.b64decode(json.load(sys.stdin).get('$1','')).decode('latin-1'))"; }
t=$("$G" run --json --transcript 64K --interactor "$P/guess_interactor" -- "$P/guess_solver" right | b64field transcript)
check "transcript: both directions, tagged"     'echo "$t" | grep -q "^> 9\$" && echo "$t" | grep -q "^? 500000\$" && echo "$t" | grep -q "^< 2\$"'
t=$("$G" run --json --transcript 100 --interactor "$P/guess_interactor" -- "$P/guess_solver" right | b64field transcript)
check "transcript: capped" '[ "$(printf %s "$t" | wc -c)" -le 100 ] && echo "$t" | grep -q "^> 9\$"'
t=$("$G" run --json --transcript 10 --interactor "$P/guess_interactor" -- "$P/guess_solver" right | b64field transcript)
check "transcript: a cap below the first chunk keeps its first bytes" '[ "$t" = "$(printf "> 5\n? 500\n")" ]'
check "transcript: the verdict unchanged by the relay" \
    '"$G" run --transcript 1K --interactor "$P/guess_interactor" -- "$P/guess_solver" wrong 2>&1 | grep -q "^gradeq: WRONG_ANSWER"'

# The same through Redis jobs.
start_redis || exit 1
start_worker wi --threads 2
check "job: OK through Redis" \
    '"$G" submit --wait 120 --interactor "$P/guess_interactor" -- "$P/guess_solver" right 2>&1 | grep -q "^gradeq: OK"'
check "job: WRONG_ANSWER through Redis" \
    '"$G" submit --wait 120 --interactor "$P/guess_interactor" -- "$P/guess_solver" wrong 2>&1 | grep -q "^gradeq: WRONG_ANSWER"'
check "job: INTERACTOR_ERROR through Redis" \
    '"$G" submit --wait 120 --interactor "$P/guess_interactor crash" -- "$P/guess_solver" right 2>&1 | grep -q "^gradeq: INTERACTOR_ERROR"'
check "job: the interactor in the result" \
    '"$G" submit --wait 120 --json --stdin "$T/secrets" --interactor "$P/guess_interactor" -- "$P/guess_solver" right | grep -q "\"interactor\":{\"status\":\"OK\""'
check "job: --interactor-cpu-ms travels as interactor.limits" \
    '"$G" submit --wait 120 --interactor-cpu-ms 10 --interactor "/bin/sh -c \"while :; do :; done\"" -- "$P/eof_exit" 2>&1 | grep -q "^gradeq: INTERACTOR_ERROR.*TIME_LIMIT"'
check "job: the judge rejecting first, the program failing after: WRONG_ANSWER" \
    '"$G" submit --wait 120 --interactor "/bin/sh -c \"exit 1\"" -- "$P/eof_exit" 2>&1 | grep -q "^gradeq: WRONG_ANSWER"'
check "job: the interactor's own file input is its input (was SANDBOX_ERROR, then dead-lettered)" \
    '"$G" submit --wait 120 --interactor-file input="$T/secrets" --interactor "$P/guess_interactor" -- "$P/guess_solver" right 2>&1 | grep -q "^gradeq: OK"'
check "job: with --stdin too, refused before it is queued" \
    '"$G" submit --stdin "$T/secrets" --interactor-file input="$T/secrets" --interactor "$P/guess_interactor" -- "$P/guess_solver" right >/dev/null 2>&1; [ $? = 2 ]'
t=$("$G" submit --wait 120 --json --transcript 64K --interactor "$P/guess_interactor" -- "$P/guess_solver" right | b64field transcript)
check "job: transcript through Redis" 'echo "$t" | grep -q "^> 9\$"'
exit $FAIL
