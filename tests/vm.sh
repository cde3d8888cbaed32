#!/bin/sh
# Runs a chosen part of the suite in the Debian 12 guest (cgroup v2 unified,
# systemd as PID 1, kernel 6.1) that ../shared/vm boots under qemu, and fails
# when it fails. The guest gets a copy of this checkout's committed HEAD
# (git archive: what a fresh clone holds), builds it from nothing with the
# README's commands (so the fresh-machine set-up is tested every time;
# --prebuilt below is the exception), then runs each test from a root login
# shell, and again inside a delegated unit (systemd-run -p Delegate=yes), as
# the service runs.
#
#   tests/vm.sh [--login|--unit|--both] [--timeout S] [--cpus N]
#               [--languages NAMES] [--prebuilt] [TEST...]
#
# --cpus N boots the guest with N vCPUs (real CPUs to every program there:
# how runtimes that size their pools by the CPU count are proven bounded).
# --languages NAMES installs those presets' toolchains in the guest
# (tests/install-deps.sh --languages; with it, languages.sh needs no other
# preset's) and limits tests/integration/languages.sh to them
# (GRADEQ_LANGS), e.g.
#   tests/vm.sh --cpus 64 --login --languages "java kotlin go erlang elixir" \
#       tests/integration/languages.sh
# --prebuilt ships this checkout's build/ (made here first, from a tree
# without uncommitted changes, so it is HEAD's; the guest's Debian 12 has
# the same libraries) instead of building in the guest, and the guest
# checks that make has nothing left to do: for a run whose emulation is too
# slow to build (many vCPUs), not the fresh-machine test. Its package
# installs are no-ops when the image has the packages already
# (GRADEQ_VM_DIR: an image of its own, built by ../shared/vm/build-image.sh
# with GRADEQ_VM_EXTRA_PKGS naming what tests/install-deps.sh tests and
# --languages NAMES install, natively rather than emulated), e.g.
#   GRADEQ_VM_DIR=/var/tmp/gradeq-vm-langs GRADEQ_CASES=pool tests/vm.sh \
#       --cpus 64 --login --prebuilt --languages "java go erlang" \
#       tests/integration/languages.sh
# The tests learn the guest's CPUs (GRADEQ_CPUS, which languages.sh checks
# a box sees) and how much slower the guest computes than this machine
# (GRADEQ_SLOW, a whole number languages.sh scales its time limits by):
# tests/slowness.py's CPU time there over here, times 4 (JIT runtimes
# such as the JVM, whose code the emulator translates as it is written,
# are slower still there than a C compiler or Python's loop), or
# GRADEQ_SLOW from this environment. GRADEQ_CASES and GRADEQ_LANG_JOBS
# from this environment reach languages.sh there too.
#
# TEST: a test binary (build/tests/test_sandbox, or build-san/... for the
# ASan+UBSan build), an integration script
# (tests/integration/worker.sh), or a make target (test, check, bench).
# Default: the sandbox suites. Environment: GRADEQ_VM (the scripts'
# directory, default ../shared/vm beside the project), GRADEQ_VM_DIR (their
# image cache). The guest is emulated and slow: `make check` takes about 25
# minutes there, a boot one. Output is kept in $out/.vmout. Before the
# tests the guest runs tests/emulator_probe.c and warns when the emulator
# itself computes wrong (QEMU's TCG can store a wrong SETcc result on a
# page fault): a failure in such a guest proves nothing by itself.
set -eu
cd "$(dirname "$0")/.."
vm=${GRADEQ_VM:-../shared/vm}
mode=both timeout=5400 cpus=2 langs="" prebuilt=0
while [ $# -gt 0 ]; do
    case $1 in
    --login) mode=login ;;
    --unit) mode=unit ;;
    --both) mode=both ;;
    --timeout) timeout=$2; shift ;;
    --cpus) cpus=$2; shift ;;
    --languages) langs=$2; shift ;;
    --prebuilt) prebuilt=1 ;;
    -*) echo "usage: $0 [--login|--unit|--both] [--timeout S] [--cpus N] [--languages NAMES] [--prebuilt] [TEST...]" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
[ $# -gt 0 ] || set -- build/tests/test_sandbox build/tests/test_sandbox_cgroup build/tests/test_sandbox_isolation build/tests/test_sandbox_io build/tests/test_sandbox_concurrent
# The presets' toolchains (a long install in the emulated guest) only for
# a run that grades their languages.
deps=tests
for t in "$@"; do
    case $t in
    check|test|test-san|*presets.sh) deps=all ;;
    *languages.sh) [ -n "$langs" ] || deps=all ;;
    esac
