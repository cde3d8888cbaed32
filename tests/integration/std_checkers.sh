#!/bin/sh
# testlib's standard checkers against gradeq's own, verdict by verdict:
# each checker of a testlib checkout (GRADEQ_TESTLIB_DIR=/path/to/testlib,
# a clone of github.com/MikeMirzayanov/testlib: third-party, never
# committed here) is built and run as a checker program by `gradeq
# grade`, and gradeq's --checker testlib:NAME on the same tests must give
# every test the same status. Without a checkout this prints how to run
# it and passes.
set -u
. "$(dirname "$0")/common.inc"
DIR=${GRADEQ_TESTLIB_DIR:-}
if [ -z "$DIR" ] || [ ! -f "$DIR/testlib.h" ]; then
    echo "skip: set GRADEQ_TESTLIB_DIR to a testlib checkout to compare its standard checkers with gradeq's"
    exit 0
fi
# Outputs against answers that tell the rules apart: spacing, case, lines,
# integer syntax, ranges, doubles and their errors, YES/NO, extra and
# missing output, malformed answers.
python3 - "$T/cases" <<'PY'
import os, sys
pairs = [
    ("1 2 3\n", "1 2 3\n"), ("1  2\n3", "1 2 3\n"), ("1 2", "1 2 3"), ("1 2 3 4", "1 2 3"), ("", ""),
    ("01", "1"), ("-0", "0"), ("+1", "1"), ("9223372036854775807", "9223372036854775807"),
    ("9223372036854775808", "1"), ("-9223372036854775808", "-9223372036854775808"), ("2147483648", "2147483648"),
    ("3 1 2", "1 2 3"), ("1 x", "1 2"), ("1 2", "1 x"), ("5 6", "5"), ("5", "5 6"),
    ("a b\r\nc\n", "a b\nc\n"), ("a b \nc\n", "a b\nc\n"), ("a   b\nc\n\n\n", "a b\nc\n"), ("a b\n", "a b\nc\n"),
    ("a b\nc\nd\n", "a b\nc\n"), ("a b c\n", "a b\nc\n"),
    ("1.0000009", "1"), ("1.0000014", "1"), ("1.000002", "1"), ("1000000.9", "1000000"), ("1.00009", "1"),
    ("1.000000002", "1"), ("2e3", "2000"), ("nan", "1"), ("inf", "1"), ("0x1p0", "1"), ("1.", "1"), (".5", "0.5"),
    ("1.00001 2", "1 2"), ("1 2.0001", "1 2"), ("1", "x"),
    ("yEs\n", "YES"), ("no", "YES"), ("maybe", "YES"), ("YES YES", "YES"), ("YES", "perhaps"),
    ("yes no YES", "YES NO yes"), ("yes", "YES NO"), ("Yes No", "yes no"),
    ("123456789012345678901234567890", "123456789012345678901234567890"), ("-00", "0"), ("12", "012"),
]
os.makedirs(sys.argv[1])
for i, (out, ans) in enumerate(pairs, 1):
    open(os.path.join(sys.argv[1], "%d.in" % i), "w").write(out)
    open(os.path.join(sys.argv[1], "%d.out" % i), "w").write(ans)
PY
statuses() { python3 -c "import json,sys; print(' '.join(t['status'] for t in json.load(sys.stdin)['tests']))"; }
for c in acmp dcmp fcmp hcmp icmp lcmp ncmp nyesno rcmp rcmp4 rcmp6 rcmp9 rncmp uncmp wcmp yesno; do
    if ! g++ -O2 -I"$DIR" -o "$T/$c" "$DIR/checkers/$c.cpp" 2>"$T/$c.cc"; then
        echo "FAIL cannot build testlib's $c"; FAIL=1; continue
    fi
    theirs=$(timeout 180 "$B/gradeq" grade --json --tests "$T/cases" --checker "$T/$c" -- cat 2>/dev/null | statuses)
    ours=$(timeout 180 "$B/gradeq" grade --json --tests "$T/cases" --checker "testlib:$c" -- cat 2>/dev/null | statuses)
    check "$c: every test's status as testlib's own checker gives it" \
        '[ -n "$ours" ] && [ "$ours" = "$theirs" ] || { echo "  testlib: $theirs"; echo "  gradeq:  $ours"; false; }'
done
exit $FAIL
