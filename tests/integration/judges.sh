#!/bin/sh
# Checkers and interactors as problem authors write them (testlib's
# conventions, CMS's, Kattis's), built here with gcc from sources written to
# those conventions (tests/integration/grade/tl_*.c, cms_check.c,
# kattis_validate.c): every exit code of testlib's table, partial points,
# the message kept, the interactor's argv and its tout judged by a checker
# (Codeforces), tests without answers, the checker's and interactor's own
# limits, a language preset with an interactor, and a program that leaves
# its interactor writing to no one. By `gradeq grade` and `gradeq run`
# here, and the same through a worker. Every run under an outer bound.
set -u
. "$(dirname "$0")/common.inc"
S=$(dirname "$0")/grade
P=${GRADEQ_PROGS:-build/progs}
G="timeout 120 $B/gradeq"
LANGS="--languages deploy/languages"

for f in tl_check cms_check kattis_validate tl_inter; do
    gcc -O2 -o "$T/$f" "$S/$f.c" || echo "FAIL cannot build $f"
done
gcc -O2 -o "$T/ab" "$S/ab.c" && gcc -O2 -DMINUS -o "$T/ab_minus" "$S/ab.c" &&
    gcc -O2 -DGARBAGE -o "$T/ab_garbage" "$S/ab.c" && gcc -O2 -DQUIT=1 -o "$T/ab_quit" "$S/ab.c" ||
    echo "FAIL cannot build the contestants"
printf '#!/bin/sh\nprintf "%%s|" "$0" "$@" >&2; echo >&2\n' > "$T/argv_judge"; chmod +x "$T/argv_judge"

