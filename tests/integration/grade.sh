#!/bin/sh
# Grading a submission whole, with real compilers (gcc, g++, python3): by
# `gradeq grade` here, and the same cases by `gradeq submit` through a
# worker. Verdicts, the checkers, leftovers, hostile compile steps and
# bad combinations; every run under an outer bound.
set -u
. "$(dirname "$0")/common.inc"
S=$(dirname "$0")/grade
P=${GRADEQ_PROGS:-build/progs}
G="timeout 120 $B/gradeq"
# The three presets these cases use (common.inc; languages.sh covers the
# others).
LANGS="--languages $T/langs3"

# Ten tests "a b" -> a+b, named 1..10 (natural order: 2 before 10).
mkdir -p "$T/ten"
for i in 1 2 3 4 5 6 7 8 9 10; do
    echo "$i $((i * 10))" > "$T/ten/$i.in"; echo $((i * 11)) > "$T/ten/$i.out"
done

# grade_json NAME ARGS...: the JSON result in $T/NAME.json, exit code in $T/NAME.rc.
grade_json() {
    name=$1; shift
    $G grade --json "$@" > "$T/$name.json" 2> "$T/$name.err"; echo $? > "$T/$name.rc"
}
# field NAME EXPR: a Python expression over the result d.
field() { python3 -c "import json,sys,base64; d=json.load(open(sys.argv[1])); print($2)" "$T/$1.json"; }
is() { [ "$(field "$1" "$2")" = "$3" ] || { echo "  $1: $2 = $(field "$1" "$2"), want $3"; return 1; }; }

# --- the three languages: all accepted ---------------------------------------
grade_json c_ok --tests "$T/ten" --file main.c="$S/add.c" --compile 'gcc -O2 -o main main.c' -- ./main
check "C on 10 tests: all OK, exit 0" 'is c_ok "d[\"status\"],d[\"passed\"],d[\"total\"]" "OK 10 10" && [ "$(cat $T/c_ok.rc)" = 0 ]'
check "C: tests in natural order, names from the files" 'is c_ok "\" \".join(t[\"name\"] for t in d[\"tests\"])" "1 2 3 4 5 6 7 8 9 10"'
check "C: no test saw another's leftover file" 'is c_ok "all(base64.b64decode(t[\"stdout\"])!=b\"saw a leftover\\n\" for t in d[\"tests\"])" True'
check "C: compile ran once, its fields reported" 'is c_ok "d[\"compile\"][\"status\"],d[\"compile\"][\"exit_code\"]" "OK 0"'
check "--json: stdout holds only the object" '[ "$(wc -l < $T/c_ok.json)" = 1 ]'
grade_json cpp_ok --tests "$T/ten" $LANGS --language cpp --source "$S/add.cpp"
check "C++ (preset) on 10 tests: all OK" 'is cpp_ok "d[\"status\"],d[\"passed\"]" "OK 10"'
grade_json py_ok --tests "$T/ten" $LANGS --language python3 --source "$S/add.py"
check "Python 3 (preset) on 10 tests: all OK" 'is py_ok "d[\"status\"],d[\"passed\"]" "OK 10"'

# --- wrong answer on test 3, the rest still run; or SKIPPED ------------------
grade_json c_wa --tests "$T/ten" --file main.c="$S/add.c" --compile 'gcc -DWRONG=3 -o main main.c' -- ./main
check "WA on test 3: status, 9/10, the rest ran" 'is c_wa "d[\"status\"],d[\"passed\"],d[\"tests\"][2][\"status\"],d[\"tests\"][3][\"status\"]" "WRONG_ANSWER 9 WRONG_ANSWER OK"'
check "WA: the checker says where" 'is c_wa "d[\"tests\"][2][\"checker_message\"]" "line 1: expected \"33\", got \"34\""'
check "WA: exit 0 (grading happened)" '[ "$(cat $T/c_wa.rc)" = 0 ]'
grade_json py_stop --tests "$T/ten" $LANGS --language python3 --source "$S/wrong3.py" --stop-on-failure
check "--stop-on-failure: the rest SKIPPED, total counts them" 'is py_stop "d[\"passed\"],d[\"total\"],d[\"tests\"][3][\"status\"],d[\"tests\"][9][\"status\"]" "2 10 SKIPPED SKIPPED"'

