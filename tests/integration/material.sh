#!/bin/sh
# Problem material is untrusted: hostile tests folders and packages,
# through `gradeq grade --tests`, `gradeq grade --problem`, `gradeq
# submit` and raw worker jobs. Each attack is built here and reaches for
# a root-only marker file outside the material (links, hard links, paths
# with "..", a DTD, an #include, a generator's command line, a checker
# that writes where it should not, archive members that climb or lie);
# the marker's bytes must never appear in any output or in the queue, no
# file the attack tries to create may exist after, the package must be
# the same after as before, the refusal names the path and the rule, and
# the worker answers BAD_JOB and goes on. Every run under an outer bound.
set -u
. "$(dirname "$0")/common.inc"
G="timeout 60 $B/gradeq"

SECRET=$T/secret
mkdir -p "$SECRET" && chmod 700 "$SECRET"
MARK="MARKER-$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
echo "$MARK" > "$SECRET/marker"; chmod 600 "$SECRET/marker"
# no_marker FILE...: none of them holds the marker.
no_marker() { ! grep -qaF "$MARK" "$@" 2>/dev/null; }
# refused NAME RULE ARGS...: gradeq grade exits 2, says RULE, shows no marker.
refused() {
    name=$1 rule=$2; shift 2
    $G grade "$@" > "$T/$name.out" 2> "$T/$name.err"; rc=$?
    [ $rc = 2 ] && grep -qF "$rule" "$T/$name.err" && no_marker "$T/$name.out" "$T/$name.err" ||
        { echo "  $name: exit $rc: $(cat "$T/$name.err")"; return 1; }
}
tests_dir() { rm -rf "$T/$1"; mkdir -p "$T/$1"; echo "1 2" > "$T/$1/01"; echo 3 > "$T/$1/01.a"; }

# --- tests folders ------------------------------------------------------------
tests_dir ans; rm "$T/ans/01.a"; ln -s "$SECRET/marker" "$T/ans/01.a"
check "--tests: an answer that is a link to a root-only file is refused, unread" \
    'refused ans "01.a: a symbolic link" --tests "$T/ans" -- cat'
tests_dir inp; rm "$T/inp/01"; ln -s "$SECRET/marker" "$T/inp/01"
check "--tests: an input that is such a link: refused, never the program's stdin" \
    'refused inp "01: a symbolic link" --tests "$T/inp" -- cat'
tests_dir hard; rm "$T/hard/01.a"; ln "$SECRET/marker" "$T/hard/01.a"
check "--tests: a hard link to it: refused" 'refused hard "01.a: a file with other hard links" --tests "$T/hard" -- cat'
$G grade --allow-hardlinks --tests "$T/hard" -- cat > "$T/hard_ok.out" 2>&1
check "--allow-hardlinks: the operator's choice reads it" 'grep -qF "$MARK" "$T/hard_ok.out"'
tests_dir dang; ln -s /nonexistent "$T/dang/02.a"; echo 5 > "$T/dang/02"
check "--tests: a dangling link as an answer is refused, not skipped" \
    'refused dang "02.a: a symbolic link" --tests "$T/dang" -- cat'
tests_dir fine; echo 3 > "$T/fine/01"; ln -s "$T/fine" "$T/fine_link"
$G grade --tests "$T/fine_link" -- cat > "$T/fine.out" 2>&1
check "the folder itself may be reached through a link (the operator's path)" 'grep -q "1/1 passed" "$T/fine.out"'

# --- gradeq submit ships nothing it would not read -------------------------------
start_redis || exit 1
$G submit --tests "$T/ans" -- cat > "$T/sub.out" 2> "$T/sub.err"; rc=$?
check "submit --tests with a link: exit 2, nothing queued, no marker" \
    '[ $rc = 2 ] && grep -q "symbolic link" "$T/sub.err" && [ "$(rcli xlen gradeq:jobs)" = 0 ] && no_marker "$T/sub.out" "$T/sub.err"'
$G submit --tests "$T/hard" -- cat > "$T/sub2.out" 2> "$T/sub2.err"; rc=$?
check "submit --tests with a hard link: exit 2, nothing queued" \
    '[ $rc = 2 ] && grep -q "other hard links" "$T/sub2.err" && [ "$(rcli xlen gradeq:jobs)" = 0 ]'
check "no marker in the queue" '! rcli --raw xrange gradeq:jobs - + | grep -qaF "$MARK"'

