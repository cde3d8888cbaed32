#!/bin/sh
# Scores: points per test, groups (subtasks) with each scoring rule,
# dependencies and stop_on_failure, partial credit from a testlib checker,
# exact decimals; by `gradeq grade` (plain lines, --json), through a worker
# (the msgpack result, `gradeq result`, BAD_JOB for bad groups), and the
# metrics (statuses, not scores). Every run under an outer bound. Bytes of
# msgpack are matched with LC_ALL=C grep, where "." is any one byte.
set -u
. "$(dirname "$0")/common.inc"
S=$(dirname "$0")/grade
P=${GRADEQ_PROGS:-build/progs}
G="timeout 120 $B/gradeq"

gcc -O2 -o "$T/tl_check" "$S/tl_check.c" || echo "FAIL cannot build tl_check"
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=($2); print(*v) if isinstance(v, tuple) else print(v)" "$T/$1.json" 2>/dev/null || echo "(no result)"; }
is() { [ "$(field "$1" "$2")" = "$3" ] || { echo "  $1: $2 = $(field "$1" "$2"), want $3"; return 1; }; }

# Ten tests 01..10 "i" -> answer 10; the program prints w/i.want of its
# files: "10" right, "5" half (testlib points 0.5), "pts X" X points, "0"
# wrong. A test's verdict is chosen by what its file holds.
mkdir -p "$T/t" "$T/w"
printf 'read i; cat "w/$i.want"\n' > "$T/out.sh"
i=0; for out in 10 10 0 10 5 10 "pts 0.25" 10 10 0; do
    i=$((i + 1)); n=$(printf %02d $i)
    echo $n > "$T/t/$n.in"; echo 10 > "$T/t/$n.out"; printf '%s\n' "$out" > "$T/w/$n.want"