# --- compile error: the compiler's message, no test run -------------------
grade_json c_ce --tests "$T/ten" --file main.c="$S/broken.c" --compile 'gcc -o main main.c' -- ./main
check "compile error: COMPILE_ERROR, no test ran" 'is c_ce "d[\"status\"],d[\"passed\"],set(t[\"status\"] for t in d[\"tests\"])" "COMPILE_ERROR 0 {'"'"'SKIPPED'"'"'}"'
check "compile error: the message in compile.stderr" 'is c_ce "b\"undeclared\" in base64.b64decode(d[\"compile\"][\"stderr\"])" True'
grade_json cpp_ce --tests "$T/ten" $LANGS --language cpp --source "$S/broken.c"
check "C++ preset: compile error" 'is cpp_ce "d[\"status\"]" COMPILE_ERROR'
printf 'print(\n' > "$T/bad.py"
grade_json py_ce --tests "$T/ten" $LANGS --language python3 --source "$T/bad.py"
check "Python preset: a syntax error is a compile error" 'is py_ce "d[\"status\"]" COMPILE_ERROR'

# --- one TIME_LIMIT ------------------------------------------------------------
grade_json c_tle --cpu-ms 300 --wall-ms 20000 --tests "$T/ten" --file main.c="$S/add.c" --compile 'gcc -DSPIN=7 -o main main.c' -- ./main
check "TIME_LIMIT on test 7 only" 'is c_tle "d[\"status\"],d[\"passed\"],d[\"tests\"][6][\"status\"],d[\"tests\"][7][\"status\"]" "TIME_LIMIT 9 TIME_LIMIT OK"'

# --- the built-in checkers, on answers that differ only as each forgives ---
mkdir -p "$T/ws" "$T/tok" "$T/flt"
printf '1 2  \n3\t\n\n\n' > "$T/ws/1.in"; printf '1 2\n3\n' > "$T/ws/1.out"
printf '1   2\n\n3' > "$T/tok/1.in"; printf '1 2 3\n' > "$T/tok/1.out"
printf '3.1415927 2.0\n' > "$T/flt/1.in"; printf '3.14159265 2\n' > "$T/flt/1.out"
verdict() { dir=$1; shift; $G grade --json --tests "$T/$dir" "$@" -- cat 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['status'])"; }
check "lines (default) forgives trailing blanks" '[ "$(verdict ws)" = OK ]'
check "exact does not" '[ "$(verdict ws --checker exact)" = WRONG_ANSWER ]'
check "tokens forgives spacing" '[ "$(verdict tok --checker tokens)" = OK ]'
check "lines does not" '[ "$(verdict tok)" = WRONG_ANSWER ]'
check "float:1e-6 forgives precision" '[ "$(verdict flt --checker float:1e-6)" = OK ]'
check "tokens does not" '[ "$(verdict flt --checker tokens)" = WRONG_ANSWER ]'
check "float:1e-9 is stricter" '[ "$(verdict flt --checker float:1e-9)" = WRONG_ANSWER ]'

# --- a testlib-style checker: accepts, rejects with a message, crashes -------
gcc -O2 -o "$T/check" "$S/check.c" || echo "FAIL cannot build the checker"
mkdir -p "$T/cust"
echo "1 2" > "$T/cust/1.in"; echo 3 > "$T/cust/1.out"
echo "2 2" > "$T/cust/2.in"; echo 5 > "$T/cust/2.out"
echo "100 1" > "$T/cust/3.in"; echo 101 > "$T/cust/3.out"
grade_json cust --tests "$T/cust" --file main.c="$S/add.c" --compile 'gcc -o main main.c' --checker "$T/check" -- ./main
check "custom checker accepts, with its message" 'is cust "d[\"tests\"][0][\"status\"],d[\"tests\"][0][\"checker_message\"]" "OK ok 3"'
check "custom checker rejects: WRONG_ANSWER, first line of its stderr" 'is cust "d[\"tests\"][1][\"status\"]+\"|\"+d[\"tests\"][1][\"checker_message\"]" "WRONG_ANSWER|wrong answer: expected 5, found 4"'
check "custom checker crashes: CHECKER_ERROR, not the program's" 'is cust "d[\"tests\"][2][\"status\"],d[\"status\"]" "CHECKER_ERROR WRONG_ANSWER"'