# --- packages: gradeq grade --problem ----------------------------------------------
S=$(dirname "$0")/problems
LANGS="--languages deploy/languages"
PWN=$T/pwned          # what the attacks try to create
pkg() { rm -rf "$T/$1"; "$S/mk_ab.sh" "$T/$1"; }
prob() { name=$1 rule=$2; shift 2; refused "$name" "$rule" $LANGS --problem "$@" --language cpp --source "$S/ab_main.cpp"; }
pkg plink; rm "$T/plink/files/check.cpp"; ln -s "$SECRET/marker" "$T/plink/files/check.cpp"
check "--problem: a checker source that is a link to a root-only file: refused, unread" \
    'prob plink "files/check.cpp: a symbolic link" "$T/plink"'
pkg pdir; mkdir "$T/pdir/x"; mv "$T/pdir/tests" "$T/pdir/x/"; ln -s "$SECRET" "$T/pdir/tests"
check "--problem: a tests folder that is a link: refused" 'prob pdir "a symbolic link" "$T/pdir"'
pkg phard; rm "$T/phard/tests/01.a"; ln "$SECRET/marker" "$T/phard/tests/01.a"
check "--problem: a hard link to it: refused" 'prob phard "tests/01.a: a file with other hard links" "$T/phard"'
pkg pdot; sed -i 's|tests/%02d.a|../secret/%02d|' "$T/pdot/problem.xml"
check "--problem: an answer pattern climbing out: refused" 'prob pdot "a path no test may have" "$T/pdot"'
pkg pabs; sed -i "s|files/check.cpp\" type|$SECRET/marker\" type|" "$T/pabs/problem.xml"
check "--problem: an absolute source path: refused" 'prob pabs "an absolute path" "$T/pabs"'
pkg pdtd; sed -i "s|<problem revision|<!DOCTYPE problem [<!ENTITY m SYSTEM \"file://$SECRET/marker\">]><problem revision|; s|<name language=\"english\" value=\"A+B\"/>|<name language=\"english\" value=\"\&m;\"/>|" "$T/pdtd/problem.xml"
check "--problem: an external entity: no DTD is read" 'prob pdtd "no DTD is read" "$T/pdtd"'
pkg pesc; sed -i "s|name=\"2\" points-policy|name=\"$(printf '\033')]0;pwned$(printf '\007')\" points-policy|; s|group=\"2\"|group=\"x\"|g" "$T/pesc/problem.xml"
check "--problem: a group name with a terminal's escape: refused, shown escaped" \
    'prob pesc "is not printable ASCII" "$T/pesc" && ! grep -q "$(printf "\033")" "$T/pesc.err"'
pkg pinc; printf '#include "%s"\nint main() { return 0; }\n' "$SECRET/marker" > "$T/pinc/files/check.cpp"
check "--problem: a checker that #includes a host file: compiled in the box, which has no such file; no byte of it shown" \
    'prob pinc "checker files/check.cpp does not compile" "$T/pinc"'
pkg pgen; sed -i "s|cmd=\"gen 70 80\"|cmd=\"gen 70 80 > tests/04\"|" "$T/pgen/problem.xml"; rm -f "$T/pgen/tests/04"
check "--problem: a generator command with a redirection: refused (no shell)" 'prob pgen "a redirection" "$T/pgen"'
pkg pgen2; sed -i "s|cmd=\"gen 70 80\"|cmd=\"gen 70;touch\$IFS$PWN \$(touch$PWN) 80\"|" "$T/pgen2/problem.xml"
$G grade $LANGS --json --problem "$T/pgen2" --language cpp --source "$S/ab_main.cpp" > "$T/pgen2.json" 2>&1
check "--problem: shell words in a generator's command are its arguments, never a shell's" \
    '[ ! -e "$PWN" ] && grep -q "passed\|tests" "$T/pgen2.json"'

# A checker that writes where it can: the package, the host, its own files.
pkg honest
sum_pkg() { (cd "$T/$1" && find . -type f | sort | xargs md5sum) | md5sum; }
before=$(sum_pkg honest)
$G grade $LANGS --json --problem "$T/honest" --language cpp --source "$S/ab_wa.cpp" > "$T/h1.json" 2>/dev/null
cp -r "$T/honest" "$T/hostile"
cat > "$T/hostile/files/check.cpp" <<CPP
#include "testlib.h"
#include <string.h>
/* Judges honestly, then writes everywhere it can think of. */
int main(int argc, char **argv)
{
    if (argc < 4)
        return 3;
    int oa, oo;
    long long a = read_ll(fopen(argv[3], "r"), &oa), b = read_ll(fopen(argv[2], "r"), &oo);
    const char *targets[] = { "$T/honest/tests/01.a", "$T/hostile/tests/01.a", "$PWN", "/tmp/pwned",
                              "../tests/02.a", "answer", "input", "testlib.h", argv[0] };
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        FILE *f = fopen(targets[i], "w");
        if (f)
            fputs("PWNED\n", f), fclose(f);
    }
    return !oa ? 3 : !oo ? 2 : a != b;
}
CPP
hbefore=$(sum_pkg hostile)
$G grade $LANGS --json --problem "$T/hostile" --language cpp --source "$S/ab_wa.cpp" > "$T/h2.json" 2>/dev/null
$G grade $LANGS --json --problem "$T/hostile" --language cpp --source "$S/ab_wa.cpp" > "$T/h3.json" 2>/dev/null
$G grade $LANGS --json --problem "$T/honest" --language cpp --source "$S/ab_wa.cpp" > "$T/h4.json" 2>/dev/null
verdicts() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['score'], [t['status'] for t in d['tests']])" "$1" 2>&1; }
check "a checker that writes everywhere: its own package unchanged, the same verdicts twice" \
    '[ "$(sum_pkg hostile)" = "$hbefore" ] && [ "$(verdicts "$T/h2.json")" = "$(verdicts "$T/h3.json")" ]'
