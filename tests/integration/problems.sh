#!/bin/sh
# Problems as folders people have, graded whole with real compilers: a
# Polygon package (groups with complete-group and each-test, a dependency,
# points, a generated test, answers made by the main solution, a checker
# compiled from the package's source beside the header it carries) with
# its tagged solutions, the same as a zip, a standard checker answered by
# ours; a Kattis package with an output validator; a DMOJ problem with an
# archive and batches. Each by `gradeq grade --problem` and through a
# worker (submitted, and held by the worker by name). Every run under an
# outer bound.
set -u
. "$(dirname "$0")/common.inc"
S=$(dirname "$0")/problems
G="timeout 120 $B/gradeq"
LANGS="--languages deploy/languages"

# grade_json NAME ARGS...: the JSON result in $T/NAME.json, exit code in $T/NAME.rc.
grade_json() {
    name=$1; shift
    $G grade --json $LANGS "$@" > "$T/$name.json" 2> "$T/$name.err"; echo $? > "$T/$name.rc"
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$T/$1.json" 2>/dev/null; }
is() { [ "$(field "$1" "$2")" = "$3" ] || { echo "  $1: $2 = $(field "$1" "$2"), want $3"; cat "$T/$1.err" 2>/dev/null | head -3; return 1; }; }

# --- Polygon ------------------------------------------------------------------
"$S/mk_ab.sh" "$T/ab"
grade_json ab_main --problem "$T/ab" --language cpp --source "$T/ab/solutions/main.cpp"
check "Polygon, main solution: every test OK, 100 of 100" \
    'is ab_main "d[\"status\"],d[\"passed\"],d[\"score\"],d[\"max_score\"]" "OK 6 100 100"'
check "Polygon: groups in the result with their scores" \
    'is ab_main "\" \".join(g[\"name\"] + \"=\" + str(g[\"score\"]) for g in d[\"groups\"])" "0=0 1=40 2=60"'
check "Polygon: the generated test's input came from the package's generator" \
    'is ab_main "d[\"tests\"][3][\"checker_message\"]" "ok 150"'
grade_json ab_wa --problem "$T/ab" --language cpp --source "$T/ab/solutions/wa.cpp"
check "Polygon, wrong-answer solution: the score Polygon gives (40 complete-group + 20 of each-test)" \
    'is ab_wa "d[\"status\"],d[\"score\"],d[\"tests\"][3][\"status\"],d[\"tests\"][3][\"checker_message\"]" "WRONG_ANSWER 60 WRONG_ANSWER expected 150, found 151"'
(cd "$T/ab" && python3 -c "
import zipfile, os
z = zipfile.ZipFile('../ab.zip', 'w', zipfile.ZIP_DEFLATED)
for root, _, files in os.walk('.'):
    for f in files: z.write(os.path.join(root, f), os.path.join(root, f)[2:])
")
grade_json ab_zip --problem "$T/ab.zip" --language cpp --source "$T/ab/solutions/wa.cpp"
check "the same package as a zip (Polygon's export): the same score, read in memory" \
    'is ab_zip "d[\"score\"],d[\"max_score\"]" "60 100"'

# A standard checker named std::rcmp6.cpp: answered by ours, no source built.
"$S/mk_ab.sh" "$T/std"
sed -i 's|<checker name="check.cpp" type="testlib">.*</checker>|<checker name="std::rcmp6.cpp" type="testlib"/>|' "$T/std/problem.xml"
rm "$T/std/files/check.cpp"
printf 'a, b = map(int, input().split())\nprint((a + b) * (1 + 4e-7))\n' > "$T/close.py"
printf 'a, b = map(int, input().split())\nprint((a + b) * (1 + 4e-6))\n' > "$T/far.py"
grade_json std_close --problem "$T/std" --language python3 --source "$T/close.py"
grade_json std_far --problem "$T/std" --language python3 --source "$T/far.py"
check "std::rcmp6.cpp: within 1e-6 relative OK, 4e-6 off WRONG_ANSWER" \
    'is std_close "d[\"status\"]" OK && is std_far "d[\"status\"],d[\"score\"]" "WRONG_ANSWER 0"'

# An interactive package: its interactor (testlib's conventions) talks to
# the program and writes tout, which std::wcmp.cpp judges against the answer.
"$S/mk_ab.sh" "$T/inter"
cp "$S/ab_interactor.c" "$T/inter/files/interactor.c"
# Polygon exports an interactive package with every answer (made through
# its interactor): gradeq makes none for one.
printf '15\n' > "$T/inter/tests/03.a"; printf '110\n' > "$T/inter/tests/05.a"; printf '2\n' > "$T/inter/tests/06.a"
printf '150\n' > "$T/inter/tests/04.a"; printf '70 80\n' > "$T/inter/tests/04"
sed -i 's|<checker name="check.cpp" type="testlib">.*</checker>|<checker name="std::wcmp.cpp" type="testlib"/><interactor><source path="files/interactor.c" type="c.gcc"/></interactor>|' "$T/inter/problem.xml"
grade_json inter_ok --problem "$T/inter" --language cpp --source "$T/ab/solutions/main.cpp"
grade_json inter_wa --problem "$T/inter" --language cpp --source "$T/ab/solutions/wa.cpp"
check "Polygon interactive: the interactor's tout judged by std::wcmp.cpp: main 100, wrong-answer 60" \
    'is inter_ok "d[\"status\"],d[\"score\"]" "OK 100" && is inter_wa "d[\"score\"],d[\"tests\"][4][\"status\"]" "60 WRONG_ANSWER"'

# A checker written with testlib itself, when the user gives testlib.h.
if [ -n "${GRADEQ_TESTLIB:-}" ] && [ -f "$GRADEQ_TESTLIB" ]; then
    "$S/mk_ab.sh" "$T/real"
    cp "$GRADEQ_TESTLIB" "$T/real/files/testlib.h"
    cp "$S/ab_testlib_check.cpp" "$T/real/files/check.cpp"
    grade_json real_wa --problem "$T/real" --language cpp --source "$T/real/solutions/wa.cpp"
    check "a checker built with the real testlib.h: the same score" 'is real_wa "d[\"score\"]" 60'
else
    echo "skip a checker built with the real testlib.h (set GRADEQ_TESTLIB=/path/to/testlib.h)"
fi

# --- Kattis -------------------------------------------------------------------
K=$T/kab
mkdir -p "$K/data/sample" "$K/data/secret" "$K/output_validators/ab"
printf 'name: A plus B\nlimits:\n  time_limit: 1.5\n  memory: 512\nvalidation: custom\n' > "$K/problem.yaml"
printf '1 2\n' > "$K/data/sample/1.in"; printf '3\n' > "$K/data/sample/1.ans"
printf '10 20\n' > "$K/data/secret/a.in"; printf '30\n' > "$K/data/secret/a.ans"
printf '100 200\n' > "$K/data/secret/b.in"; printf '300\n' > "$K/data/secret/b.ans"
printf '5 5\n' > "$K/data/secret/c.in"; printf '10\n' > "$K/data/secret/c.ans"
cp "$(dirname "$0")/grade/kattis_validate.c" "$K/output_validators/ab/validate.c"
printf 'a, b = map(int, input().split())\nprint(a + b)\n' > "$T/ok.py"
printf 'a, b = map(int, input().split())\nprint(a + b + (a > 50))\n' > "$T/big_wrong.py"
grade_json k_ok --problem "$K" --language python3 --source "$T/ok.py"
check "Kattis, a right solution: every test accepted by the output validator (exit 42)" \
    'is k_ok "d[\"status\"],d[\"passed\"],[t[\"name\"] for t in d[\"tests\"]]" "OK 4 ['"'"'sample/1'"'"', '"'"'secret/a'"'"', '"'"'secret/b'"'"', '"'"'secret/c'"'"']"'
grade_json k_wa --problem "$K" --language python3 --source "$T/big_wrong.py"
check "Kattis, a wrong one: 43 is WRONG_ANSWER with the validator's judgemessage, the rest not run" \
    'is k_wa "d[\"tests\"][2][\"status\"],d[\"tests\"][2][\"checker_message\"],d[\"tests\"][3][\"status\"]" "WRONG_ANSWER wrong sum SKIPPED"'

# --- DMOJ ---------------------------------------------------------------------
D=$T/dab
mkdir -p "$D"
(cd "$D" && python3 -c "
import zipfile
z = zipfile.ZipFile('tests.zip', 'w', zipfile.ZIP_DEFLATED)
for n, i, o in [('p0','1 2','3'),('p1','5 5','10'),('b1.1','60 50','110'),('b1.2','1 1','2'),('b2.1','7 7','14'),('b3.1','2 2','4')]:
    z.writestr(n + '.in', i + '\n'); z.writestr(n + '.out', o + '\n')
")
cat > "$D/init.yml" <<'YML'
archive: tests.zip
test_cases:
- {points: 0, in: p0.in, out: p0.out}
- {points: 10, in: p1.in, out: p1.out}
- points: 30
  batched:
  - {in: b1.1.in, out: b1.1.out}
  - {in: b1.2.in, out: b1.2.out}
- points: 30
  batched:
  - {in: b2.1.in, out: b2.1.out}
- batched:
  - {in: b3.1.in, out: b3.1.out}
  points: 30
  dependencies: [1, 2]
YML
grade_json d_ok --problem "$D" --language python3 --source "$T/ok.py"
check "DMOJ, a right solution: 100 of 100" 'is d_ok "d[\"score\"],d[\"max_score\"]" "100 100"'
grade_json d_wa --problem "$D" --language python3 --source "$T/big_wrong.py"
check "DMOJ, a wrong one: batch 1 lost, batch 3 (depending on it) not run: 40" \
    'is d_wa "d[\"score\"],d[\"tests\"][5][\"status\"],d[\"tests\"][5][\"checker_message\"]" "40 SKIPPED depends on batch 1 (failed)"'

# --- through a worker ----------------------------------------------------------
start_redis || exit 1
mkdir -p "$T/held"
"$S/mk_ab.sh" "$T/held/ab"
start_worker pw --threads 2 --languages deploy/languages --problems "$T/held"
submit_json() {
    name=$1; shift
    timeout 180 "$B/gradeq" submit --wait 100 --json $LANGS "$@" > "$T/$name.json" 2> "$T/$name.err"
}
submit_json q_ab_wa --problem "$T/ab" --language cpp --source "$T/ab/solutions/wa.cpp"
check "worker, Polygon package carried by the job: the same score" 'is q_ab_wa "d[\"status\"],d[\"score\"]" "WRONG_ANSWER 60"'
submit_json q_k_wa --problem "$K" --language python3 --source "$T/big_wrong.py"
check "worker, Kattis package: the same verdicts" 'is q_k_wa "[t[\"status\"] for t in d[\"tests\"]]" "['"'"'OK'"'"', '"'"'OK'"'"', '"'"'WRONG_ANSWER'"'"', '"'"'SKIPPED'"'"']"'
submit_json q_d_wa --problem "$D" --language python3 --source "$T/big_wrong.py"
check "worker, DMOJ problem with its archive: the same score" 'is q_d_wa "d[\"score\"]" 40'

# A problem the worker holds, named by a raw job.
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
MAIN=$(python3 -c "import json; print(json.dumps(open('$T/ab/solutions/main.cpp').read()))")
raw "{\"id\":\"held1\",\"problem\":\"ab\",\"language\":\"cpp\",\"source\":$MAIN}"
timeout 180 "$B/gradeq" result --wait 100 --json held1 > "$T/held1.json" 2>/dev/null
check "worker, a problem it holds named by the job: graded whole, 100" 'is held1 "d[\"status\"],d[\"score\"]" "OK 100"'
raw "{\"id\":\"held2\",\"problem\":\"ab\",\"language\":\"cpp\",\"source\":$MAIN}"
timeout 180 "$B/gradeq" result --wait 100 --json held2 > "$T/held2.json" 2>/dev/null
check "... again (its checker from the compile cache): the same" 'is held2 "d[\"status\"],d[\"score\"]" "OK 100"'
raw "{\"id\":\"held3\",\"problem\":\"nosuch\",\"language\":\"cpp\",\"source\":$MAIN}"
timeout 180 "$B/gradeq" result --wait 120 --json held3 > "$T/held3.json" 2>/dev/null
check "a problem it does not hold: BAD_JOB naming it" 'is held3 "d[\"status\"],d[\"error\"]" "BAD_JOB problem nosuch: no such problem here"'
exit $FAIL