grade_json() { # NAME ARGS...: the JSON result in $T/NAME.json
    name=$1; shift
    $G grade --json "$@" > "$T/$name.json" 2> "$T/$name.err"; echo $? > "$T/$name.rc"
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$T/$1.json" 2>/dev/null || echo "(no result)"; }
is() { [ "$(field "$1" "$2")" = "$3" ] || { echo "  $1: $2 = $(field "$1" "$2"), want $3"; return 1; }; }
# st NAME: each test's status, score and message, "STATUS SCORE/MAX MESSAGE|..."
st() { field "$1" '"|".join("%s %s/%s %s" % (t["status"], t["score"], t["max_score"], t["checker_message"]) for t in d["tests"])'; }
test_is() { # NAME INDEX "STATUS SCORE/MAX MESSAGE"
    got=$(field "$1" "\"%s %s/%s %s\" % (lambda t: (t[\"status\"], t[\"score\"], t[\"max_score\"], t[\"checker_message\"]))(d[\"tests\"][$2])")
    [ "$got" = "$3" ] || { echo "  $1 test $2: $got, want $3"; return 1; }
}

# --- a testlib checker: every exit code ---------------------------------------
# The program prints the file w/I.want for test I: its output is chosen
# per test. wargs DIR: those files, from DIR.
printf 'read i; cat "w/$i.want"\n' > "$T/out.sh"
wargs() { for f in "$1"/*.want; do printf -- '--file w/%s=%s ' "$(basename "$f")" "$f"; done; }
mkdir -p "$T/ck" "$T/w1" "$T/w2"
i=0; for out in 10 5 2.5 pe "" fail 7 "pts 0.3333333333" "pts 9"; do
    i=$((i + 1)); echo $i > "$T/ck/$i.in"; echo 10 > "$T/ck/$i.out"; printf '%s\n' "$out" > "$T/w1/$i.want"
done
grade_json tl --tests "$T/ck" --checker "$T/tl_check" --points 8=3 $(wargs "$T/w1") --file o.sh="$T/out.sh" -- sh o.sh
check "testlib exit 0: OK, its message kept" 'test_is tl 0 "OK 1/1 ok answer is 10"'
check "testlib exit 7 (quitp 0.5): PARTIAL 0.5 of 1, the line as message" 'test_is tl 1 "PARTIAL 0.5/1 points 0.5 half"'
check "testlib exit 7 (quitpi points_info=0.25): PARTIAL 0.25" 'test_is tl 2 "PARTIAL 0.25/1 points points_info=0.25 quarter"'
check "testlib exit 2 (presentation): WRONG_ANSWER" 'test_is tl 3 "WRONG_ANSWER 0/1 wrong output format Expected double, but \"pe\" found"'
check "testlib exit 8 (unexpected EOF): WRONG_ANSWER" 'test_is tl 4 "WRONG_ANSWER 0/1 unexpected eof Unexpected end of file - double expected"'
check "testlib exit 3 (FAIL): CHECKER_ERROR, not the program's" 'test_is tl 5 "CHECKER_ERROR 0/1 FAIL the jury'"'"'s answer is wrong"'
check "testlib exit 1: WRONG_ANSWER" 'test_is tl 6 "WRONG_ANSWER 0/1 wrong answer expected 10, found 7"'
check "points with ten decimals on a test of 3: rounded to 0.000001" 'test_is tl 7 "PARTIAL 0.333333/3 points 0.3333333333"'
check "points over the test's: OK, held to its points" 'test_is tl 8 "OK 1/1 points 9"'
check "the job: PARTIAL (its first failure), the exact total" 'is tl "d[\"status\"],d[\"score\"],d[\"max_score\"]" "PARTIAL 3.083333 11"'
check "an exit 7 without points: CHECKER_ERROR saying so" \
    '$G grade --json --tests "$T/ck" --checker "/bin/sh -c \"exit 7\"" -- true 2>/dev/null | python3 -c "import json,sys; t=json.load(sys.stdin)[\"tests\"][0]; print(t[\"status\"], t[\"checker_message\"])" | grep -qx "CHECKER_ERROR checker exit 7 (points) without \"points X\" on stderr, X a number of 0..1000000000"'

# --- the checker's own limits ----------------------------------------------------
mkdir -p "$T/one"; echo 1 > "$T/one/1.in"; echo 1 > "$T/one/1.out"
# A checker burning CPU: far past 20 ms, and (the lighter one) far under
# the default limit even where the machine is slow (the emulated guest).
burn='/bin/sh -c "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"'
light='/bin/sh -c "i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done"'
verdict() { $G grade --json "$@" 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['tests'][0]['status'])"; }
check "a checker burning CPU: OK under the default limit" '[ "$(verdict --tests "$T/one" --checker "$light" -- cat)" = OK ]'
check "--checker-cpu-ms 20 reaches the checker: CHECKER_ERROR" '[ "$(verdict --tests "$T/one" --checker "$burn" --checker-cpu-ms 20 -- cat)" = CHECKER_ERROR ]'
check "a checker taking 64 MiB: OK by default, refused under --checker-memory 16M" \
    '[ "$(verdict --tests "$T/one" --checker "$P/memhog 64" -- cat)" = OK ] &&
     verdict --tests "$T/one" --checker "$P/memhog 64" --checker-memory 16M -- cat | grep -qxE "CHECKER_ERROR|WRONG_ANSWER"'
check "--checker-cpu-ms without a checker program: exit 2" '! $G grade --tests "$T/one" --checker-cpu-ms 5 -- cat >/dev/null 2>&1'

# --- CMS's and Kattis's conventions ----------------------------------------------
mkdir -p "$T/cv"
i=0; for out in 10 5 0 crash; do
    i=$((i + 1)); echo $i > "$T/cv/$i.in"; echo 10 > "$T/cv/$i.out"; printf '%s\n' "$out" > "$T/w2/$i.want"
done
grade_json cms --tests "$T/cv" --checker "$T/cms_check" --checker-convention cms --points 2=3 $(wargs "$T/w2") --file o.sh="$T/out.sh" -- sh o.sh
check "cms: outcome 1 OK, its translation key shown as CMS does" 'test_is cms 0 "OK 1/1 Output is correct"'
check "cms: outcome 0.5 of a test of 3: PARTIAL 1.5" 'test_is cms 1 "PARTIAL 1.5/3 Output is partially correct"'
check "cms: outcome 0: WRONG_ANSWER" 'test_is cms 2 "WRONG_ANSWER 0/1 Output isn'"'"'t correct"'
check "cms: a crashing checker: CHECKER_ERROR" 'is cms "d[\"tests\"][3][\"status\"]" CHECKER_ERROR'
grade_json kat --tests "$T/cv" --checker "$T/kattis_validate" --checker-convention kattis $(wargs "$T/w2") --file o.sh="$T/out.sh" -- sh o.sh
check "kattis: 42 OK with judgemessage.txt" 'test_is kat 0 "OK 1/1 correct"'
check "kattis: 42 with score.txt 0.5: PARTIAL" 'test_is kat 1 "PARTIAL 0.5/1 half"'
check "kattis: 43 WRONG_ANSWER with its message" 'test_is kat 2 "WRONG_ANSWER 0/1 wrong sum"'

# --- interactors: testlib's table, the message kept --------------------------------
mkdir -p "$T/it"
printf 'judge 3\n1 2\n3 4\n5 6\n' > "$T/it/1.in"
printf 'points 3\n1 2\n3 0\n5 6\n' > "$T/it/2.in"
printf 'fail 1\n1 1\n' > "$T/it/3.in"
printf 'tout 3\n1 2\n3 4\n5 6\n' > "$T/it/4.in"; echo 3 > "$T/it/4.out"
check "an interactive test folder: inputs alone are tests (only 4 has an answer)" \
    '$G grade --json --tests "$T/it" --interactor "$T/tl_inter" -- "$T/ab" 2>/dev/null | python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"tests\"]))" | grep -qx 4'
check "... but without --interactor a test needs its answer" \
    '[ "$($G grade --json --tests "$T/it" -- cat 2>/dev/null | python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"tests\"]))")" = 1 ]'
grade_json i_ok --tests "$T/it" --points 2=3 --interactor "$T/tl_inter" -- "$T/ab"
check "interactor exit 0: OK, its first stderr line kept as the message" 'test_is i_ok 0 "OK 1/1 ok 3 queries processed"'
check "interactor exit 3 (FAIL): INTERACTOR_ERROR, its FAIL line kept" 'test_is i_ok 2 "INTERACTOR_ERROR 0/1 FAIL the test is broken"'
grade_json i_minus --tests "$T/it" --points 2=3 --interactor "$T/tl_inter" -- "$T/ab_minus"
check "interactor exit 1: WRONG_ANSWER with its line" 'test_is i_minus 0 "WRONG_ANSWER 0/1 wrong answer query 1: expected 3, found -1"'
check "interactor exit 7 (points 1 of a test of 3): PARTIAL 1/3" 'test_is i_minus 1 "PARTIAL 1/3 points 1 right: 1 of 3"'
grade_json i_garbage --tests "$T/it" --interactor "$T/tl_inter" -- "$T/ab_garbage"
check "interactor exit 2 (malformed answer): WRONG_ANSWER, not the judge's error" 'test_is i_garbage 0 "WRONG_ANSWER 0/1 wrong output format Expected integer, but \"x\" found"'
grade_json i_quit --tests "$T/it" --interactor "$T/tl_inter" -- "$T/ab_quit"
check "interactor exit 8 (the program stopped early): WRONG_ANSWER" 'test_is i_quit 0 "WRONG_ANSWER 0/1 unexpected eof Unexpected end of file - int32 expected"'

# --- the interactor's argv; a checker on its tout -----------------------------------
grade_json i_argv --tests "$T/it" --interactor "$T/argv_judge" -- true
check "interactor argv: input tout (no answer)" 'is i_argv "d[\"tests\"][0][\"checker_message\"]" "./argv_judge|input|tout|"'
check "interactor argv: input tout answer when the test has one" 'is i_argv "d[\"tests\"][3][\"checker_message\"]" "./argv_judge|input|tout|answer|"'
mkdir -p "$T/ab1"; printf 'tout 3\n1 2\n3 4\n5 6\n' > "$T/ab1/1.in"; printf '3\n7\n11\n' > "$T/ab1/1.out"
grade_json cf_ok --tests "$T/ab1" --interactor "$T/tl_inter" --checker "$T/tl_check" -- "$T/ab"
check "Codeforces: the checker judges the interactor's tout after it: OK" 'test_is cf_ok 0 "OK 1/1 ok answer is 3"'
grade_json cf_wa --tests "$T/ab1" --interactor "$T/tl_inter" --checker "$T/tl_check" -- "$T/ab_minus"
check "Codeforces: a wrong a-b that the interactor lets through: the checker's WRONG_ANSWER" 'test_is cf_wa 0 "WRONG_ANSWER 0/1 wrong answer expected 3, found -1"'
grade_json cf_none --tests "$T/ab1" --interactor "$T/tl_inter" -- "$T/ab_minus"
check "... and without the checker, the interactor's own OK" 'is cf_none "d[\"tests\"][0][\"status\"]" OK'
check "a built-in checker with an interactor: exit 2, said why" \
    '! $G grade --tests "$T/ab1" --checker tokens --interactor "$T/tl_inter" -- "$T/ab" >/dev/null 2>"$T/bi.err" && grep -q "only a program" "$T/bi.err"'

# --- the two bugs: a preset's program with a local interactor; its own limits ------
grade_json i_lang --tests "$T/ab1" $LANGS --language python3 --source "$S/ab.py" --interactor "$T/tl_inter"
check "--language with a local --interactor: the interactor travels into its box" 'is i_lang "d[\"status\"],d[\"tests\"][0][\"checker_message\"]" "OK ok 3 queries processed"'
burn_judge=$burn
grade_json i_cpu --tests "$T/one" --cpu-ms 5000 --interactor-cpu-ms 20 --interactor "$burn_judge" -- true
check "--interactor-cpu-ms reaches the interactor when grading (not the program's 5 s)" 'is i_cpu "d[\"tests\"][0][\"status\"],d[\"tests\"][0][\"checker_message\"]" "INTERACTOR_ERROR interactor: TIME_LIMIT"'
grade_json i_cpu_ok --tests "$T/one" --cpu-ms 5000 --interactor "$burn_judge" -- true
check "... which the program's 5 s would have let finish" 'is i_cpu_ok "d[\"tests\"][0][\"status\"]" OK'
grade_json i_mem --tests "$T/one" --interactor-memory 16M --interactor "$P/memhog 64" -- true
check "--interactor-memory reaches the interactor when grading" 'is i_mem "d[\"tests\"][0][\"status\"]" INTERACTOR_ERROR'

# --- forged blame: the program leaves its judge writing to no one ------------------
five() { for _ in 1 2 3 4 5; do "$B/gradeq" run "$@" 2>&1 >/dev/null | grep "^gradeq: [A-Z]" | tail -1 | cut -d" " -f2; done | sort -u | tr '\n' ' '; }
check "'? 1' with no separator, then exit: WRONG_ANSWER, never INTERACTOR_ERROR (run)" \
    '[ "$(five --interactor "$P/guess_interactor" -- "$P/forge_pipe" nosep)" = "WRONG_ANSWER " ]'
check "the judge's pipe shrunk with F_SETPIPE_SZ, then exit: WRONG_ANSWER (run)" \
    '[ "$(five --interactor "$P/yes_stdout" -- "$P/forge_pipe" shrink)" = "WRONG_ANSWER " ]'
yes_judge='/bin/sh -c "yes; exit $?"'
self_pipe='/bin/sh -c "kill -PIPE $$"'
check "a shell judge's exit 141 (its writer's SIGPIPE) after the program's exit: WRONG_ANSWER" \
    '[ "$(five --interactor "$yes_judge" -- "$P/forge_pipe")" = "WRONG_ANSWER " ]'
check "the judge's own SIGPIPE before the program ended is still the judge's" \
    '[ "$(five --interactor "$self_pipe" -- "$P/eof_exit")" = "INTERACTOR_ERROR " ]'
grade_json forge --tests "$T/one" --interactor "$P/yes_stdout" -- "$P/forge_pipe" shrink
check "the same in a grading: WRONG_ANSWER, said why" 'is forge "d[\"tests\"][0][\"status\"],d[\"tests\"][0][\"checker_message\"]" "WRONG_ANSWER the program exited while the interactor was still writing to it"'
check "gradeq run: an interactor's exit 7 is PARTIAL, its line the error" \
    '"$B/gradeq" run --json --interactor "/bin/sh -c \"echo points 0.5 half >&2; exit 7\"" -- true | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"status\"], d[\"error\"])" | grep -qx "PARTIAL points 0.5 half"'

# --- the same through a worker -----------------------------------------------------
start_redis || exit 1
start_worker jw --threads 2 --languages deploy/languages
submit_json() {
    name=$1; shift
    timeout 180 "$B/gradeq" submit --wait 100 --json "$@" > "$T/$name.json" 2> "$T/$name.err"; echo $? > "$T/$name.rc"
}
same() { # the worker's tests as the local ones, both graded
    [ "$(st "$1")" = "$(st "$2")" ] && [ "$(st "$1")" != "(no result)" ] || { echo "  $1: $(st "$1")"; echo "  $2: $(st "$2")"; return 1; }
}
submit_json q_tl --tests "$T/ck" --checker "$T/tl_check" --points 8=3 $(wargs "$T/w1") --file o.sh="$T/out.sh" -- sh o.sh
check "worker: the testlib checker's every exit code, scored as locally" 'same tl q_tl && is q_tl "d[\"score\"]" 3.083333'
submit_json q_cms --tests "$T/cv" --checker "$T/cms_check" --checker-convention cms --points 2=3 $(wargs "$T/w2") --file o.sh="$T/out.sh" -- sh o.sh
check "worker: cms convention as locally" 'same cms q_cms'
submit_json q_kat --tests "$T/cv" --checker "$T/kattis_validate" --checker-convention kattis $(wargs "$T/w2") --file o.sh="$T/out.sh" -- sh o.sh
check "worker: kattis convention as locally" 'same kat q_kat'
submit_json q_i_minus --tests "$T/it" --points 2=3 --interactor "$T/tl_inter" -- "$T/ab_minus"
check "worker: the interactor's table and messages as locally" 'same i_minus q_i_minus'
submit_json q_i_argv --tests "$T/it" --interactor "$T/argv_judge" -- true
check "worker: the interactor's argv as locally" 'same i_argv q_i_argv'
submit_json q_cf_wa --tests "$T/ab1" --interactor "$T/tl_inter" --checker "$T/tl_check" -- "$T/ab_minus"
check "worker: the checker after the interactor" 'same cf_wa q_cf_wa'
submit_json q_i_lang --tests "$T/ab1" --language python3 --source "$S/ab.py" --interactor "$T/tl_inter"
check "worker: --language with a local --interactor (submit)" 'is q_i_lang "d[\"status\"]" OK'
submit_json q_i_cpu --tests "$T/one" --cpu-ms 5000 --interactor-cpu-ms 20 --interactor "$burn_judge" -- true
check "worker: --interactor-cpu-ms travels with a grading (submit)" 'same i_cpu q_i_cpu'
submit_json q_forge --tests "$T/one" --interactor "$P/yes_stdout" -- "$P/forge_pipe" shrink
check "worker: the forged SIGPIPE is the program's WRONG_ANSWER" 'same forge q_forge'
check "worker: a single interactive job too" \
    '"$B/gradeq" submit --wait 120 --interactor "$P/yes_stdout" -- "$P/forge_pipe" shrink 2>&1 | grep -q "^gradeq: WRONG_ANSWER"'
exit $FAIL
