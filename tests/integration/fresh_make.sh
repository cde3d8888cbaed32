#!/bin/sh
# A fresh machine's first make, read off the Makefile's own plan (make -n
# into an empty build dir, with a cc and a pkg-config that only log their
# calls): parsing the Makefile asks neither (a fresh machine has neither
# until the package step ran, and an answer read then would stick), and
# every compile waits for the packages it needs, also under -j: the build's
# step before any object, the tests' step (cmocka) before the units'.
set -u
. "$(dirname "$0")/common.inc"
cd "$(dirname "$0")/../.." || exit 1
mkdir "$T/bin"
for tool in cc pkg-config; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\nexit 1\n' "$tool" "$T" >"$T/bin/$tool"
    chmod +x "$T/bin/$tool"
done
plan() { PATH="$T/bin:$PATH" make -n --no-print-directory B="$T/b" CC=cc "$@" 2>&1; }

plan "$T/b/.deps" >"$T/parse.log"
check "parsing the Makefile runs neither cc nor pkg-config" '[ ! -s "$T/calls" ] || { cat "$T/calls"; false; }'

# first_line PATTERN FILE: the number of the first line matching, or 0.
first_line() { n=$(grep -n -m1 -e "$1" "$2" | cut -d: -f1); echo "${n:-0}"; }
# waits TARGET STEP: the plan of TARGET runs STEP before its first compile.
waits() {
    plan "$1" >"$T/plan.log"
    step=$(first_line "$2" "$T/plan.log") compile=$(first_line ' -c \| -o ' "$T/plan.log")
    [ "$step" -gt 0 ] && [ "$compile" -gt "$step" ] || { echo "  plan of $1:"; sed 's/^/    /' "$T/plan.log"; false; }
}
src() { for f in $1; do [ -e "$f" ] && { echo "${f%.c}"; return; }; done; }
sbx=$(src "sandbox/*.c") prog=$(src "tests/progs/*.c") unit=$(src "tests/unit/test_*.c")
lib=$(src "tests/lib/*.c") fuzz=$(src "tests/fuzz/fuzz_*.c")
build="install-deps.sh build$"
check "a sandbox object waits for the build's packages" "waits '$T/b/obj/$sbx.o' '$build'"
check "the shared library's object waits for them" "waits '$T/b/pic/$sbx.o' '$build'"
check "a hostile program waits for them" "waits '$T/b/progs/${prog##*/}' '$build'"
check "a fuzz target waits for them" "waits '$T/b/fuzz/${fuzz##*/}' '$build'"
check "a unit test's object waits for the tests' packages (cmocka)" "waits '$T/b/obj/$unit.o' 'install-deps.sh$'"
check "a test library object waits for them" "waits '$T/b/obj/$lib.o' 'install-deps.sh$'"
exit $FAIL