done
[ -x "$vm/run.sh" ] || { echo "tests/vm.sh: no guest scripts in $vm (set GRADEQ_VM)" >&2; exit 2; }
slow=${GRADEQ_SLOW:-}
case $slow in ''|[1-9]|[1-9][0-9]|[1-9][0-9][0-9]) ;; *) echo "tests/vm.sh: GRADEQ_SLOW=$slow is not a whole number from 1" >&2; exit 2 ;; esac
cases=${GRADEQ_CASES:-} jobs=${GRADEQ_LANG_JOBS:-}
here_ref=$(tests/slowness.py) || { echo "tests/vm.sh: tests/slowness.py failed here" >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/gradeq-vm.XXXXXX")
mkdir "$out/gradeq"
git archive HEAD | tar -x -C "$out/gradeq"
# --prebuilt: build/ made here from HEAD's sources (a clean tree). The
# archive's files carry the commit's time, which may be later than the
# build: the copy's files all get the time of the copy, so make in the
# guest finds it up to date.
if [ $prebuilt = 1 ]; then
    git diff --quiet HEAD || { echo "tests/vm.sh: --prebuilt needs a tree without uncommitted changes (its build/ must be HEAD's)" >&2; exit 2; }
    targets=all
    for t in "$@"; do case $t in build/*) targets="$targets $t" ;; esac; done
    make -s -j2 $targets >/dev/null || { echo "tests/vm.sh: make $targets failed here" >&2; exit 2; }
    cp -a build "$out/gradeq/build"
    find "$out/gradeq/build" -exec touch -h -d "@$(date +%s)" {} +
fi
# The guest reaches the registries through this machine's network: where
# that re-signs TLS with a local authority, the guest trusts it as this
# machine does (npm's own bundle does not know it).
mkdir "$out/ca"
for crt in /usr/local/share/ca-certificates/*.crt; do [ -f "$crt" ] && cp "$crt" "$out/ca/"; done
cat > "$out/guest.sh" <<EOF
#!/bin/sh
# In the guest, as root in a login shell.
set -u
rm -rf /root/gradeq && cp -a /host/gradeq /root/gradeq && cd /root/gradeq || exit 1
echo "vm: \$(uname -r), \$(systemctl --version | head -1), cgroup \$(sed -n 's/^0:://p' /proc/self/cgroup)"
if ls /host/ca/*.crt >/dev/null 2>&1; then
    cp /host/ca/*.crt /usr/local/share/ca-certificates/ && update-ca-certificates >/dev/null 2>&1
    export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi
t0=\$(date +%s)
if [ $prebuilt = 0 ]; then
    make -j2 >/tmp/make.log 2>&1 || { echo "vm: make failed on the fresh guest"; tail -20 /tmp/make.log; exit 1; }
    echo "vm: built in \$(( \$(date +%s) - t0 )) s"
fi
cc -O2 -o /tmp/emulator_probe tests/emulator_probe.c && probe=\$(/tmp/emulator_probe) ||
    echo "vm: WARNING: the emulator mis-executes SETcc on a page's first write (\$probe): any failure below may be the emulator's, not gradeq's"
t0=\$(date +%s)
tests/install-deps.sh $deps >/tmp/deps.log 2>&1 || { echo "vm: installing the test packages failed"; cat /tmp/deps.log; exit 1; }
if [ -n "$langs" ]; then
    tests/install-deps.sh --languages $langs >/tmp/langs.log 2>&1 ||
        { echo "vm: installing the languages $langs failed"; cat /tmp/langs.log; exit 1; }
    export GRADEQ_LANGS="$langs"
fi
echo "vm: packages in \$(( \$(date +%s) - t0 )) s\$(cat /tmp/deps.log /tmp/langs.log 2>/dev/null | sed -n 's/^installing:/ (installed:/p' | tr '\n' ')')"
# The shipped build/ (--prebuilt) once the headers it was made with are
# there: nothing may be left for make to do.
if [ $prebuilt = 1 ]; then
    make -q all || { echo "vm: the shipped build/ is not up to date in the guest (make -q all)"; exit 1; }
    echo "vm: build/ shipped from the host (--prebuilt)"
fi
# How much slower than the machine that booted it: the larger of the two
# ratios of tests/slowness.py, times 4 for JIT runtimes (tests/vm.sh).
slow=$slow
if [ -z "\$slow" ]; then
    there=\$(tests/slowness.py) || { echo "vm: tests/slowness.py failed"; exit 1; }
    slow=\$(python3 -c 'import math, sys; h = sys.argv[1].split(); t = sys.argv[2].split()
print(max(1, math.ceil(4 * max(int(t[i]) / max(1, int(h[i])) for i in (0, 1)))))' "$here_ref" "\$there")
    echo "vm: slow-machine factor \$slow (tests/slowness.py, cc and python ms: $here_ref here, \$there in the guest; x4)"
else
    echo "vm: slow-machine factor \$slow (GRADEQ_SLOW)"
fi
echo "vm: \$(nproc) CPUs"
export GRADEQ_PROGS=build/progs GRADEQ_BIN=build GRADEQ_TEST_TIMEOUT=$timeout GRADEQ_SLOW=\$slow GRADEQ_CPUS=$cpus
export GRADEQ_CASES="$cases" GRADEQ_LANG_JOBS="$jobs"
fail=0
for t in $*; do
    if [ $mode != unit ]; then
        echo "=== login shell: \$t"
        sh /host/one.sh "\$t" || { echo "vm: FAILED in the login shell: \$t"; fail=1; }
    fi
    if [ $mode != login ]; then
        echo "=== delegated unit: \$t"
        systemd-run -q -p Delegate=yes --wait --pipe --working-directory=/root/gradeq \
            -E GRADEQ_PROGS=build/progs -E GRADEQ_BIN=build -E PATH="\$PATH" -E GRADEQ_LANGS="$langs" -E GRADEQ_TEST_TIMEOUT=$timeout -E GRADEQ_SLOW="\$slow" -E GRADEQ_CPUS=$cpus -E GRADEQ_CASES="$cases" -E GRADEQ_LANG_JOBS="$jobs" \
            -E NODE_EXTRA_CA_CERTS="\${NODE_EXTRA_CA_CERTS:-}" sh /host/one.sh "\$t" ||
            { echo "vm: FAILED in a delegated unit: \$t"; fail=1; }
    fi
done
exit \$fail
EOF
cat > "$out/one.sh" <<'EOF'
#!/bin/sh
# One test, from /root/gradeq: a binary, a script or a make target, each
# bounded by the guest's own --timeout.
t=${GRADEQ_TEST_TIMEOUT:-1800}
case $1 in
build/*) make -s -j2 "$1" >/dev/null && timeout "$t" "$1" ;;
build-san/*) make -s -j2 san TARGETS="$1 all" >/dev/null &&
    GRADEQ_PROGS=build-san/progs GRADEQ_BIN=build-san timeout "$t" "$1" ;;
tests/*) make -s -j2 all && timeout "$t" "$1" ;;
*) make -j2 "$1" ;;
esac
EOF
# More vCPUs than this machine has cores, emulated: the initramfs's udev
# loads modules in parallel and the vCPUs spin on each other's locks while
# the host runs other vCPU threads (at 64 on 2 cores: soft lockups, and the
# root disk never appeared); one udev worker, and no lockup or stall
# reports for what is only the emulator's slowness. tsc=reliable: the
# emulated vCPUs' TSCs all read the host's clock, but the kernel's boot
# check sees them drift apart and falls back to the HPET, whose every read
# (each clock_gettime, no vDSO) is a trip through the emulator's device
# lock that all vCPUs share: with 64 vCPUs the boot alone then took
# several times as long (the login shell not up when the command came).
if [ "$cpus" -gt "$(nproc)" ]; then
    GRADEQ_VM_APPEND="${GRADEQ_VM_APPEND:-} udev.children_max=1 nowatchdog rcupdate.rcu_cpu_stall_suppress=1 tsc=reliable"
    export GRADEQ_VM_APPEND
fi
echo "tests/vm.sh: booting the guest for: $* ($mode; output in $out/.vmout)"
rc=0
"$vm/run.sh" --timeout "$timeout" --cpus "$cpus" "$out" -- sh /host/guest.sh || rc=$?
[ $rc -eq 0 ] && echo "tests/vm.sh: passed" || echo "tests/vm.sh: failed (exit $rc)"
exit $rc