# --- an interactor with tests: each test's stdin is its file `input` ------
mkdir -p "$T/guess"
for i in 1 2 3; do seq $((i * 1000)) 37 $((i * 1000 + 19 * 37)) > "$T/guess/$i.in"; : > "$T/guess/$i.out"; done
grade_json inter_ok --tests "$T/guess" --interactor "$P/guess_interactor" -- "$P/guess_solver" right
check "interactor on 3 tests: all OK" 'is inter_ok "d[\"status\"],d[\"passed\"]" "OK 3"'
grade_json inter_wa --tests "$T/guess" --interactor "$P/guess_interactor" -- "$P/guess_solver" wrong
check "interactor says no: WRONG_ANSWER with its message" 'is inter_wa "d[\"status\"],d[\"tests\"][0][\"checker_message\"] is not None" "WRONG_ANSWER True"'
grade_json inter_crash --tests "$T/guess" --interactor "$P/guess_interactor crash" -- "$P/guess_solver" right
check "interactor crashes: INTERACTOR_ERROR" 'is inter_crash "d[\"tests\"][0][\"status\"]" INTERACTOR_ERROR'
# The program from a language preset: the interactor still travels with it.
grade_json inter_lang --tests "$T/guess" $LANGS --interactor "$P/guess_interactor" --language python3 --source "$S/halving.py"
check "interactor against a language preset's program: all OK" 'is inter_lang "d[\"status\"],d[\"passed\"]" "OK 3"'
check "--checker with --interactor: exit 2" '! $G grade --tests "$T/guess" --checker exact --interactor "$P/guess_interactor" -- "$P/guess_solver" right >/dev/null 2>&1'

# --- what the compile step leaves: regular files only, bounded ------------
mkdir -p "$T/hi"; : > "$T/hi/1.in"; echo hi > "$T/hi/1.out"
grade_json left --tests "$T/hi" --compile "sh -c 'ln -s /etc/passwd link; mkfifo fifo; mkdir -p a/b; echo hi > a/b/f'" \
    -- sh -c 'if [ -e link ] || [ -e fifo ]; then echo link or fifo carried; fi; cat a/b/f'
check "compile's regular files reach the tests (a/b/f), links and fifos do not" 'is left "d[\"status\"]" OK'
grade_json many --tests "$T/hi" --compile "sh -c 'i=0; while [ \$i -lt 5000 ]; do : > f\$i; i=\$((i+1)); done'" -- cat
check "a compile step leaving 5000 files: COMPILE_ERROR, said why" 'is many "d[\"status\"],d[\"error\"][:46]" "COMPILE_ERROR compile left too much in /box: more files than"'
grade_json deep --tests "$T/hi" --compile "sh -c 'mkdir -p \$(seq -s / 1 20)'" -- cat
check "a compile step nesting 20 directories: COMPILE_ERROR" 'is deep "d[\"status\"],d[\"compile\"][\"status\"]" "COMPILE_ERROR OUTPUT_LIMIT"'

# --- the box's directories, test after test ----------------------------------
# Each test's program (then its checker, then its interactor) plants on /box
# itself (mode, ACLs, user.* attributes, inode flags, times) or checks that
# it looks new; every grading runs its tests in one box (and one checker,
# one interactor box).
mkdir -p "$T/attrs"
n=0
for m in 0 555 755; do
    n=$((n + 1)); echo "plant $m" > "$T/attrs/$n.in"; echo planted > "$T/attrs/$n.out"
    n=$((n + 1)); echo check > "$T/attrs/$n.in"; echo fresh > "$T/attrs/$n.out"
