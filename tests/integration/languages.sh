#!/bin/bash
# Every language preset of deploy/languages whose toolchain is installed
# here, for real: its self-test (gradeq languages --check), then each of
# its programs in tests/languages/NAME/ (cpp17 and cpp20 use cpp's)
# through `gradeq grade --language NAME --source FILE`, and the same
# programs as jobs through a worker that read the whole file. Presets not
# installed are named as skipped (tests/install-deps.sh --languages NAMES
# installs them).
#
# The cases (expected outputs in tests/languages/cases/CASE):
#   hello    OK, "hello, world"          hello1  the same with processes 1:
#                                                 the runtime's own threads
#                                                 come on top of the job's
#   sum      OK on two tests from stdin
#   oom      MEMORY_LIMIT at 256 MiB, the peak measured near the limit,
#            whatever the runtime (killed, or its own out-of-memory)
#   gc       OK at 256 MiB: 1 GiB in 1 MiB blocks, one alive at a time
#   loop     TIME_LIMIT                  error   RUNTIME_ERROR (C and C++:
#                                                 SIGNALED, their way)
#   syntax   COMPILE_ERROR with the compiler's (or checker's) message
#   threads  OK with four threads at the default limits
#   fork     contained: a verdict, never SANDBOX_ERROR
#   pool     "bounded": the runtime sized its pools to one CPU (the JVM,
#            Go, BEAM), or has at most 8 threads of its own once its
#            collector ran (Node, Mono, D, Guile), whatever the host has
#            (run on a 64-CPU machine, this is the proof that the pins
#            hold: tests/vm.sh --cpus 64)
# First a box reports the CPUs it sees online (its affinity and the
# system's count): GRADEQ_CPUS=N makes that a check (vm.sh sets it to its
# --cpus), so a proof "with 64 CPUs" cannot pass with fewer. Where a box
# sees more than 8, a control runs D's and Guile's pool programs without
# their pins and wants them unbounded: there the pool check can fail.
# GRADEQ_LANGS="java go" limits the run (and its worker's presets) to
# those presets, GRADEQ_CASES=
# "hello pool" to those cases. GRADEQ_SLOW=N (a whole number, default 1)
# is a slow-machine factor for an emulated guest (tests/vm.sh measures
# it): every time limit this test gives is N times its own (the presets'
# compile and run limits, through a copy of the languages file written
# for the test, the per-case limits below, the outer bounds), and nothing
# else changes (an endless loop must still end TIME_LIMIT, four threads
# must still run). Under the
# sanitized build (ASan+UBSan, which checks gradeq's own code) only hello,
# oom and syntax run: the runtimes' behaviour is the plain run's to prove.
# About 3 minutes for make check's twelve presets, 12 for all 33 here:
# run-all bound: 3600
set -u
. "$(dirname "$0")/common.inc"
L=deploy/languages
D=tests/languages
SLOW=${GRADEQ_SLOW:-1}
case $SLOW in ''|*[!0-9]*|0) echo "FAIL GRADEQ_SLOW=$SLOW is not a whole number from 1"; exit 1 ;; esac
G="timeout $((600 * SLOW)) $B/gradeq"
PAR=${GRADEQ_LANG_JOBS:-1}
CASES=${GRADEQ_CASES:-hello hello1 sum oom gc loop error syntax threads fork pool}
case $B in *san*) CASES="hello oom syntax" ;; esac

# --- a slow machine: every preset's time limits N times theirs ---------------
# A preset without its own takes the built-in defaults (deploy/languages'
# header): each test's cpu 1 s (its wall 3x its cpu unless given), the
# compile step's cpu 10 s and wall 30 s.
if [ "$SLOW" -gt 1 ]; then
    python3 - "$L" "$SLOW" > "$T/languages" <<'PY' || { echo "FAIL cannot scale $L"; exit 1; }
import re, sys
path, f = sys.argv[1], int(sys.argv[2])
default = {"cpu_ms": 1000, "compile.cpu_ms": 10000, "compile.wall_ms": 30000}
out, seen, section = [], set(), False
def end_section():
    if section:
        out.extend("%s = %d" % (k, v * f) for k, v in default.items() if k not in seen)
