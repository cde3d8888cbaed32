#!/bin/sh
# `make install` into a scratch DESTDIR: the layout, the units pointed at the
# installed worker and accepted by systemd-analyze verify (where it exists),
# the man pages rendered by man without warnings, and every option of the
# commands documented in the man pages and the example environment file.
set -u
. "$(dirname "$0")/common.inc"
cd "$(dirname "$0")/../.." || exit 1
D=$T/root
# -o: install the binaries the suite built ($B), never rebuild them here.
make -s --no-print-directory -o "$B/gradeq" -o "$B/gradeq-queue" -o "$B/gradeq-worker" install B="$B" DESTDIR="$D" PREFIX=/usr >"$T/make.log" 2>&1; rc=$?
check "make install DESTDIR=... PREFIX=/usr" '[ $rc -eq 0 ] || { cat "$T/make.log"; false; }'

layout="usr/bin/gradeq usr/bin/gradeq-queue usr/sbin/gradeq-worker usr/share/man/man1/gradeq.1 usr/share/man/man8/gradeq-worker.8
usr/lib/systemd/system/gradeq-worker.service usr/lib/systemd/system/gradeq-worker@.service
usr/share/doc/gradeq/gradeq-worker.env usr/share/doc/gradeq/operations.md usr/share/doc/gradeq/protocol.md
usr/share/doc/gradeq/security.md
usr/share/doc/gradeq/redis/redis.conf usr/share/doc/gradeq/redis/users.acl usr/share/doc/gradeq/redis/acl-passwords.sh
usr/lib/libgradeq.so.1.0.0 usr/include/gradeq/sandbox.h usr/share/gradeq/languages"
check "every file in place" '(for f in $layout; do [ -f "$D/$f" ] || { echo "  missing $f"; exit 1; }; done)'
check "nothing else installed (nothing in /etc)" '[ "$(cd "$D" && find . -type f | sed "s|^\./||" | sort)" = "$(echo $layout | tr " " "\n" | sort)" ]'
check "modes: programs 0755, the rest 0644" '[ "$(stat -c %a "$D/usr/bin/gradeq" "$D/usr/bin/gradeq-queue" "$D/usr/sbin/gradeq-worker" "$D/usr/share/doc/gradeq/redis/acl-passwords.sh" | sort -u)" = 755 ] &&
    [ "$(cd "$D" && find . -type f ! -name gradeq ! -name gradeq-queue ! -name gradeq-worker ! -name "*.sh" -exec stat -c %a {} + | sort -u)" = 644 ]'
check "libgradeq.so and its soname link to the library" '[ "$(readlink "$D/usr/lib/libgradeq.so")" = libgradeq.so.1.0.0 ] && [ "$(readlink "$D/usr/lib/libgradeq.so.1")" = libgradeq.so.1.0.0 ]'
check "installed commands run" '"$D/usr/bin/gradeq" --help >/dev/null && "$D/usr/sbin/gradeq-worker" --help >/dev/null'
# gradeq starts without the dynamic loader (but in a sanitized build, whose
# runtimes need it); its queue commands are gradeq-queue's, found beside it
# wherever it is installed.
if nm -D "$B/gradeq" 2>/dev/null | grep -q __asan_init; then
    check "a sanitized gradeq is linked dynamically" 'readelf -lW "$D/usr/bin/gradeq" | grep -q INTERP'
else
    check "gradeq is static (no program interpreter)" '! readelf -lW "$D/usr/bin/gradeq" | grep -q INTERP'
fi
check "installed queue commands run (gradeq-queue beside gradeq)" \
    '"$D/usr/bin/gradeq" submit --help | grep -q "^usage: gradeq submit" && "$D/usr/bin/gradeq" stats --help >/dev/null'
check "units start the installed worker" '[ "$(grep -h ^ExecStart= "$D"/usr/lib/systemd/system/*.service | sort -u)" = "ExecStart=/usr/sbin/gradeq-worker" ]'
check "template differs only in name and env file" '[ "$(diff deploy/systemd/gradeq-worker.service deploy/systemd/gradeq-worker@.service | grep "^[<>] [^#]" | sort)" = "$(printf "%s\n" "< Description=gradeq grading worker" "< EnvironmentFile=/etc/gradeq/worker.env" "> Description=gradeq grading worker (%i)" "> EnvironmentFile=/etc/gradeq/%i.env" | sort)" ]'

D2=$T/root2
make -s --no-print-directory -o "$B/gradeq" -o "$B/gradeq-queue" -o "$B/gradeq-worker" install B="$B" DESTDIR="$D2" >/dev/null 2>&1
check "default PREFIX is /usr/local" '[ -x "$D2/usr/local/sbin/gradeq-worker" ] && [ -f "$D2/usr/local/lib/systemd/system/gradeq-worker.service" ] && grep -q "^ExecStart=/usr/local/sbin/gradeq-worker$" "$D2/usr/local/lib/systemd/system/gradeq-worker.service"'

# Every option is documented: in the man pages, and each GRADEQ_* of the
# worker in the example environment file.
opts() { "$@" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u; }
undoc() { for o in $1; do grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$2" || echo "$o"; done; }
check "gradeq-worker(8) documents every option" '[ -z "$(undoc "$(opts "$B/gradeq-worker")" docs/man/gradeq-worker.8)" ] || { undoc "$(opts "$B/gradeq-worker")" docs/man/gradeq-worker.8; false; }'
cmds=$("$B/gradeq" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
check "gradeq(1) documents every command ($(echo $cmds))" '[ -n "$cmds" ] && (for c in $cmds; do grep -q "^\.B gradeq $c\$" docs/man/gradeq.1 || { echo "  $c"; exit 1; }; done)'
check "gradeq(1) documents every option" 'o="$(for c in $cmds; do opts "$B/gradeq" "$c"; done)"; [ -z "$(undoc "$o" docs/man/gradeq.1)" ] || { undoc "$o" docs/man/gradeq.1; false; }'
check "gradeq-worker.env documents every GRADEQ_*" '(for v in $("$B/gradeq-worker" --help | grep -o "GRADEQ_[A-Z_]*" | sort -u); do grep -q "^#*$v=" deploy/systemd/gradeq-worker.env || { echo "  $v"; exit 1; }; done)'

if command -v man >/dev/null 2>&1; then
    for m in "$D/usr/share/man/man1/gradeq.1" "$D/usr/share/man/man8/gradeq-worker.8"; do
        check "man -l $(basename "$m") renders without warnings" 'out=$(LC_ALL=C.UTF-8 man --warnings -l "$m" 2>&1 >/dev/null); [ -z "$out" ] || { echo "$out"; false; }'
    done
else
    echo "skip man pages: no man here"
fi

# systemd-analyze verify reads ExecStart= on this machine's root: point it
# at the installed worker, keep everything else as installed.
if command -v systemd-analyze >/dev/null 2>&1; then
    mkdir -p "$T/units"
    for u in gradeq-worker.service gradeq-worker@.service; do
        sed "s|^ExecStart=/usr/sbin/|ExecStart=$D/usr/sbin/|" "$D/usr/lib/systemd/system/$u" > "$T/units/$u"
    done
    for u in gradeq-worker.service gradeq-worker@farm1.service; do
        check "systemd-analyze verify $u" 'out=$(systemd-analyze verify --man=no "$T/units/$u" 2>&1); [ -z "$out" ] || { echo "$out"; false; }'
    done
else
    echo "skip systemd-analyze verify: not installed here"
fi

exit $FAIL
