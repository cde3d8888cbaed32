#!/bin/sh
# Installs the Debian packages gradeq needs, when any is missing. Safe to run
# again: it does nothing when all are there.
#
#   install-deps.sh build   what compiling needs (every build runs this
#                           first; clang too when $CC is clang)
#   install-deps.sh         everything: the build, the tests, the demo, the
#                           fuzzers (make deps, make test, make demo), and
#                           the toolchains of the presets in TEST_LANGUAGES
#                           (the others' tests are skipped, named)
#   install-deps.sh tests   the same without the presets' toolchains (but
#                           C, C++ and Python 3's): a run of chosen tests
#                           that grade no other language
#   install-deps.sh --languages [NAMES]
#                           the Debian packages of these presets of
#                           deploy/languages (of all of them without NAMES):
#                           an operator's one command for a worker's
#                           toolchains ($GRADEQ_LANGUAGES_FILE: another file)
#
# Not root: it names the missing packages and the command that installs
# them, and fails. Two builds at once (make check's plain and sanitizer
# halves) take turns on one lock, so apt never runs twice.
set -e
BUILD="build-essential pkg-config libseccomp-dev libhiredis-dev libmsgpack-dev zlib1g-dev"
ALL="$BUILD libcmocka-dev redis-server clang libclang-rt-14-dev iproute2 procps curl python3"
# The clients (clients/python, clients/node): Debian's Python modules, and
# node with npm unless a node is already installed (NodeSource's nodejs
# package carries its own npm and conflicts with Debian's).
ALL="$ALL python3-redis python3-msgpack python3-pytest python3-venv"
command -v node >/dev/null 2>&1 || ALL="$ALL nodejs npm"
# The presets make check installs and tests (tests/integration/languages.sh;
# the rest are tested where installed): what a course or a contest uses
# most, within CI's time. Their packages come from deploy/languages.
TEST_LANGUAGES="c cpp python3 java go rust javascript pascal ruby php haskell bash"
LANGUAGES_FILE=${GRADEQ_LANGUAGES_FILE:-$(dirname "$0")/../deploy/languages}

# languages_packages NAMES: the packages of those presets (all when none);
# an unknown name is an error.
languages_packages() {
    list=$(awk -v want=" $* " '
        /^\[/ { name = substr($0, 2, length($0) - 2); seen[name] = 1; next }
        /^packages[ \t]*=/ && (want == "  " || index(want, " " name " ")) { sub(/^packages[ \t]*=[ \t]*/, ""); print }
        END { n = split(want, w, " "); for (i = 1; i <= n; i++) if (!(w[i] in seen)) { print "no preset " w[i] " in '"$LANGUAGES_FILE"'" > "/dev/stderr"; exit 1 } }
    ' "$LANGUAGES_FILE") || return 1
    echo $list | tr ' ' '\n' | sort -u | tr '\n' ' '
}

case "${1:-all}" in
build) PKGS=$BUILD; case "${CC:-cc}" in *clang*) PKGS="$PKGS clang libclang-rt-14-dev" ;; esac ;;
all) PKGS="$ALL $(languages_packages $TEST_LANGUAGES)" || exit 2 ;;
tests) PKGS="$ALL $(languages_packages c cpp python3)" || exit 2 ;;
--languages) shift; PKGS=$(languages_packages "$@") || exit 2 ;;
*) echo "usage: $0 [build|all|tests|--languages [NAMES]]" >&2; exit 2 ;;
esac

missing() {
    m=""
    for p in $PKGS; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || m="$m $p"
    done
    echo "$m"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    # Not Debian: the build needs these pkg-config modules and a C compiler.
    pkg-config --exists libseccomp hiredis msgpack zlib 2>/dev/null && exit 0
    echo "gradeq needs a C compiler, pkg-config and the development files of libseccomp, hiredis, msgpack-c and zlib" >&2
    exit 1
fi
[ -z "$(missing)" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages:$(missing)" >&2
    echo "install them as root: apt-get install$(missing)   (or run make as root)" >&2
    exit 1
fi
[ -d /var/lock ] || mkdir -p "$(readlink -f /var/lock)"  # a fresh container has no /run/lock
exec 9>/var/lock/gradeq-install-deps.lock
flock 9
missing=$(missing)
[ -z "$missing" ] && exit 0
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# A machine's first minutes often have apt busy already (unattended-upgrades
# at first boot, an install in another shell): wait for it, then go on.
wait_lock="-o DPkg::Lock::Timeout=600"
apt-get $wait_lock update -qq
apt-get $wait_lock install -y -qq $missing >/dev/null
# The packaged redis-server starts a system instance we do not use.
case "$missing" in *redis-server*) systemctl disable --now redis-server >/dev/null 2>&1 || true ;; esac