for line in open(path).read().splitlines():
    if line.startswith("["):
        end_section()
        seen, section = set(), True
    m = re.match(r"((compile\.)?(cpu_ms|wall_ms))\s*=\s*(\d+)\s*$", line)
    if m:
        seen.add(m.group(1))
        line = "%s = %d" % (m.group(1), int(m.group(4)) * f)
    out.append(line)
end_section()
print("\n".join(out))
PY
    L=$T/languages
    echo "slow-machine factor $SLOW: every time limit below is $SLOW times its own"
fi
# GRADEQ_LANGS: a copy of the file with only those presets, for the worker
# too (it proves every preset of its file at start: the others' self-tests
# would only take time, a long one on a slow machine).
if [ -n "${GRADEQ_LANGS:-}" ]; then
    awk -v want=" $GRADEQ_LANGS " '/^\[/ { section = 1; keep = index(want, " " substr($0, 2, length($0) - 2) " ") > 0 }
        keep || !section' "$L" > "$T/languages.only" ||
        { echo "FAIL cannot limit $L to $GRADEQ_LANGS"; exit 1; }
    L=$T/languages.only
fi

# --- which presets: installed ones, the rest named ---------------------------
$B/gradeq languages --languages $L --json > "$T/all.json" 2> "$T/all.err" || true
names=$(python3 -c '
import json, sys
want = sys.argv[2].split()
for l in json.load(open(sys.argv[1])):
    if want and l["name"] not in want:
        continue
    if l["available"]:
        print(l["name"])
    else:
        print("skipped: %s (%s; tests/install-deps.sh --languages %s)" % (l["name"], l["why"], l["name"]), file=sys.stderr)
' "$T/all.json" "${GRADEQ_LANGS:-}" 2> "$T/skipped")
names=$(echo $names)
cat "$T/skipped"
[ -n "$names" ] || { echo "FAIL no language preset is installed"; exit 1; }
echo "languages: $names"

# --- the CPUs a box sees: what the pins are proven against ------------------------
$B/gradeq run --json --stdin /dev/null --cpu-ms $((1000 * SLOW)) --wall-ms $((3000 * SLOW)) \
    -- /bin/sh -c 'nproc; getconf _NPROCESSORS_ONLN' > "$T/cpus.json" 2> "$T/cpus.err"
cpus=$(python3 -c '
import base64, json, sys
r = json.load(open(sys.argv[1]))
print(" ".join(base64.b64decode(r["stdout"]).decode().split()) if r["status"] == "OK" else "(%s)" % r["status"])' \
    "$T/cpus.json" 2>/dev/null || echo "(no result: $(head -c 200 "$T/cpus.err"))")
want=${GRADEQ_CPUS:-$(nproc)}
check "a box sees $want CPUs online (its affinity, the system's count: $cpus)" '[ "$cpus" = "$want $want" ]'

# --- self-tests ----------------------------------------------------------------
$G languages --languages $L --check --json $names > "$T/check.json"
for n in $names; do
    check "$n: self-test passes, version known" "python3 -c '
import json, sys
l = [l for l in json.load(open(sys.argv[1])) if l[\"name\"] == sys.argv[2]][0]
ok = l[\"available\"] and l[\"checked\"] and l[\"version\"]
print(\"  %s: %s, version %s\" % (l[\"name\"], \"passed in %.1f s\" % (l[\"check_ms\"] / 1000) if ok else l[\"why\"], l[\"version\"]))
sys.exit(0 if ok else 1)' '$T/check.json' $n"
done

# dir_of NAME: the folder of its programs.
dir_of() { case $1 in cpp17|cpp20) echo $D/cpp ;; *) echo $D/$1 ;; esac; }
# source_of NAME CASE: its program for the case ("" when it has none).
source_of() {
    c=$2; [ "$c" = hello1 ] && c=hello
    for f in "$(dir_of "$1")"/"$c".*; do [ -f "$f" ] && { echo "$f"; return; }; done
}
# limits_of CASE: the job's limits: the defaults, but a wall limit that only
# catches a hang (this machine may be busy: timing is make bench's), and
# more CPU where a case needs it.
# Times GRADEQ_SLOW on a slow machine.
limits_of() {
    case $1 in
    hello1) echo "--processes 1 --wall-ms $((60000 * SLOW))" ;;
    fork) echo "--cpu-ms $((5000 * SLOW)) --wall-ms $((60000 * SLOW))" ;;
    # Hundreds of MiB through the allocator: where a page fault is dear,
    # some runtimes (bash: two faults a page) take seconds, and oom must
    # reach its memory limit first; the bound only catches a hang.
    oom|gc) echo "--cpu-ms $((30000 * SLOW)) --wall-ms $((120000 * SLOW))" ;;
    loop) echo "--cpu-ms $((1000 * SLOW)) --wall-ms $((20000 * SLOW))" ;;
    *) echo "--wall-ms $((60000 * SLOW))" ;;
    esac
}
tests_of() { c=$1; [ "$c" = hello1 ] && c=hello; echo "$D/cases/$c"; }