check "... and the other package graded before and after it: unchanged, the same result" \
    '[ "$(sum_pkg honest)" = "$before" ] && [ "$(verdicts "$T/h1.json")" = "$(verdicts "$T/h4.json")" ] && [ "$(verdicts "$T/h1.json")" = "$(verdicts "$T/h2.json")" ]'
check "... nothing it wrote exists on the host" '[ ! -e "$PWN" ] && ! grep -q PWNED /tmp/pwned 2>/dev/null'

# --- archives ----------------------------------------------------------------------
zipit() { python3 - "$@" <<'PY'
import sys, zipfile, stat
out, kind = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED)
z.writestr('01', '1 2\n'); z.writestr('01.a', '3\n')
if kind == 'climb':
    z.writestr('../../pwned', 'x')
elif kind == 'link':
    i = zipfile.ZipInfo('02.a'); i.create_system = 3; i.external_attr = (stat.S_IFLNK | 0o777) << 16
    z.writestr(i, sys.argv[3]); z.writestr('02', '1 1\n')
elif kind == 'abs':
    i = zipfile.ZipInfo('02'); z.writestr(i, 'x'); z.close()
    b = bytearray(open(out, 'rb').read()); b = b.replace(b'02', b'/x', 2); open(out, 'wb').write(b)
    sys.exit(0)
elif kind == 'bomb':
    z.writestr('02', '0' * 2000); z.writestr('02.a', '0\n')
z.close()
if kind == 'bomb':   # the member says it inflates to 4 GB - 1
    b = bytearray(open(out, 'rb').read())
    i = b.rfind(b'PK\x01\x02', 0, len(b))
    while i >= 0:
        if b[i + 46:i + 48] == b'02' and b[i + 28] == 2:
            b[i + 24:i + 28] = (0xfffffffe).to_bytes(4, 'little')
        i = b.rfind(b'PK\x01\x02', 0, i)
    open(out, 'wb').write(b)
PY
}
zipit "$T/climb.zip" climb
check "a zip member climbing out (../../pwned): refused, nothing written" \
    'refused zclimb "../../pwned: a '"'"'..'"'"' component" --problem "$T/climb.zip" -- cat && [ ! -e "$T/../pwned" ]'
zipit "$T/link.zip" link "$SECRET/marker"
check "a zip member that is a symbolic link: refused" 'refused zlink "02.a: a symbolic link" --problem "$T/link.zip" -- cat'
zipit "$T/bomb.zip" bomb
check "a zip member claiming 4 GB from a few bytes: refused before inflating" \
    'refused zbomb "a bomb" --problem "$T/bomb.zip" -- cat'

# --- YAML ----------------------------------------------------------------------------
mkdir -p "$T/ytag"; printf 'test_cases: !!python/object/apply:os.system ["touch %s"]\n' "$PWN" > "$T/ytag/init.yml"
check "init.yml with a constructing tag: refused, nothing run" \
    'refused ytag "a tag (!): refused, nothing is constructed" --problem "$T/ytag" -- cat && [ ! -e "$PWN" ]'

# --- gradeq submit --problem ships what it read, nothing else -----------------------
MARK2="NOTREAD-$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
pkg ship; mkdir -p "$T/ship/statements"; echo "$MARK2" > "$T/ship/statements/notes.txt"; echo "$MARK2" > "$T/ship/tests/99.txt"
rcli del gradeq:jobs >/dev/null
$G submit $LANGS --problem "$T/ship" --language cpp --source "$S/ab_main.cpp" > "$T/ship.out" 2> "$T/ship.err"
check "submit --problem: the job carries the files the problem read, not the folder's others" \
    'rcli --raw xrange gradeq:jobs - + | grep -aq "gen 70 80\|problem.xml" && ! rcli --raw xrange gradeq:jobs - + | grep -aqF "$MARK2"'