done
cp "$P/box_attrs" "$T/box_attrs"
grade_json attrs --tests "$T/attrs" --file main.c="$(dirname "$0")/../progs/box_attrs.c" --compile 'gcc -O1 -o main main.c' -- ./main
check "a test's chmod 0/555, ACLs, attributes on /box: every later test sees a fresh /box" \
    'is attrs "d[\"status\"],d[\"passed\"],d[\"total\"]" "OK 6 6"'
grade_json attrs_chk --tests "$T/attrs" --checker ./chk --checker-file chk="$T/box_attrs" -- cat
check "the same by the checker, in the checker's box" 'is attrs_chk "d[\"status\"],d[\"passed\"]" "OK 6"'
grade_json attrs_inter --tests "$T/attrs" --interactor "$T/box_attrs input" -- cat
check "the same by the interactor, in the interactor's box" 'is attrs_inter "d[\"status\"],d[\"passed\"]" "OK 6"'

# --- hostile compile steps, contained --------------------------------------
grade_json zero --tests "$T/ten" --file main.c="$S/zero.c" --compile 'gcc -o main main.c' -- ./main
check "#include \"/dev/zero\": COMPILE_ERROR under a limit" 'is zero "d[\"status\"],d[\"compile\"][\"status\"] in (\"MEMORY_LIMIT\",\"TIME_LIMIT\",\"OUTPUT_LIMIT\",\"WALL_TIME_LIMIT\",\"RUNTIME_ERROR\")" "COMPILE_ERROR True"'
grade_json huge --tests "$T/ten" --file main.c="$S/huge.c" --compile 'gcc -o main main.c' -- ./main
check "16 GiB through the assembler and linker: COMPILE_ERROR" 'is huge "d[\"status\"]" COMPILE_ERROR'

# --- bad command lines: exit 2 with a message ------------------------------
bad_cli() { $G grade "$@" >/dev/null 2>"$T/badcli.err"; [ $? = 2 ] && [ -s "$T/badcli.err" ]; }
check "no --tests: exit 2" 'bad_cli -- ./main'
check "--language without --source: exit 2" 'bad_cli --tests "$T/ten" $LANGS --language c'
check "--language with PROGRAM: exit 2" 'bad_cli --tests "$T/ten" $LANGS --language c --source "$S/add.c" -- ./main'
check "a --checker-file named as the checker program copied in: exit 2 naming it (was SANDBOX_ERROR, exit 3)" 'bad_cli --tests "$T/ten" --checker "$T/check" --checker-file check="$S/add.c" -- cat && grep -q "\"check\" and \"check\"" "$T/badcli.err"'
check "unknown language: exit 2" 'bad_cli --tests "$T/ten" $LANGS --language no-such-language --source "$S/add.c"'
check "--checker float:x: exit 2" 'bad_cli --tests "$T/ten" --checker float:x -- cat'
check "--stdin with --tests: exit 2" 'bad_cli --tests "$T/ten" --stdin "$T/ten/1.in" -- cat'
check "empty tests folder: exit 2" 'mkdir -p "$T/none" && bad_cli --tests "$T/none" -- cat'
check "a job file where the preset puts the source: exit 2, said why" 'bad_cli --tests "$T/ten" $LANGS --language c --source "$S/add.c" --file main.c="$S/add.c" && grep -q "clashes with \"main.c\"" "$T/badcli.err"'
mkdir -p "$T/fifo" "$T/esc"; mkfifo "$T/fifo/1.in"; : > "$T/fifo/1.out"
check "a fifo among the tests: exit 2, no hang" 'timeout 20 $B/gradeq grade --tests "$T/fifo" -- cat >/dev/null 2>"$T/fifo.err"; [ $? = 2 ] && grep -q "not a regular file" "$T/fifo.err"'
: > "$T/esc/$(printf 'a\033[2J\nb').in"; : > "$T/esc/$(printf 'a\033[2J\nb').out"
check "a test name with an escape and a newline: exit 2, shown escaped" 'bad_cli --tests "$T/esc" -- cat && ! grep -q "$(printf "\033")" "$T/badcli.err" && [ "$(wc -l < "$T/badcli.err")" = 1 ]'
check "gradeq languages: one a line, name first" '$B/gradeq languages $LANGS | cut -f1 | tr "\n" " " | grep -qx "c cpp python3 "'
printf '[odd]\nsource = a.x\ncompile = no-such-compiler-xyz a.x\nrun = ./a\n' > "$T/langs"
check "a preset whose compiler is missing is marked so" '$B/gradeq languages --languages "$T/langs" | grep -q "unavailable: no-such-compiler-xyz is not installed"'
printf '[zero]\nsource = a.c\nrun = ./a\ncpu_ms = 0\n' > "$T/langs0"
check "a preset with a cpu_ms of 0: the file refused, naming it" '$B/gradeq languages --languages "$T/langs0" >/dev/null 2>"$T/langs0.err"; [ $? = 2 ] && grep -q "cpu_ms: 0, must be positive" "$T/langs0.err"'

