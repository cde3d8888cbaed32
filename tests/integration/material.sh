#!/bin/sh
# Problem material is untrusted: hostile tests folders, through `gradeq
# grade --tests` and `gradeq submit --tests`. Each attack is a folder built
# here that reaches for a root-only marker file outside it (a symbolic
# link as an answer, as an input, as a directory; a hard link); the
# marker's bytes must never appear in any output, nothing may be queued,
# and the refusal names the path and the rule. Every run under an outer
# bound.
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
exit $FAIL
