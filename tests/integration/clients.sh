#!/bin/sh
# The Python and Node packages (clients/) for real: libgradeq.so's exports,
# `pip install` with no index, then each package's own suite (pytest,
# node --test) against libgradeq.so and a real redis-server and worker.
# Node's suite is skipped, and said so, only when node is not installed.
set -u
. "$(dirname "$0")/common.inc"
cd "$(dirname "$0")/../.." || exit 1
LIB=$(realpath "$B/libgradeq.so.1")
export GRADEQ_LIB="$LIB"

# --- libgradeq.so exports exactly the functions sandbox.h declares --------
want=$(grep -o '\bsbx_[a-z_]*(' sandbox/sandbox.h | tr -d '(' | sort -u)
got=$(nm -D --defined-only "$LIB" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u)
check "libgradeq.so exports only sandbox.h's functions" '[ -n "$want" ] && [ "$want" = "$got" ]'
check "libgradeq.so has a versioned soname" \
    'readelf -d "$LIB" | grep -q "SONAME.*\[libgradeq.so.1\]"'

# --- the Python package --------------------------------------------------
# Debian's python3 is the one with python3-pytest, -redis and -msgpack.
PY=""
for p in ${GRADEQ_PYTHON:-} /usr/bin/python3 python3; do
    "$p" -c 'import pytest, redis, msgpack' 2>/dev/null && { PY=$p; break; }
done
if [ -z "$PY" ]; then
    echo "FAIL no python3 with pytest, redis and msgpack (make deps installs them)"; exit 1
fi
check "pip installs the package with no index" \
    '"$PY" -m venv --system-site-packages "$T/venv" && PIP_NO_INDEX=1 "$T/venv/bin/pip" install -q ./clients/python'
check "the installed package runs a program" \
    '(cd "$T" && "$T/venv/bin/python" -c "import gradeq; assert gradeq.__file__.startswith(\"$T/venv/\"); assert gradeq.run([\"echo\", \"hi\"]).stdout == b\"hi\n\"")'

# Outside a checkout and without GRADEQ_LIB, the installed library is found by its soname.
make -s --no-print-directory -o "$B/libgradeq.so" -o "$B/libgradeq.so.1.0.0" install-lib B="$B" DESTDIR="$T/root" \
    PREFIX=/usr >"$T/install.log" 2>&1
check "the installed package finds the installed library" \
    '(cd "$T" && env -u GRADEQ_LIB LD_LIBRARY_PATH="$T/root/usr/lib" "$T/venv/bin/python" -c "import gradeq, gradeq._lib as l; assert gradeq.run([\"true\"]).ok; assert l.lib()._name == \"libgradeq.so.1\"")'

start_redis || exit 1
start_worker w1 --threads 2
export GRADEQ_TEST_REDIS="unix://$SOCK"
check "python: pytest" '"$PY" -m pytest -q -p no:cacheprovider clients/python/tests'

# --- the Node package ----------------------------------------------------
# Its locked dependencies are installed here, once per package-lock.json.
if command -v node >/dev/null 2>&1; then
    check "node: dependencies of package-lock.json installed" \
        '[ clients/node/node_modules/.package-lock.json -nt clients/node/package-lock.json ] ||
         (cd clients/node && npm ci --no-audit --no-fund --loglevel=error)'
    check "node: node --test" '(cd clients/node && node --test test/*.test.js)'
else
    echo "skip node: not installed"
fi
exit $FAIL