# --- the same through a worker ------------------------------------------------
start_redis || exit 1
port=$(( 20000 + $$ % 20000 ))
start_worker gw --threads 2 $LANGS --metrics-addr "$port" --claim-idle-ms 1000
GW=$LAST_WORKER
submit_json() {
    name=$1; shift
    timeout 180 "$B/gradeq" submit --wait 100 --json "$@" > "$T/$name.json" 2> "$T/$name.err"; echo $? > "$T/$name.rc"
}
same_verdicts() { # the worker's statuses equal the local ones
    a=$(field "$1" "[t[\"status\"] for t in d[\"tests\"]], d[\"status\"], d[\"passed\"]")
    b=$(field "$2" "[t[\"status\"] for t in d[\"tests\"]], d[\"status\"], d[\"passed\"]")
    [ "$a" = "$b" ] || { echo "  $1: $a, worker: $b"; return 1; }
}
submit_json q_c_ok --tests "$T/ten" --file main.c="$S/add.c" --compile 'gcc -O2 -o main main.c' -- ./main
check "worker: C all OK, as locally" 'same_verdicts c_ok q_c_ok'
submit_json q_c_ok2 --tests "$T/ten" --file main.c="$S/add.c" --compile 'gcc -O2 -o main main.c' -- ./main
check "worker: a rejudge of the same source, from the compile cache, same verdicts" 'same_verdicts c_ok q_c_ok2 && curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" | grep -q "^gradeq_compile_cache_total{result=\"hit\"} [1-9]"'
submit_json q_cpp_ok --tests "$T/ten" --language cpp --source "$S/add.cpp"
check "worker: C++ preset" 'same_verdicts cpp_ok q_cpp_ok'
submit_json q_py_stop --tests "$T/ten" --language python3 --source "$S/wrong3.py" --stop-on-failure
check "worker: Python WA then SKIPPED" 'same_verdicts py_stop q_py_stop'
submit_json q_c_wa --tests "$T/ten" --file main.c="$S/add.c" --compile 'gcc -DWRONG=3 -o main main.c' -- ./main
check "worker: WA on test 3" 'same_verdicts c_wa q_c_wa'
submit_json q_c_ce --tests "$T/ten" --file main.c="$S/broken.c" --compile 'gcc -o main main.c' -- ./main
check "worker: compile error with its message" 'same_verdicts c_ce q_c_ce && is q_c_ce "b\"undeclared\" in base64.b64decode(d[\"compile\"][\"stderr\"])" True'
submit_json q_c_tle --cpu-ms 300 --wall-ms 20000 --tests "$T/ten" --file main.c="$S/add.c" --compile 'gcc -DSPIN=7 -o main main.c' -- ./main
check "worker: one TIME_LIMIT" 'same_verdicts c_tle q_c_tle'
submit_json q_cust --tests "$T/cust" --file main.c="$S/add.c" --compile 'gcc -o main main.c' --checker "$T/check" -- ./main
check "worker: custom checker OK / WA with message / CHECKER_ERROR" 'same_verdicts cust q_cust && is q_cust "d[\"tests\"][1][\"checker_message\"]" "wrong answer: expected 5, found 4"'
submit_json q_zero --tests "$T/ten" --file main.c="$S/zero.c" --compile 'gcc -o main main.c' -- ./main
check "worker: #include \"/dev/zero\" contained" 'is q_zero "d[\"status\"]" COMPILE_ERROR'
submit_json q_huge --tests "$T/ten" --file main.c="$S/huge.c" --compile 'gcc -o main main.c' -- ./main
check "worker: 16 GiB through the assembler and linker contained" 'is q_huge "d[\"status\"]" COMPILE_ERROR'
for c in exact tokens float:1e-6; do
    timeout 180 "$B/gradeq" submit --wait 120 --json --tests "$T/flt" --checker $c -- cat > "$T/q_flt.json" 2>/dev/null
    printf '%s ' "$(field q_flt 'd["status"]')" >> "$T/q_flt.all"
