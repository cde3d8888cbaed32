#!/bin/sh
# Containers for real, with the engines Debian ships: docker.io (dockerd),
# docker-compose and podman. Installs them when missing, starts a dockerd of
# its own that touches nothing outside it (its own data root, sockets and
# containerd; no bridge, no iptables, no forwarding), makes a base image
# with debootstrap (no registry is reachable) and builds deploy/Dockerfile
# on it without network, then, with host networking and Redis on loopback:
#
#   docker   two worker containers side by side (tests/integration/
#            side_by_side.inc: distinct slots, each job's verdict and peak
#            its own, a process-holding job in one fails no hello in the
#            other), docker stop during a 30 s job (drained, exit 0, one
#            result), the non-privileged recipe (its jobs held to the
#            container's memory limit), and no privileges (a clear refusal)
#   compose  the shipped deploy/compose.yaml, up --build --scale worker=3,
#            jobs on all three, a stop that drains
#   podman   the same image in podman, and a podman worker beside a docker
#            one
#
#   tests/docker.sh [docker] [compose] [podman]      (default: all three)
#
# Not part of `make check` (it builds images and starts engines: longer than
# CI allows). Here, as root: tests/docker.sh; in the cgroup v2 guest, where
# the engines use systemd's cgroup driver: make test-vm VM_TESTS="--login
# --timeout 10800 tests/docker.sh". Where an engine cannot run, it says why
# and exits non-zero. This machine's known limits, worked around and named
# when met: no CAP_SYS_RESOURCE in the bounding set (runc cannot give it to
# a --privileged container: a runtime wrapper takes it out of the
# container's capabilities), crun refuses a cgroup v1 hybrid (podman runs
# with runc), no bridge network (host networking throughout).
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "tests/docker.sh: needs root" >&2; exit 2; }
B=$(cd "${GRADEQ_BIN:-build}" && pwd) && P=$(cd "${GRADEQ_PROGS:-$B/progs}" && pwd) &&
    [ -x "$B/gradeq" ] && [ -x "$P/memhog" ] || { echo "tests/docker.sh: build first (make)" >&2; exit 2; }
PARTS=${*:-docker compose podman}
FAIL=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; FAIL=1; fi; }
note() { echo "note $*"; }
die() { echo "tests/docker.sh: $*" >&2; exit 1; }
# alive PID: running (a child that exited is a zombie until waited for).
alive() { [ -e /proc/"$1" ] && ! grep -q '^State:.*zombie' /proc/"$1"/status 2>/dev/null; }
wait_until() {
    deadline=$(( $(date +%s) + $1 )); shift
    until eval "$1"; do [ "$(date +%s)" -ge "$deadline" ] && return 1; sleep 0.2; done
}

# --- the engines -------------------------------------------------------------
need=""
command -v dockerd >/dev/null || need="$need docker.io"
command -v docker-compose >/dev/null || need="$need docker-compose"
command -v podman >/dev/null || need="$need podman"
command -v runc >/dev/null || need="$need runc"
command -v debootstrap >/dev/null || need="$need debootstrap"
if [ -n "$need" ]; then
    echo "installing:$need"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need >/dev/null ||
        die "cannot install$need"
