#!/bin/sh
# Real testlib: its own checkers (wcmp, ncmp, rcmp6, yesno, pointscmp,
# pointsinfo) and interactor (interactor-a-plus-b), and an interactor and a
# checker of ours written with it (tests/integration/testlib/), compiled
# with g++ against correct, wrong, malformed, partial and crashing
# solutions, by `gradeq grade` and through a worker.
#
# testlib.h is third-party and never part of this tree, and no package
# carries it: point GRADEQ_TESTLIB at a directory holding it (a checkout of
# github.com/MikeMirzayanov/testlib, whose checkers/ and interactors/ are
# used too). Without it this script says so and checks nothing; the same
# conventions are checked always by judges.sh, with judges of our own.
set -u
if [ -z "${GRADEQ_TESTLIB:-}" ] || [ ! -f "$GRADEQ_TESTLIB/testlib.h" ]; then
    echo "skip testlib.sh: GRADEQ_TESTLIB is not a directory with testlib.h (a checkout of MikeMirzayanov/testlib)"
    exit 0
fi
. "$(dirname "$0")/common.inc"
L=$GRADEQ_TESTLIB
S=$(dirname "$0")/testlib
GS=$(dirname "$0")/grade
P=${GRADEQ_PROGS:-build/progs}
G="timeout 120 $B/gradeq"

X=$T/bin
mkdir -p "$X"
build() { # OUT SOURCE [FLAGS]: g++ against testlib.h into $X, in parallel
    out=$1; src=$2; shift 2
    g++ -O2 -std=c++17 -I "$L" "$@" -o "$X/$out" "$src" 2> "$X/$out.build" &
}
for c in wcmp ncmp rcmp6 yesno pointscmp pointsinfo; do build "$c" "$L/checkers/$c.cpp"; done
build inter_ab "$L/interactors/interactor-a-plus-b.cpp"
build guess "$S/guess.cpp" -DENABLE_UNEXPECTED_EOF
build abcheck "$S/abcheck.cpp"
wait
for x in wcmp ncmp rcmp6 yesno pointscmp pointsinfo inter_ab guess abcheck; do
    [ -x "$X/$x" ] || { echo "FAIL cannot build $x:"; head -5 "$X/$x.build"; FAIL=1; }
done
gcc -O2 -o "$X/ab" "$GS/ab.c" && gcc -O2 -DMINUS -o "$X/ab_minus" "$GS/ab.c" || { echo "FAIL cannot build ab"; FAIL=1; }