done
submit_json q_inter_ok --tests "$T/guess" --interactor "$P/guess_interactor" -- "$P/guess_solver" right
check "worker: interactor with tests" 'same_verdicts inter_ok q_inter_ok'
submit_json q_inter_lang --tests "$T/guess" --interactor "$P/guess_interactor" --language python3 --source "$S/halving.py"
check "worker: interactor against a language preset's program" 'same_verdicts inter_lang q_inter_lang'
check "worker: each checker as locally" '[ "$(cat $T/q_flt.all)" = "WRONG_ANSWER WRONG_ANSWER OK " ]'
submit_json q_attrs --tests "$T/attrs" --file main.c="$(dirname "$0")/../progs/box_attrs.c" --compile 'gcc -O1 -o main main.c' -- ./main
submit_json q_attrs_chk --tests "$T/attrs" --checker ./chk --checker-file chk="$T/box_attrs" -- cat
submit_json q_attrs_inter --tests "$T/attrs" --interactor "$T/box_attrs input" -- cat
check "worker: what a test does to /box reaches no later test (program, checker, interactor)" \
    'same_verdicts attrs q_attrs && same_verdicts attrs_chk q_attrs_chk && same_verdicts attrs_inter q_attrs_inter'
submit_json q_nolang --tests "$T/ten" --language no-such-language --source "$S/add.c"
check "worker: an unknown language is BAD_JOB naming it" 'is q_nolang "d[\"status\"],d[\"error\"]" "BAD_JOB language: \"no-such-language\" is not a language of this worker"'
# Bad combinations sent raw: BAD_JOB naming the field.
raw() { python3 - "$@" <<'PY' > "$T/raw.bin"
import sys
def pack(o):
    if isinstance(o, dict):
        b = bytes([0xde]) + len(o).to_bytes(2, "big")
        for k, v in o.items(): b += pack(k) + pack(v)
        return b
    if isinstance(o, list):
        return bytes([0xdd]) + len(o).to_bytes(4, "big") + b"".join(pack(x) for x in o)
    if isinstance(o, str):
        e = o.encode(); return bytes([0xdb]) + len(e).to_bytes(4, "big") + e
    if isinstance(o, bool): return b"\xc3" if o else b"\xc2"
    if isinstance(o, int): return b"\xcf" + o.to_bytes(8, "big")
    raise TypeError(o)
sys.stdout.buffer.write(pack(eval(sys.argv[1])))
PY
rcli -x xadd gradeq:jobs '*' job < "$T/raw.bin" >/dev/null; }
bad_job() { # ID PYJOB WANT: answered BAD_JOB with that line
    raw "$2"
    got=$(rcli --raw blpop "gradeq:result:$1" 120 | tr -d '\0')
    echo "$got" | grep -aq "BAD_JOB" && echo "$got" | grep -aqF "$3" || { echo "  $1: $got"; return 1; }
}
check "BAD_JOB: tests without argv or language" 'bad_job b1 "{\"id\":\"b1\",\"tests\":[{}]}" "argv: missing (tests need argv or language)"'
check "BAD_JOB: checker neither a name nor a map" 'bad_job b2 "{\"id\":\"b2\",\"argv\":[\"cat\"],\"tests\":[{}],\"checker\":5}" "checker: neither a name nor a map"'
check "BAD_JOB: 1001 tests" 'bad_job b3 "{\"id\":\"b3\",\"argv\":[\"cat\"],\"tests\":[{}]*1001}" "tests: 1001 tests, not 1..1000"'
check "BAD_JOB: EPS not a number" 'bad_job b4 "{\"id\":\"b4\",\"argv\":[\"cat\"],\"tests\":[{}],\"checker\":{\"float\":\"x\"}}" "checker.float: not a number"'

