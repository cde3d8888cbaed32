#!/bin/sh
# mk_ab.sh DIR: a Polygon-shaped A+B package, as Codeforces exports
# one, for the tests: problem.xml with a tests testset (limits, patterns,
# points, groups with complete-group and each-test and a dependency), a
# generated test, answers missing for the main solution to make, a
# checker following testlib's conventions (written here: testlib.h is
# third-party and never committed; the package carries a header of ours
# in its place), a generator, and tagged solutions (main, wrong-answer).
set -eu
D=$1
S=$(dirname "$0")
mkdir -p "$D/files" "$D/solutions" "$D/tests"
cp "$S/ab_check.cpp" "$D/files/check.cpp"
cp "$S/ab_gen.cpp" "$D/files/gen.cpp"
cp "$S/ab_header.h" "$D/files/testlib.h"
cp "$S/ab_main.cpp" "$D/solutions/main.cpp"
cp "$S/ab_wa.cpp" "$D/solutions/wa.cpp"
printf '1 2\n' > "$D/tests/01"; printf '3\n' > "$D/tests/01.a"
printf '5 6\n' > "$D/tests/02"; printf '11\n' > "$D/tests/02.a"
printf '7 8\n' > "$D/tests/03"
printf '60 50\n' > "$D/tests/05"
printf '1 1\n' > "$D/tests/06"
cp "$S/ab_problem.xml" "$D/problem.xml"