field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=($2); print(*v) if isinstance(v, tuple) else print(v)" "$T/$1.json" 2>/dev/null || echo "(no result: $(head -c 200 "$T/$1.err" 2>/dev/null))"; }
# st NAME: "STATUS SCORE/MAX MESSAGE|..." of every test
st() { field "$1" '"|".join("%s %s/%s %s" % (t["status"], t["score"], t["max_score"], t["checker_message"]) for t in d["tests"])'; }
has() { # NAME I "STATUS SCORE/MAX MESSAGE"
    got=$(field "$1" "\"%s %s/%s %s\" % (lambda t: (t[\"status\"], t[\"score\"], t[\"max_score\"], t[\"checker_message\"]))(d[\"tests\"][$2])")
    [ "$got" = "$3" ] || { echo "  $1 test $2: $got, want $3"; return 1; }
}
# case DIR ANSWER OUTPUT...: test I of folder DIR has the answer ANSWER
# and the program prints OUTPUT_I (w/I.want of the program's files).
mkcase() {
    d=$1; ans=$2; shift 2; i=0; mkdir -p "$T/$d/t" "$T/$d/w"
    for out in "$@"; do
        i=$((i + 1)); echo $i > "$T/$d/t/$i.in"; printf '%s\n' "$ans" > "$T/$d/t/$i.out"
        printf '%s\n' "$out" > "$T/$d/w/$i.want"
    done
}
printf 'read i; cat "w/$i.want"\n' > "$T/out.sh"
run_case() { # NAME CHECKER [GRADE ARGS] (the case's folder is NAME)
    name=$1; chk=$2; shift 2
    set -- --tests "$T/$name/t" --checker "$X/$chk" --file o.sh="$T/out.sh" "$@"
    for f in "$T/$name"/w/*.want; do set -- "$@" --file "w/$(basename "$f")=$f"; done
    $G grade --json "$@" -- sh o.sh > "$T/$name.json" 2> "$T/$name.err"
    echo "$*" > "$T/$name.args"
}

# --- testlib's checkers ----------------------------------------------------------
mkcase wcmp "hello world" "hello   world" "hello there" "hello world extra" "hello"
run_case wcmp wcmp
check "wcmp: same tokens OK" 'has wcmp 0 "OK 1/1 ok 2 tokens"'
check "wcmp: a word differs: WRONG_ANSWER with testlib's words" 'has wcmp 1 "WRONG_ANSWER 0/1 wrong answer 2nd words differ - expected: '"'"'world'"'"', found: '"'"'there'"'"'"'
check "wcmp: extra and missing tokens: WRONG_ANSWER" 'has wcmp 2 "WRONG_ANSWER 0/1 wrong answer Participant output contains extra tokens" && has wcmp 3 "WRONG_ANSWER 0/1 wrong answer Unexpected EOF in the participants output"'
mkcase ncmp "1 2 3" "1 2 3" "1 2 4" "1 x 3"
run_case ncmp ncmp
check "ncmp: OK, a wrong number WRONG_ANSWER, a word where a number goes WRONG_ANSWER (testlib's PE)" \
    'has ncmp 0 "OK 1/1 ok 3 number(s): \"1 2 3\"" && has ncmp 1 "WRONG_ANSWER 0/1 wrong answer 3rd numbers differ - expected: '"'"'3'"'"', found: '"'"'4'"'"'" && [ "$(field ncmp "d[\"tests\"][2][\"status\"]")" = WRONG_ANSWER ]'
mkcase rcmp6 "3.14159265" "3.1415927" "3.14"
run_case rcmp6 rcmp6
check "rcmp6: within 1e-6 OK, beyond WRONG_ANSWER" '[ "$(field rcmp6 "[t[\"status\"] for t in d[\"tests\"]]")" = "['"'"'OK'"'"', '"'"'WRONG_ANSWER'"'"']" ] && field rcmp6 "d[\"tests\"][0][\"checker_message\"]" | grep -q "^ok found '"'"'3.1415927'"'"'"'
mkcase yesno "YES" "yes" "NO" "maybe"
run_case yesno yesno
check "yesno: any case OK, NO WRONG_ANSWER, neither WRONG_ANSWER (its PE)" \
    'has yesno 0 "OK 1/1 ok answer is YES" && has yesno 1 "WRONG_ANSWER 0/1 wrong answer expected YES, found NO" && has yesno 2 "WRONG_ANSWER 0/1 wrong output format YES or NO expected, but MAYBE found"'
mkcase pts 10 9.5 10 7 7
run_case pts pointscmp --points 4=5
check "pointscmp (quitp |ja - pa|): 0.5 PARTIAL" 'has pts 0 "PARTIAL 0.5/1 points 0.5 ja=10.0000 pa=9.5000"'
check "pointscmp: quitp(0) is PARTIAL 0, not WRONG_ANSWER" 'has pts 1 "PARTIAL 0/1 points 0.0 ja=10.0000 pa=10.0000"'
check "pointscmp: 3 points on a test of 1: OK, held to 1; on a test of 5: PARTIAL 3/5" \
    'has pts 2 "OK 1/1 points 3.0 ja=10.0000 pa=7.0000" && has pts 3 "PARTIAL 3/5 points 3.0 ja=10.0000 pa=7.0000"'
check "pointscmp: the job's exact score" '[ "$(field pts "d[\"score\"], d[\"max_score\"]")" = "4.5 8" ]'
mkcase pinfo 10 9.5
run_case pinfo pointsinfo
check "pointsinfo (quitpi with text, for a scorer gradeq does not run): CHECKER_ERROR, never the program's" \
    '[ "$(field pinfo "d[\"tests\"][0][\"status\"]")" = CHECKER_ERROR ]'
mkcase crash 10 10
check "a crashing solution: its own SIGNALED, the checker not asked" \
    '$G grade --json --tests "$T/crash/t" --checker "$X/wcmp" -- "$P/segv" 2>/dev/null | python3 -c "import json,sys; t=json.load(sys.stdin)[\"tests\"][0]; print(t[\"status\"], t[\"checker_message\"])" | grep -qx "SIGNALED None"'

# --- interactors written with testlib -----------------------------------------------
mkdir -p "$T/gs"
printf '3\n5\n777\n1000000\n' > "$T/gs/1.in"
printf '2\n5\n0\n' > "$T/gs/2.in"   # 0: binary search over 1..1000000 never finds it
gi() { name=$1; shift; $G grade --json --tests "$T/gs" --interactor "$X/guess" "$@" > "$T/$name.json" 2> "$T/$name.err"; }
gi g_right -- "$P/guess_solver" right
check "guess (registerInteraction, inputs without answers): OK" 'has g_right 0 "OK 1/1 ok 3 rounds solved"'
check "guess: quitp(0.5) after the unsolvable round: PARTIAL 0.5" 'has g_right 1 "PARTIAL 0.5/1 points 0.5 round 2: more than 25 questions"'
gi g_wrong -- "$P/guess_solver" wrong
check "guess: a solver that never finds: PARTIAL 0" 'has g_wrong 0 "PARTIAL 0/1 points 0.0 round 1: more than 25 questions"'
gi g_garbage -- /bin/sh -c 'echo hello'
check "guess: a malformed question: WRONG_ANSWER, not the judge's error" \
    '[ "$(field g_garbage "d[\"tests\"][0][\"status\"]")" = WRONG_ANSWER ] && field g_garbage "d[\"tests\"][0][\"checker_message\"]" | grep -q "^wrong answer Token parameter \[name=question mark\]"'
gi g_quit -- true
check "guess: a program that says nothing and exits: WRONG_ANSWER (unexpected eof, exit 8)" \
    'field g_quit "d[\"tests\"][0][\"status\"], d[\"tests\"][0][\"checker_message\"]" | grep -q "^WRONG_ANSWER unexpected eof"'
gi g_forge -- "$P/forge_pipe" nosep
check "guess: '? 1' with no separator and exit: WRONG_ANSWER, never INTERACTOR_ERROR" \
    '[ "$(field g_forge "d[\"tests\"][0][\"status\"]")" = WRONG_ANSWER ]'
gi g_silent --wall-ms 3000 -- "$P/guess_solver" silent
check "guess: a silent program: WALL_TIME_LIMIT, the judge named as waiting" \
    'field g_silent "d[\"tests\"][0][\"status\"], d[\"tests\"][0][\"checker_message\"]" | grep -q "^WALL_TIME_LIMIT .*interactor was waiting"'

mkdir -p "$T/abt"; printf '3\n1 2\n3 4\n5 6\n' > "$T/abt/1.in"; printf '3\n7\n11\n' > "$T/abt/1.out"
ab() { name=$1; shift; $G grade --json --tests "$T/abt" --interactor "$X/inter_ab" "$@" > "$T/$name.json" 2> "$T/$name.err"; }
ab ab_ok --checker "$X/abcheck" -- "$X/ab"
check "testlib's interactor-a-plus-b, then a checker on its tout: OK" 'has ab_ok 0 "OK 1/1 ok 3 sums"'
ab ab_minus --checker "$X/abcheck" -- "$X/ab_minus"
check "a wrong a-b: the checker's WRONG_ANSWER, as on Codeforces" 'has ab_minus 0 "WRONG_ANSWER 0/1 wrong answer query 1: 1 + 2 is 3, not -1"'
ab ab_alone -- "$X/ab_minus"
check "... the interactor alone judges nothing (its OK, its message)" 'has ab_alone 0 "OK 1/1 ok 3 queries processed"'

# --- the same through a worker -------------------------------------------------------
start_redis || exit 1
start_worker tw --threads 2
same_as() { # NAME: the worker's result of the same grading has the same tests
    timeout 180 "$B/gradeq" submit --wait 100 --json $(cat "$T/$1.args") -- sh o.sh > "$T/q_$1.json" 2>/dev/null
    [ -n "$(st "$1")" ] && [ "$(st "$1")" = "$(st "q_$1")" ] || { echo "  $1: $(st "$1")"; echo "  worker: $(st "q_$1")"; return 1; }
}
for c in wcmp ncmp rcmp6 yesno pts pinfo; do check "worker: $c as locally" "same_as $c"; done
sub() { name=$1; shift; timeout 180 "$B/gradeq" submit --wait 100 --json "$@" > "$T/$name.json" 2>/dev/null; }
sub q_g_right --tests "$T/gs" --interactor "$X/guess" -- "$P/guess_solver" right
check "worker: the testlib interactor, OK and quitp" 'has q_g_right 0 "OK 1/1 ok 3 rounds solved" && [ "$(st g_right)" = "$(st q_g_right)" ]'
sub q_ab_minus --tests "$T/abt" --interactor "$X/inter_ab" --checker "$X/abcheck" -- "$X/ab_minus"
check "worker: interactor-a-plus-b and its checker" '[ "$(field q_ab_minus "d[\"tests\"][0][\"status\"]")" = WRONG_ANSWER ] && [ "$(st ab_minus)" = "$(st q_ab_minus)" ]'
exit $FAIL