# A test's own file where the compile step left one (or in its way): the
# test's wins, never a sandbox error (which would retry and dead-letter).
raw_result() { raw "$2"; rcli --raw blpop "gradeq:result:$1" 120 | tr -d '\0' > "$T/$1.res"; }
raw_result clash1 '{"id":"clash1","argv":["sh","-c","cat data d"],"compile":{"argv":["sh","-c","echo old > data; mkdir d; echo x > d/x"]},"tests":[{"expected":"new\nf\n","files":{"data":"new\n","d":"f\n"}}]}'
check "a test's files displace what the compile step left in their way" 'grep -aq passed "$T/clash1.res" && ! grep -aqE "SANDBOX_ERROR|WRONG_ANSWER|RUNTIME_ERROR" "$T/clash1.res"'
check "BAD_JOB: a test's own cpu_ms of 0, before any test ran (not SANDBOX_ERROR after them)" 'bad_job b6 "{\"id\":\"b6\",\"argv\":[\"cat\"],\"tests\":[{},{\"limits\":{\"cpu_ms\":0}}]}" "tests[1].limits.cpu_ms: 0, must be positive"'
check "BAD_JOB: a compile step's memory_bytes of 0" 'bad_job b7 "{\"id\":\"b7\",\"argv\":[\"cat\"],\"tests\":[{}],\"compile\":{\"argv\":[\"true\"],\"limits\":{\"memory_bytes\":0}}}" "compile.limits.memory_bytes: 0, must be positive"'
check "BAD_JOB: the compile argv and the job's env, each fitting alone, not together" 'bad_job b8 "{\"id\":\"b8\",\"argv\":[\"cat\"],\"tests\":[{}],\"env\":{\"A\":\"v\"*61439,\"B\":\"v\"*61439},\"compile\":{\"argv\":[\"a\"*71679,\"a\"*71679]}}" "compile.argv and env: "'
check "BAD_JOB: a checker file named input" 'bad_job b5 "{\"id\":\"b5\",\"argv\":[\"cat\"],\"tests\":[{}],\"checker\":{\"argv\":[\"true\"],\"files\":{\"input\":\"x\"}}}" "checker.files: a file clashes with \"input\""'

# A compile step allowed the worker's largest outputs, filling them: the
# result still fits the 64 MiB a client decodes.
raw_result big1 '{"id":"big1","argv":["true"],"compile":{"argv":["sh","-c","head -c 67108864 /dev/zero; head -c 16777216 /dev/zero >&2"],"limits":{"stdout_bytes":67108864,"stderr_bytes":16777216}},"tests":[{}]}'
check "a result with 80 MiB of compile output stays under 64 MiB, cut" '[ "$(wc -c < "$T/big1.res")" -lt 67108864 ] && grep -aq passed "$T/big1.res"'

# 1000 tests of a trivial program: one result, bounded (4 KiB per test output).
mkdir -p "$T/k"
i=0; while [ $i -lt 1000 ]; do i=$((i + 1)); head -c 6000 /dev/zero | tr '\0' x > "$T/k/$i.in"; : > "$T/k/$i.out"; done
submit_json q_k --tests "$T/k" --checker exact -- cat
check "1000 tests through the worker: one result, every verdict" 'is q_k "d[\"total\"],len(d[\"tests\"]),d[\"tests\"][999][\"status\"]" "1000 1000 WRONG_ANSWER"'
check "1000 tests: each output cut to 4 KiB, flagged" 'is q_k "max(len(base64.b64decode(t[\"stdout\"])) for t in d[\"tests\"]),all(t[\"stdout_truncated\"] for t in d[\"tests\"])" "4096 True"'