# --- through gradeq grade, PAR at a time ----------------------------------------
run_cli() {
    n=$1 c=$2 src=$3
    $G grade --json --languages $L --language "$n" --source "$src" --tests "$(tests_of "$c")" \
        $(limits_of "$c") > "$T/cli.$n.$c.json" 2> "$T/cli.$n.$c.err"
}
# --- and through a worker (each job the same as above) ---------------------------
start_redis || exit 1
start_worker lw --threads "$PAR" --languages $L --self-test-timeout $((600 * SLOW)) \
    --claim-idle-ms $((600000 * SLOW)) --max-cpu-ms $((60000 * SLOW)) --max-wall-ms $((180000 * SLOW))
run_job() {
    n=$1 c=$2 src=$3
    $G submit --wait $((600 * SLOW)) --json --id "lang-$n-$c" --language "$n" --source "$src" --tests "$(tests_of "$c")" \
        $(limits_of "$c") > "$T/job.$n.$c.json" 2> "$T/job.$n.$c.err"
}
# --- what each run must have been ------------------------------------------------
# verdict WHERE NAME CASE: checks one result file; prints why when not.
verdict() {
    python3 - "$T/$1.$2.$3.json" "$2" "$3" <<'PY'
import base64, json, sys
path, name, case = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    sys.exit("  no result (%s): %s" % (e, open(path.replace(".json", ".err")).read()[:300]))
st = r["status"]
t = r["tests"][0] if r.get("tests") else {}
def out(x):
    return base64.b64decode(x.get("stdout", "")).decode(errors="replace")
def err(x):
    return base64.b64decode(x.get("stderr", "")).decode(errors="replace")
why = None
k = r.get("compile") or {}
if st == "COMPILE_ERROR" and case != "syntax":
    why = "COMPILE_ERROR: compile %s, cpu %.1f s, wall %.1f s, %d MiB: %s" % (
        k.get("status"), k.get("cpu_us", 0) / 1e6, k.get("wall_us", 0) / 1e6, k.get("memory_bytes", 0) >> 20,
        (err(k) + out(k))[:200])
elif case in ("hello", "hello1", "sum", "gc", "threads", "pool"):
    if st != "OK":
        why = "%s, not OK; first test: %s %s%s" % (st, t.get("status"), t.get("checker_message") or "", err(t)[:200])
elif case == "oom":
    if st != "MEMORY_LIMIT":
        why = "%s, not MEMORY_LIMIT (peak %d MiB): %s" % (st, t.get("memory_bytes", 0) >> 20, err(t)[:200])
    elif t["memory_bytes"] < 200 << 20:
        why = "MEMORY_LIMIT with a peak of %d MiB, not near 256" % (t["memory_bytes"] >> 20)
elif case == "loop":
    if st != "TIME_LIMIT":
        why = "%s, not TIME_LIMIT" % st
elif case == "error":
    want = ("RUNTIME_ERROR", "SIGNALED") if name in ("c", "cpp", "cpp17", "cpp20") else ("RUNTIME_ERROR",)
    if st not in want:
        why = "%s, not %s: %s" % (st, " or ".join(want), err(t)[:200])
elif case == "syntax":
    if st != "COMPILE_ERROR" or not (out(k) + err(k)).strip():
        why = "%s, compile %s, message %r: not COMPILE_ERROR with the compiler's message" % (st, k.get("status"), (out(k) + err(k))[:100])
elif case == "fork":
    if st in ("SANDBOX_ERROR", "BAD_JOB"):
        why = "%s: %s" % (st, r.get("error"))
sys.exit(why)
PY
}
# --- each preset's cases, PAR runs of each kind at once, then their checks -------
# wait -n takes the next to end (the worker, a child too, does not end); a
# preset's last runs are waited for by pid, and its checks printed before
# the next preset starts (a slow machine shows its results as they come).
for n in $names; do
    running=0 pids=""
    for c in $CASES; do
        src=$(source_of "$n" "$c")
        [ -n "$src" ] || continue
        run_cli "$n" "$c" "$src" &
        pids="$pids $!"
        run_job "$n" "$c" "$src" &
        pids="$pids $!"
        running=$((running + 2))
        if [ $running -ge $((2 * PAR)) ]; then wait -n; running=$((running - 1)); fi
    done
    for p in $pids; do wait "$p" 2>/dev/null; done
    for c in $CASES; do
        [ -n "$(source_of "$n" "$c")" ] || continue
        check "$n $c: gradeq grade" "verdict cli $n $c"
        check "$n $c: worker" "verdict job $n $c"
    done