done
run() { # NAME ARGS...: gradeq grade --json and plain, the program and checker as above
    name=$1; shift
    set -- --tests "$T/t" --checker "$T/tl_check" --file o.sh="$T/out.sh" "$@"
    for f in "$T"/w/*.want; do set -- "$@" --file "w/$(basename "$f")=$f"; done
    $G grade --json "$@" -- sh o.sh > "$T/$name.json" 2> "$T/$name.err"
    $G grade "$@" -- sh o.sh > "$T/$name.txt" 2>&1
    : > "$T/$name.args"
    for a in "$@"; do printf "'%s' " "$(printf %s "$a" | sed "s/'/'\\\\''/g")" >> "$T/$name.args"; done
}
statuses() { field "$1" '" ".join(t["status"][0] for t in d["tests"])'; }

# --- no points: the count of tests passed ---------------------------------------
run plain
check "no points: score = tests passed (6 of 10), PARTIAL tests count their share" \
    'is plain "d[\"passed\"], d[\"score\"], d[\"max_score\"]" "6 6.75 10"'
check "plain lines: each test's score, the total" \
    'grep -qx "test 05  PARTIAL            .*0.5/1  points 0.5 half" "$T/plain.txt" && grep -q "^6/10 passed, score 6.75/10, first failure: test 03 WRONG_ANSWER (WRONG_ANSWER)$" "$T/plain.txt"'

# --- exact decimals: tests of 0.1 add up exactly -----------------------------------
# A checker's points are absolute: 0.5 and 0.25 on a test of 0.1 are full.
pts=""; for n in 01 02 03 04 05 06 07 08 09 10; do pts="$pts --points $n=0.1"; done
run tenths $pts
check "points 0.1 each, 8 tests full: 0.8 of 1 exactly (not 0.7999999999999999)" 'is tenths "d[\"score\"], d[\"max_score\"], d[\"tests\"][4][\"status\"]" "0.8 1 OK"'
check "... and in the JSON text as written" 'grep -q "\"score\":0.8,\"max_score\":1}" "$T/tenths.json"'

# --- groups with each rule ----------------------------------------------------------
# 01-02 samples (0), A = 03 04 (all, 20), B = 05 06 07 (min, 30), C = 08 09
# (sum: own points 3 and 7), D = 10 (product, 10) depends on C; 01 02 in no
# group: worth 0 (a job with groups).
run groups --points 08=3 --points 09=7 \
    --group 'name=A points=20 tests=03,04' \
    --group 'name=B points=30 scoring=min tests=05..07' \
    --group 'name=C scoring=sum tests=08,09' \
    --group 'name=D points=10 scoring=product tests=10 depends_on=C'
check "all: a wrong test gives nothing" 'is groups "d[\"groups\"][0][\"score\"], d[\"groups\"][0][\"status\"]" "0 WRONG_ANSWER"'
check "min: 30 x min(0.5, 1, 0.25) = 7.5, PARTIAL" 'is groups "d[\"groups\"][1][\"score\"], d[\"groups\"][1][\"max_score\"], d[\"groups\"][1][\"status\"]" "7.5 30 PARTIAL"'
check "sum: the tests' own points, 3 + 7" 'is groups "d[\"groups\"][2][\"score\"], d[\"groups\"][2][\"max_score\"]" "10 10"'
check "product: a wrong test gives 0" 'is groups "d[\"groups\"][3][\"score\"], d[\"groups\"][3][\"status\"]" "0 WRONG_ANSWER"'
check "the total: 17.5 of 70 (tests in no group worth 0)" 'is groups "d[\"score\"], d[\"max_score\"], d[\"tests\"][0][\"max_score\"]" "17.5 70 0"'
check "each test names its group" 'is groups "[t[\"group\"] for t in d[\"tests\"]][:5]" "[None, None, '"'"'A'"'"', '"'"'A'"'"', '"'"'B'"'"']"'
check "plain: a line per group, the total" \
    'grep -qx "group B  PARTIAL  7.5/30" "$T/groups.txt" && grep -q "^6/10 passed, score 17.5/70," "$T/groups.txt"'

# --- dependencies and stop_on_failure -------------------------------------------------
run deps --group 'name=A points=40 tests=01..04 stop_on_failure' \
    --group 'name=B points=30 tests=05..07 depends_on=A' \
    --group 'name=C points=30 tests=08..10 depends_on=B'
check "stop_on_failure in a group: the rest of the group SKIPPED, said why" \
    'is deps "d[\"tests\"][3][\"status\"], d[\"tests\"][3][\"checker_message\"]" "SKIPPED stopped: test 03 failed"'
check "a dependency that failed: the group not run, its tests SKIPPED with the reason" \
    'is deps "d[\"tests\"][4][\"status\"], d[\"tests\"][4][\"checker_message\"]" "SKIPPED depends on A (failed)"'
check "a dependency not run either: \"(skipped)\"" \
    'is deps "d[\"groups\"][2][\"status\"], d[\"groups\"][2][\"message\"]" "SKIPPED depends on B (skipped)"'
check "score 0 of 100, 2 passed, the first failure the whole's status" 'is deps "d[\"score\"], d[\"max_score\"], d[\"passed\"], d[\"status\"]" "0 100 2 WRONG_ANSWER"'
check "plain: the reason on each skipped test and group" \
    'grep -qx "test 05  SKIPPED           0/1  depends on A (failed)" "$T/deps.txt" && grep -qx "group C  SKIPPED  0/30  depends on B (skipped)" "$T/deps.txt"'
check "a group's dependency on a group given after it: exit 2" \
    '! $G grade --tests "$T/t" --group "name=b tests=01 depends_on=a" --group "name=a tests=02" -- true >/dev/null 2>"$T/dep.err" && grep -q "depends on a, not a group given before it" "$T/dep.err"'
check "a test in two groups: exit 2" '! $G grade --tests "$T/t" --group "tests=01,02" --group "tests=02" -- true >/dev/null 2>&1'
check "an unknown test: exit 2 naming it" '! $G grade --tests "$T/t" --group "tests=01,99" -- true >/dev/null 2>"$T/unk.err" && grep -q "no test 99" "$T/unk.err"'
check "--points on an unknown test: exit 2" '! $G grade --tests "$T/t" --points 99=3 -- true >/dev/null 2>&1'
check "--points 0.1234567: exit 2 (six decimals at most)" '! $G grade --tests "$T/t" --points 01=0.1234567 -- true >/dev/null 2>&1'

# --- the same through a worker ------------------------------------------------------
start_redis || exit 1
port=$(( 20000 + ($$ + 7) % 20000 ))
start_worker sw --threads 2 --metrics-addr "$port"
sub() { # NAME: the grading NAME, submitted with the same arguments
    eval "set -- $(cat "$T/$1.args")"
    timeout 180 "$B/gradeq" submit --id "q-$name" --wait 100 --json "$@" -- sh o.sh > "$T/q_$name.json" 2>/dev/null
}
tests_of() { field "$1" '[(t["status"], t["score"], t["max_score"], t["group"], t["checker_message"]) for t in d["tests"]], d.get("groups"), d["score"], d["max_score"]'; }
same() { [ "$(tests_of "$1")" = "$(tests_of "q_$1")" ] && [ "$(tests_of "$1")" != "(no result)" ] || { echo "  $1: $(tests_of "$1")"; echo "  worker: $(tests_of "q_$1")"; return 1; }; }
for c in plain tenths groups deps; do name=$c sub $c; check "worker: $c as locally (scores, groups, reasons)" "same $c"; done
check "the msgpack result carries scores as decimal strings" \
    'rcli --raw lindex gradeq:result:q-tenths 0 | LC_ALL=C grep -aq "score.0.8.max_score.1"'
timeout 180 "$B/gradeq" result q-groups > "$T/res.txt" 2>&1
check "gradeq result: a line per test with its score, per group, and the total" \
    'grep -qx "group B  PARTIAL  7.5/30" "$T/res.txt" && grep -q "^test 05  PARTIAL .* 0.5/1  points 0.5 half" "$T/res.txt" && grep -q "score 17.5/70" "$T/res.txt"'
check "metrics: PARTIAL counted among the statuses (scores are not metrics)" \
    'curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" > "$T/m.txt" && grep -q "^gradeq_grading_tests_total{status=\"PARTIAL\"} [1-9]" "$T/m.txt" && ! grep -qi "score" "$T/m.txt"'

# Bad groups sent raw: BAD_JOB naming the field.
raw() { python3 - "$1" <<'PY' > "$T/raw.bin"
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
    if isinstance(o, float):
        import struct; return b"\xcb" + struct.pack(">d", o)
    raise TypeError(o)
sys.stdout.buffer.write(pack(eval(sys.argv[1])))
PY
rcli -x xadd gradeq:jobs '*' job < "$T/raw.bin" >/dev/null; }
answer() { rcli --raw blpop "gradeq:result:$1" 120 | tr -d '\0'; }
bad_job() { raw "$2"; got=$(answer "$1"); echo "$got" | grep -aq BAD_JOB && echo "$got" | grep -aqF "$3" || { echo "  $1: $got"; return 1; }; }
check "BAD_JOB: a group naming no test" 'bad_job g1 "{\"id\":\"g1\",\"argv\":[\"true\"],\"tests\":[{}],\"groups\":[{\"tests\":[\"7\"]}]}" "groups[0].tests[0]: \"7\": no test has this name"'
check "BAD_JOB: a dependency on a later group" 'bad_job g2 "{\"id\":\"g2\",\"argv\":[\"true\"],\"tests\":[{},{}],\"groups\":[{\"name\":\"a\",\"tests\":[\"1\"],\"depends_on\":[\"b\"]},{\"name\":\"b\",\"tests\":[\"2\"]}]}" "groups[0].depends_on: 1 names, more than the 0 groups before it"'
check "BAD_JOB: points of seven decimals" 'bad_job g3 "{\"id\":\"g3\",\"argv\":[\"true\"],\"tests\":[{\"points\":\"0.0000001\"}]}" "tests[0].points: \"0.0000001\": not a decimal"'
raw '{"id":"g4","argv":["sh","-c","read x; echo $x"],"tests":[{"stdin":"1\n","expected":"1\n","points":0.1},{"stdin":"2\n","expected":"2\n","points":0.2}],"groups":[{"name":"all","tests":["1","2"],"scoring":"sum"}]}'
check "a float's points (0.1 + 0.2): exactly 0.3 on the wire" 'answer g4 | LC_ALL=C grep -aq "score.0.3.max_score.0.3"'
exit $FAIL