# Metrics count grading jobs and tests by status.
check "metrics: grading jobs and tests by status" 'curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" | grep -q "^gradeq_grading_tests_total{status=\"SKIPPED\"} [1-9]" && curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" | grep -q "^gradeq_grading_jobs_total{status=\"COMPILE_ERROR\"} [1-9]"'

# --- a long grading: the heartbeat keeps it, the drain stops it -------------
mkdir -p "$T/slow" "$T/forever"
for i in $(seq 1 8); do : > "$T/slow/$i.in"; : > "$T/slow/$i.out"; done
for i in $(seq 1 1000); do : > "$T/forever/$i.in"; : > "$T/forever/$i.out"; done
start_worker gw2 --threads 1 --claim-idle-ms 1000
GW2=$LAST_WORKER
timeout 180 "$B/gradeq" submit --id long1 --wait 120 --json --tests "$T/slow" -- /bin/sleep 0.6 > "$T/long1.json" 2>/dev/null
check "8 tests of 0.6 s, two workers claiming after 1 s idle: graded once, attempt 1" 'is long1 "d[\"passed\"],d[\"attempt\"]" "8 1"'
kill -TERM $GW2; wait $GW2
"$B/gradeq" submit --id drain1 --tests "$T/forever" -- /bin/sleep 1 >/dev/null
wait_pending gw/ 120
t0=$(date +%s); kill -TERM $GW; wait $GW; t1=$(date +%s)
check "drain stops a 1000-test grading between two tests" '[ $((t1 - t0)) -le 10 ] && grep -q "grading stopped by the drain" "$T/gw.log"'
check "... and leaves it pending for another worker, unpublished" 'rcli xpending gradeq:jobs workers - + 10 | grep -q "^gw/" && [ "$(rcli exists gradeq:result:drain1)" = 0 ]'

# --- drains do not spend deliveries: three in a row, then graded whole ------
# Its own prefix: drain1 above waits in gradeq:jobs for any new worker.
mkdir -p "$T/twenty"
for i in $(seq 1 20); do : > "$T/twenty/$i.in"; : > "$T/twenty/$i.out"; done
GRADEQ_PREFIX=dr "$B/gradeq" submit --id drained --tests "$T/twenty" -- /bin/sleep 0.3 >/dev/null
drains=""
for n in 1 2 3; do
    start_worker dr$n --prefix dr --threads 1 --claim-idle-ms 1000
    # Until it holds the grading (its start and the claim after 1 s idle;
    # the bound only catches a hang: a stop sent before it took the job,
    # after 10 s on a busy machine, stopped no grading).
    deadline=$(( $(date +%s) + 120 ))
    until rcli xpending dr:jobs workers - + 10 | grep -q "^dr$n/" || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.05; done
    kill -TERM $LAST_WORKER; wait $LAST_WORKER; drains="$drains$?"
done
start_worker dr4 --prefix dr --threads 1 --claim-idle-ms 1000
timeout 180 "$B/gradeq" result drained --prefix dr --wait 100 --json > "$T/drained.json" 2>/dev/null
check "three drains stop a grading, each exits 0" '[ "$drains" = 000 ] && [ "$(grep -c "grading stopped by the drain" "$T"/dr[123].log | grep -c ":1$")" = 3 ]'
check "... the fourth worker grades it whole: OK, attempt 1, not dead-lettered" \
    'is drained "d[\"status\"],d[\"passed\"],d[\"attempt\"]" "OK 20 1" && [ "$(rcli xlen dr:dead)" = 0 ]'
kill -TERM $LAST_WORKER; wait $LAST_WORKER
exit $FAIL