fi
DOCKER=/usr/bin/docker   # Debian's client, whatever else is on PATH
D=$(mktemp -d /var/tmp/gradeq-docker.XXXXXX)
CACHE=${GRADEQ_DOCKER_CACHE:-/var/tmp/gradeq-docker-cache}
mkdir -p "$CACHE"
export DOCKER_HOST=unix://$D/docker.sock
PODMAN="podman --root $D/podman --runroot $D/podman-run --events-backend file --tmpdir $D/podman-tmp"
REDIS_PID="" DOCKERD="" had_containers=no
[ -e /var/lib/containers ] && had_containers=yes
cleanup() {
    $DOCKER ps -aq 2>/dev/null | xargs -r $DOCKER rm -f >/dev/null 2>&1
    $PODMAN rm -fa >/dev/null 2>&1
    [ -n "$DOCKERD" ] && kill "$DOCKERD" 2>/dev/null && wait_until 60 "! alive $DOCKERD"
    [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null
    grep " $D/" /proc/mounts | cut -d' ' -f2 | sort -r | xargs -r -n1 umount -l 2>/dev/null
    rm -rf --one-file-system "$D"
    # Podman keeps a cache there whatever its --root.
    [ $had_containers = no ] && rm -rf /var/lib/containers
}
trap cleanup EXIT
trap 'exit 130' INT TERM

v2=no
grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null && v2=yes
driver=cgroupfs
[ $v2 = yes ] && [ -d /run/systemd/system ] && driver=systemd
# Without CAP_SYS_RESOURCE in the bounding set (bit 24; these machines),
# runc can neither give it to a --privileged container nor raise an
# rlimit above our hard limit (Podman asks for more open files). The
# wrapper takes it out of the container's capabilities and brings the
# rlimits down to ours, then is runc.
RUNTIME=runc
bnd=$(sed -n 's/^CapBnd:\t//p' /proc/self/status)
if [ $(( (0x$bnd >> 24) & 1 )) = 0 ]; then
    note "no CAP_SYS_RESOURCE in this machine's bounding set: containers run without it, their rlimits within ours (runc wrapper)"
    cat >"$D/runc-nosysresource" <<'EOF'
#!/bin/sh
# runc, with CAP_SYS_RESOURCE taken out of a new container's
# capabilities and its rlimits brought within ours.
b=; prev=
for a; do [ "$prev" = --bundle ] && b=$a; case $a in --bundle=*) b=${a#--bundle=} ;; esac; prev=$a; done
[ -n "$b" ] && [ -f "$b/config.json" ] && python3 - "$b/config.json" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
caps = c.get("process", {}).get("capabilities", {})
for k in caps:
    caps[k] = [x for x in caps[k] if x != "CAP_SYS_RESOURCE"]
import resource
for r in c.get("process", {}).get("rlimits", []):
    hard = resource.getrlimit(getattr(resource, r["type"]))[1]
    if hard != resource.RLIM_INFINITY:
        r["hard"] = min(r["hard"], hard)
        r["soft"] = min(r["soft"], r["hard"])
json.dump(c, open(p, "w"))
PY
exec runc "$@"
EOF
    chmod 755 "$D/runc-nosysresource"
    RUNTIME=$D/runc-nosysresource
fi

dockerd --bridge=none --iptables=false --ip-forward=false --ip-masq=false --userland-proxy=false \
    --data-root "$D/data" --exec-root "$D/exec" --pidfile "$D/dockerd.pid" -H "$DOCKER_HOST" \
    --exec-opt native.cgroupdriver=$driver --add-runtime gradeq-runc="$RUNTIME" --default-runtime gradeq-runc \
    >"$D/dockerd.log" 2>&1 &
DOCKERD=$!
wait_until 120 '$DOCKER info >/dev/null 2>&1' || { tail -20 "$D/dockerd.log"; die "dockerd did not start"; }
echo "dockerd $($DOCKER version -f '{{.Server.Version}}'), cgroup v$([ $v2 = yes ] && echo 2 || echo 1), driver $driver"

# --- images --------------------------------------------------------------------
# The base: Debian 12 with what both stages of deploy/Dockerfile and the
# jobs need, and Redis (for compose). Cached by its package list.
PKGS="build-essential,pkg-config,libseccomp-dev,libhiredis-dev,libmsgpack-dev,zlib1g-dev,g++,python3,procps,psmisc,redis-server,redis-tools"
key=$(echo "$PKGS" | md5sum | cut -c1-12)
if [ ! -s "$CACHE/base-$key.tar" ]; then
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/{for(i=2;i<=NF;i++) if ($i ~ /\/debian\/?$/) {print $i; exit}}')
    [ -n "$mirror" ] || mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1=="deb"{for(i=2;i<=NF;i++) if ($i ~ /^https?:.*\/debian\/?$/) {print $i; exit}}')
    proxy=$(apt-config dump 2>/dev/null | sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p' | head -1)
    echo "debootstrap of the base image from ${mirror:-?} (once, cached in $CACHE)"
    http_proxy=$proxy debootstrap --variant=minbase --include="$PKGS" bookworm "$D/rootfs" "$mirror" \
        >"$D/debootstrap.log" 2>&1 || { tail -20 "$D/debootstrap.log"; die "debootstrap failed"; }
    tar -C "$D/rootfs" -c . >"$CACHE/base-$key.tar.new" && mv "$CACHE/base-$key.tar.new" "$CACHE/base-$key.tar"
    rm -rf --one-file-system "$D/rootfs"
fi
BASE=gradeq-test-base:bookworm
$DOCKER import - $BASE <"$CACHE/base-$key.tar" >/dev/null || die "docker import failed"
$DOCKER build --network host -f deploy/Dockerfile --build-arg BASE=$BASE --build-arg RUNTIME_BASE=$BASE \
    -t gradeq-worker:test . >"$D/build.log" 2>&1
rc=$?
check "deploy/Dockerfile builds from a local base without network" \
    '[ $rc = 0 ] && ! grep -q "^Reading package lists" "$D/build.log" || { tail -20 "$D/build.log"; false; }'
check "the image carries the language presets" \
    '$DOCKER run --rm --network host --entrypoint cat gradeq-worker:test /usr/share/gradeq/languages | grep -q "^\[python3\]"'
[ $rc = 0 ] || exit 1

# --- Redis on loopback, the client ---------------------------------------------
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port $PORT --save '' --appendonly no --daemonize no >"$D/redis.log" 2>&1 &
REDIS_PID=$!
wait_until 30 'redis-cli -p $PORT ping 2>/dev/null | grep -q PONG' || die "redis-server did not start"
QUEUE=redis://127.0.0.1:$PORT/0
G() { timeout 300 "$B/gradeq" "$@"; }
export GRADEQ_REDIS=$QUEUE
. tests/integration/side_by_side.inc

# workers N: until N workers are in the registry.
workers() {
    want=$1
    wait_until 180 '[ "$(G stats --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"workers\"]))")" = $want ]'
}
# flush: a fresh queue and registry for the next part.
flush() { redis-cli -p $PORT flushall >/dev/null; }

RUN="--network host --stop-timeout 210 -e GRADEQ_REDIS=$QUEUE -e GRADEQ_THREADS=1"
# The documented non-privileged form: docs/operations.md, "Containers".
CAPS="--cap-drop ALL --cap-add SYS_ADMIN --cap-add SETUID --cap-add SETGID --cap-add CHOWN --cap-add DAC_OVERRIDE
      --cap-add FOWNER --cap-add MKNOD --cap-add SETPCAP --cap-add KILL --cap-add NET_ADMIN --cap-add SYS_PTRACE
      --cap-add SYS_RESOURCE --security-opt seccomp=unconfined --security-opt apparmor=unconfined"

# --- docker --------------------------------------------------------------------
if echo "$PARTS" | grep -qw docker; then
    for c in d1 d2; do $DOCKER run -d --name $c --privileged $RUN gradeq-worker:test >/dev/null; done
    check "docker: two --privileged workers start" 'workers 2 || { $DOCKER logs d1; $DOCKER logs d2; false; }'
    check "docker: fully isolated" '$DOCKER logs d1 2>&1 | grep -q "namespaces yes" && ! $DOCKER logs d1 2>&1 | grep -q "missing:"'
    side_by_side docker
    $DOCKER rm -f d1 d2 >/dev/null
    flush

    # docker stop during a 30 s job: the stop waits (--stop-timeout 210),
    # the worker drains and exits 0, the job has one result.
    $DOCKER run -d --name stopper --privileged $RUN gradeq-worker:test >/dev/null
    workers 1
    G submit --id drain1 --wall-ms 60000 -- /bin/sh -c 'sleep 30; echo drained' >/dev/null
    sbs_running 1
    $DOCKER stop stopper >/dev/null
    code=$($DOCKER inspect -f '{{.State.ExitCode}}' stopper)
    out=$(G result --json drain1 2>&1)
    check "docker stop during a 30 s job: exit 0 ($code), the job finished" \
        '[ "$code" = 0 ] && echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(not (d[\"status\"] == \"OK\" and d[\"attempt\"] == 1))"'
    n=$(redis-cli -p $PORT xrange gradeq:results - + | grep -c '^drain1$')
    check "... and one result ($n)" '[ "$n" = 1 ]'
    check "... said so: draining (1 running)" '$DOCKER logs stopper 2>&1 | grep -q "draining (1 running)"'
    $DOCKER rm -f stopper >/dev/null
    flush

    # The non-privileged recipe, limited to 100M: its jobs are held to it.
    $DOCKER run -d --name np $CAPS --cgroupns=host -v /sys/fs/cgroup:/sys/fs/cgroup:rw --memory 100m $RUN \
        gradeq-worker:test >/dev/null
    check "docker, the non-privileged recipe: starts fully isolated" \
        'workers 1 && $DOCKER logs np 2>&1 | grep -q "namespaces yes" && ! $DOCKER logs np 2>&1 | grep -q "missing:" || { $DOCKER logs np; false; }'
    out=$(G submit --wait 120 -- "$P/greet" 2>&1)
    check "... a hello: OK" 'echo "$out" | grep -q "gradeq: OK"'
    out=$(G submit --wait 120 --json --memory 512M -- "$P/memhog" 272 2>/dev/null)
    check "... a 272 MiB job allowed 512M in a container limited to 100M: held to the container's limit" \
        'echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(not (d[\"status\"] == \"MEMORY_LIMIT\" and d[\"memory_bytes\"] <= 101 << 20))" || { echo "$out"; false; }'
    $DOCKER rm -f np >/dev/null
    flush

    # No privileges at all: a refusal that says what is missing and how.
    $DOCKER run --name bare $RUN gradeq-worker:test >"$D/bare.log" 2>&1
    code=$?
    check "docker without privileges: refuses (exit $code) and says what is missing" \
        '[ $code = 1 ] && grep -q "full isolation required but not available" "$D/bare.log" && grep -q "require-isolation" "$D/bare.log" || { cat "$D/bare.log"; false; }'
    $DOCKER rm -f bare >/dev/null
fi

# --- compose -------------------------------------------------------------------
if echo "$PARTS" | grep -qw compose; then
    # The shipped file, with what this machine needs: host networking (no
    # bridge; "redis" is then the loopback, and the published port, moot
    # there, goes: v1 refuses it beside host networking), the local base
    # and a local Redis image (no registry). Passwords from the
    # environment, as .env would give them.
    if ss -ltn 2>/dev/null | grep -q '[:.]6379 '; then
        echo "FAIL compose: port 6379 is taken on this machine (the shipped Redis service listens there with host networking)"
        FAIL=1
    else
        # The official image's entrypoint drops to the redis user; this
        # stand-in, Debian's redis-server on the base, runs it as it is.
        mkdir "$D/redis-image"
        printf '#!/bin/sh\nexec "$@"\n' >"$D/redis-image/docker-entrypoint.sh"
        chmod 755 "$D/redis-image/docker-entrypoint.sh"
        printf 'FROM %s\nCOPY docker-entrypoint.sh /usr/local/bin/\n' $BASE >"$D/redis-image/Dockerfile"
        $DOCKER build --network host -t gradeq-test-redis:7 "$D/redis-image" >/dev/null
        cat >"$D/override.yaml" <<EOF
services:
  redis:
    network_mode: host
  worker:
    network_mode: host
    extra_hosts: ["redis:127.0.0.1"]
    build:
      args: {BASE: "$BASE", RUNTIME_BASE: "$BASE"}
EOF
        for r in ADMIN WORKER CLIENT MONITOR; do export GRADEQ_${r}_PASSWORD=$(openssl rand -hex 24 2>/dev/null || head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'); done
        export COMPOSE_PROJECT_NAME=gradeq-test-$$ GRADEQ_REDIS_IMAGE=gradeq-test-redis:7
        grep -v '^    ports:$\|127.0.0.1:6379:6379' deploy/compose.yaml >"$D/compose.yaml"
        DC="docker-compose --project-directory deploy -f $D/compose.yaml -f $D/override.yaml"
        echo "$(docker-compose version --short 2>/dev/null || docker-compose --version)"
        $DC up -d --build --scale worker=3 >"$D/compose.log" 2>&1
        rc=$?
        check "compose: up -d --build --scale worker=3 with the shipped compose.yaml" '[ $rc = 0 ] || { tail -30 "$D/compose.log"; false; }'
        CQ=redis://gradeq-client:$GRADEQ_CLIENT_PASSWORD@127.0.0.1:6379/0
        GC() { GRADEQ_REDIS=$CQ timeout 300 "$B/gradeq" "$@"; }
        # stats is the monitor's (deploy/redis/users.acl).
        GM() { GRADEQ_REDIS=redis://gradeq-monitor:$GRADEQ_MONITOR_PASSWORD@127.0.0.1:6379/0 timeout 300 "$B/gradeq" "$@"; }
        check "compose: three workers register, named apart" \
            'wait_until 180 "[ \"\$(GM stats --json | python3 -c \"import json,sys; print(len(set(w[\\\"name\\\"] for w in json.load(sys.stdin)[\\\"workers\\\"])))\")\" = 3 ]" || { $DC logs --tail 20; false; }'
        # Six jobs at once on the six threads: six uids.
        for i in 1 2 3 4 5 6; do GC submit --id c$i --wall-ms 60000 -- /bin/sh -c 'id -u; sleep 4' >/dev/null; done
        uids=""
        for i in 1 2 3 4 5 6; do uids="$uids $(GC result --wait 120 c$i 2>/dev/null | head -1)"; done
        check "compose: six jobs at once on three containers: six uids ($uids )" \
            '[ "$(echo $uids | tr " " "\n" | sort -u | grep -c "^6")" = 6 ] || { for i in 1 2 3 4 5 6; do GC result c$i; done; $DC logs --tail 10 worker; false; }'
        out=$(GC submit --wait 120 --memory 64M -- "$P/memhog" 200 2>&1)
        check "compose: a memory hog, MEMORY_LIMIT" 'echo "$out" | grep -q "gradeq: MEMORY_LIMIT"'
        GC submit --id cdrain --wall-ms 60000 -- /bin/sh -c 'sleep 20; echo drained' >/dev/null
        wait_until 120 '[ "$(GM stats --json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"pending\"])")" = 1 ]'
        # The workers first, as a whole stop does (they depend on Redis),
        # so that the result can be read.
        $DC stop worker >/dev/null 2>&1
        out=$(GC result cdrain 2>&1)
        codes=$($DC ps -q worker | xargs -r $DOCKER inspect -f '{{.State.ExitCode}}' | sort -u | tr '\n' ' ')
        check "compose stop during a 20 s job (stop_grace_period): drained ($codes)" \
            'echo "$out" | grep -q "^drained$" && [ "$codes" = "0 " ]'
        $DC down -v >/dev/null 2>&1
    fi
fi

# --- podman --------------------------------------------------------------------
if echo "$PARTS" | grep -qw podman; then
    # crun refuses a cgroup v1 hybrid; runc (the wrapper above) runs both.
    [ $v2 = no ] && note "cgroup v1 hybrid: podman runs with runc (crun refuses it)"
    mgr=cgroupfs
    [ $driver = systemd ] && mgr=systemd
    PM="$PODMAN --cgroup-manager $mgr --runtime $RUNTIME"
    $DOCKER save gradeq-worker:test | $PM load >/dev/null 2>&1
    check "podman: the image loads" '$PM image exists gradeq-worker:test'
    PRUN="--network host --stop-timeout 210 -e GRADEQ_REDIS=$QUEUE -e GRADEQ_THREADS=1"
    for c in p1 p2; do $PM run -d --name $c --privileged $PRUN gradeq-worker:test >"$D/$c.id" 2>&1; done
    check "podman: two --privileged workers start" 'workers 2 || { cat "$D/p1.id"; $PM logs p1; false; }'
    check "podman: fully isolated" '$PM logs p1 2>&1 | grep -q "namespaces yes" && ! $PM logs p1 2>&1 | grep -q "missing:"'
    side_by_side podman
    $PM rm -f p2 >/dev/null 2>&1
    flush
    if echo "$PARTS" | grep -qw docker; then
        $DOCKER run -d --name d3 --privileged $RUN gradeq-worker:test >/dev/null
        workers 2
        side_by_side podman-docker
        $DOCKER rm -f d3 >/dev/null
        flush
    fi
    G submit --id pdrain --wall-ms 60000 -- /bin/sh -c 'sleep 20; echo drained' >/dev/null
    sbs_running 1
    $PM stop p1 >/dev/null 2>&1
    code=$($PM inspect -f '{{.State.ExitCode}}' p1)
    out=$(G result pdrain 2>&1)
    check "podman stop during a 20 s job: exit 0 ($code), drained" '[ "$code" = 0 ] && echo "$out" | grep -q "^drained$"'
    $PM rm -fa >/dev/null 2>&1
fi
exit $FAIL