done

# --- the control: the pool check fails without the pins, where it can ------------
# D's and Guile's pool programs with their presets' pins taken out (and
# room for the threads): on more than 8 CPUs each must report unbounded.
n_cpus=${cpus%% *}
case " $CASES " in *" pool "*) ;; *) n_cpus="" ;; esac
if [ -n "$n_cpus" ] && [ "$n_cpus" -gt 8 ]; then
    sed -e '/^\[d\]$/,/^\[/ s/ --DRT-gcopt=parallel:0//' -e '/^\[scheme\]$/,/^\[/ s/GC_MARKERS=1 //' "$L" > "$T/unpinned"
    for n in d scheme; do
        case " $names " in *" $n "*) ;; *) continue ;; esac
        $G grade --json --languages "$T/unpinned" --language $n --source "$(source_of $n pool)" \
            --tests "$(tests_of pool)" --processes 256 $(limits_of pool) > "$T/unpinned.$n.json" 2> "$T/unpinned.$n.err"
        check "$n pool without its pin, on $n_cpus CPUs: unbounded (the check can fail)" "python3 -c '
import base64, json, sys
t = json.load(open(sys.argv[1]))[\"tests\"][0]
out = base64.b64decode(t[\"stdout\"]).decode(errors=\"replace\").strip()
print(\"  %s: %s\" % (t[\"status\"], out))
sys.exit(0 if out.startswith(\"unbounded\") else 1)' '$T/unpinned.$n.json'"
    done
elif [ -n "$n_cpus" ]; then
    echo "pool control skipped: a box sees $n_cpus CPUs (it needs more than 8)"
fi

# --- the worker's registry: the working set and its versions ---------------------
wname=$(rcli --scan --pattern 'gradeq:worker:*' | head -1)
rcli hget "$wname" languages > "$T/registry"
check "the worker's registry names each preset with its version" "python3 -c '
import json, sys
got = json.load(open(sys.argv[1]))
bad = [n for n in sys.argv[2:] if not got.get(n)]
print(\"  missing or without a version: %s\" % bad if bad else \"  %d presets, e.g. %s\" % (len(got), sorted(got.items())[:3]))
sys.exit(1 if bad else 0)' '$T/registry' $names"
for n in $names; do
    check "$n: the worker proved it at start" "grep -q 'language $n: [0-9].*, self-test passed' '$T/lw.log'"
done
# Its drain, rather than the kill at exit (bash would report the kill).
kill -TERM "$LAST_WORKER" && wait "$LAST_WORKER"
check "the worker stopped cleanly" '[ $? = 0 ]'
exit $FAIL
