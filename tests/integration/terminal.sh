#!/bin/sh
# What reaches a terminal: a student's source line that gcc quotes byte
# for byte in its error (erase the line, write a fake verdict, retitle the
# window, hide what follows) is shown escaped by `gradeq grade`, `gradeq
# submit --wait` and `gradeq result` on a terminal (a real pty); the same
# for a program's own output through `gradeq run`; redirected, and with
# --json, every byte is kept.
set -u
. "$(dirname "$0")/common.inc"
G="$B/gradeq"
# on_pty OUT CMD...: CMD on a fresh pseudo-terminal (its stdin, stdout and
# stderr), all it printed into OUT.
on_pty() {
    out=$1; shift
    timeout 120 python3 - "$@" > "$out" <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
PY
}
ESC=$(printf '\033')
# No raw escape of the student's in OUT, and its bytes shown as \x1b.
escaped() { ! grep -aq "$ESC\[2K\|$ESC\]0;" "$1" && grep -aqF '\x1b[2K' "$1"; }
raw() { grep -aq "$ESC\[2K" "$1"; }

mkdir -p "$T/t1"
echo "1 2" > "$T/t1/1.in"; echo 3 > "$T/t1/1.out"
printf 'int main(void) { return no_such("\033[2K\033[1G1/1 passed (OK)\033]0;pwned\007\033[8m"); }\n' > "$T/evil.c"
on_pty "$T/grade.out" "$G" grade --tests "$T/t1" --file main.c="$T/evil.c" --compile 'gcc -o main main.c' -- ./main
check "grade: the compiler's quote of the source, escaped on a terminal" \
    'grep -aq "COMPILE_ERROR" "$T/grade.out" && escaped "$T/grade.out"'
"$G" grade --tests "$T/t1" --file main.c="$T/evil.c" --compile 'gcc -o main main.c' -- ./main > "$T/grade.pipe" 2>&1
check "grade: redirected, the bytes kept" 'raw "$T/grade.pipe"'
"$G" grade --json --tests "$T/t1" --file main.c="$T/evil.c" --compile 'gcc -o main main.c' -- ./main > "$T/grade.json" 2>/dev/null
check "grade --json: the bytes kept (base64)" \
    'python3 -c "import json,sys,base64; sys.exit(b\"\\x1b[2K\" not in base64.b64decode(json.load(open(sys.argv[1]))[\"compile\"][\"stderr\"]))" "$T/grade.json"'

printf '\033[2K\033]0;pwned\007' > "$T/evil.out"
on_pty "$T/run.out" "$G" run --stdin "$T/evil.out" -- /bin/cat
check "run: the program's output escaped on a terminal" 'escaped "$T/run.out"'
"$G" run --stdin "$T/evil.out" -- /bin/cat > "$T/run.pipe" 2>/dev/null
check "run: redirected, byte for byte" 'cmp -s "$T/run.pipe" "$T/evil.out"'
on_pty "$T/run2.out" "$G" run -- "/bin/$(printf 'x\033[2Jy')"
check "run: an error naming the job's argv, escaped" '! grep -aq "$ESC\[2J" "$T/run2.out" && grep -aq "EXEC_ERROR.*exec /bin/x" "$T/run2.out"'

start_redis || exit 1
start_worker wt --threads 1
on_pty "$T/submit.out" "$G" submit --id evil1 --wait 100 --tests "$T/t1" --file main.c="$T/evil.c" --compile 'gcc -o main main.c' -- ./main
check "submit --wait: escaped on a terminal" 'grep -aq "COMPILE_ERROR" "$T/submit.out" && escaped "$T/submit.out"'
on_pty "$T/result.out" "$G" result evil1
check "result: escaped on a terminal" 'grep -aq "COMPILE_ERROR" "$T/result.out" && escaped "$T/result.out"'
"$G" submit --id evil2 --wait 100 --stdin "$T/evil.out" -- /bin/cat > "$T/evil2.pipe" 2>/dev/null
on_pty "$T/result2.out" "$G" result evil2
check "result of a run: its output escaped on a terminal, kept redirected" \
    'escaped "$T/result2.out" && cmp -s "$T/evil2.pipe" "$T/evil.out"'
kill -TERM $LAST_WORKER; wait $LAST_WORKER
exit $FAIL