$G submit $LANGS --problem "$T/plink" --language cpp --source "$S/ab_main.cpp" > "$T/sl.out" 2> "$T/sl.err"; rc=$?
check "submit --problem with a link in the package: exit 2, nothing more queued, no marker" \
    '[ $rc = 2 ] && [ "$(rcli xlen gradeq:jobs)" = 1 ] && no_marker "$T/sl.out" "$T/sl.err" && ! rcli --raw xrange gradeq:jobs - + | grep -aqF "$MARK"'
rcli del gradeq:jobs >/dev/null

# --- raw worker jobs -------------------------------------------------------------------
mkdir -p "$T/held"; "$S/mk_ab.sh" "$T/held/ab"; ln -s "$SECRET" "$T/held/evil"
start_worker mw --threads 1 --languages deploy/languages --problems "$T/held"
MW=$LAST_WORKER
held_sum=$( (cd "$T/held/ab" && find . -type f | sort | xargs md5sum) | md5sum)
raw() { python3 - "$@" <<'PY' > "$T/raw.bin"
import sys, json
def pack(o):
    if isinstance(o, dict):
        b = bytes([0xde]) + len(o).to_bytes(2, "big")
        for k, v in o.items(): b += pack(k) + pack(v)
        return b
    if isinstance(o, str):
        e = o.encode(); return bytes([0xdb]) + len(e).to_bytes(4, "big") + e
    raise TypeError(o)
sys.stdout.buffer.write(pack(json.loads(sys.argv[1])))
PY
rcli -x xadd gradeq:jobs '*' job < "$T/raw.bin" >/dev/null; }
answer() { timeout 100 "$B/gradeq" result --wait 120 --json "$1" > "$T/$1.json" 2>/dev/null; }
jstr() { python3 -c "import json,sys; print(json.dumps(open(sys.argv[1]).read()))" "$1"; }
MAIN=$(jstr "$S/ab_main.cpp")
badjob() { # ID WANT: answered BAD_JOB with WANT in its error, no marker
    answer "$1"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['status']=='BAD_JOB' and sys.argv[2] in d['error'] else 1)" "$T/$1.json" "$2" &&
        no_marker "$T/$1.json" || { echo "  $1: $(cat "$T/$1.json")"; return 1; }
}
raw "{\"id\":\"r1\",\"problem_files\":{\"../x\":\"y\"},\"language\":\"cpp\",\"source\":$MAIN}"
check "worker: problem_files with a path climbing out: BAD_JOB naming it" 'badjob r1 "problem_files[\"../x\"]: path escapes"'
raw "{\"id\":\"r2\",\"problem\":\"evil\",\"language\":\"cpp\",\"source\":$MAIN}"
check "worker: a held problem that is a link (to a root-only folder): BAD_JOB" 'badjob r2 "not a folder (a link?)"'
raw "{\"id\":\"r3\",\"problem\":\"../etc\",\"language\":\"cpp\",\"source\":$MAIN}"
check "worker: a problem name with a path in it: BAD_JOB" "badjob r3 \"byte 0 is not one of\""
INC=$(jstr "$T/pinc/files/check.cpp"); XML=$(jstr "$T/pinc/problem.xml")
raw "{\"id\":\"r4\",\"problem_files\":{\"problem.xml\":$XML,\"files/check.cpp\":$INC,\"files/testlib.h\":\"\",\"files/gen.cpp\":$(jstr "$S/ab_gen.cpp"),\"tests/01\":\"1 2\\n\",\"tests/01.a\":\"3\\n\",\"tests/02\":\"1 1\\n\",\"tests/03\":\"1 1\\n\",\"tests/05\":\"1 1\\n\",\"tests/06\":\"1 1\\n\",\"solutions/main.cpp\":$MAIN},\"language\":\"cpp\",\"source\":$MAIN}"
check "worker: a checker #including a host file: BAD_JOB 'does not compile', no byte of it" 'badjob r4 "checker files/check.cpp does not compile"'
DTD=$(jstr "$T/pdtd/problem.xml")
raw "{\"id\":\"r5\",\"problem_files\":{\"problem.xml\":$DTD},\"language\":\"cpp\",\"source\":$MAIN}"
check "worker: an external entity: BAD_JOB 'no DTD is read'" 'badjob r5 "no DTD is read"'
raw "{\"id\":\"r6\",\"problem\":\"ab\",\"language\":\"cpp\",\"source\":$MAIN}"
answer r6
check "worker: after all that, the next job is graded normally" \
    'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d[\"status\"]==\"OK\" and d[\"score\"]==100 else 1)" "$T/r6.json"'
check "worker: still up, the held problem unchanged, nothing written on the host" \
    'kill -0 $MW && [ "$( (cd "$T/held/ab" && find . -type f | sort | xargs md5sum) | md5sum)" = "$held_sum" ] && [ ! -e "$PWN" ]'
exit $FAIL
