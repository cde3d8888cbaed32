#!/bin/sh
# Installs the Debian packages the build, the tests and the demo need, when
# any is missing. Safe to run again: it does nothing when all are there.
set -e
PKGS="build-essential pkg-config libseccomp-dev libhiredis-dev libmsgpack-dev libcmocka-dev redis-server clang libclang-rt-14-dev iproute2 procps curl python3"
# The clients (clients/python, clients/node): Debian's Python modules, and
# node with npm unless a node is already installed (NodeSource's nodejs
# package carries its own npm and conflicts with Debian's).
PKGS="$PKGS python3-redis python3-msgpack python3-pytest python3-venv"
command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -ne 0 ]; then echo "need root to install:$missing" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $missing >/dev/null
# The packaged redis-server starts a system instance we do not use.
systemctl disable --now redis-server >/dev/null 2>&1 || true
