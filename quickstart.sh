#!/bin/bash
# quickstart.sh - build hpcq and see it work, or run the whole test suite.
#
#   ./quickstart.sh         install what is missing (as root), build, start a
#                           scheduler and two workers in ./qs, run the example
#                           jobs from jobscripts/, show qstat and the output
#   ./quickstart.sh check   the same set-up, then every unit and integration
#                           test; the last line is "N passed, N failed"
set -euo pipefail
cd "$(dirname "$0")"
top=$(pwd)

# The scheduler needs SQLite, libuuid and jansson, and MUNGE (munged and
# libmunge) with nettle's SHA-256 for authentication; the apps use Open MPI
# over UCX and NetCDF (configure turns off what it does not find).
PACKAGES="build-essential autoconf automake libtool pkg-config libsqlite3-dev uthash-dev
          uuid-dev libjansson-dev sqlite3 python3 procps bc
          libopenmpi-dev openmpi-bin libucx-dev libnetcdf-dev netcdf-bin libpng-dev zlib1g-dev
          libxxhash-dev iproute2 util-linux munge libmunge-dev nettle-dev"
# srun --mpi=pmix: hpcq-stepd embeds a PMIx server (the PMIx Open MPI uses).
PACKAGES="$PACKAGES libpmix-dev"
# Hash tables (common/hash.h): uthash, hashing with xxHash; both header-only.
PACKAGES="$PACKAGES uthash-dev"
# Scheduler replicas: Raft (libraft) on libuv.
PACKAGES="$PACKAGES libraft-dev libuv1-dev"
# Spot notices: the worker polls the provider's metadata with libcurl; the
# tests serve those documents with python3's http.server, and read JSON
# with jq (t7011 also compares every job's qstat -f -F json record across a
# restart with it).
PACKAGES="$PACKAGES libcurl4-openssl-dev"
# The worker's node topology (sockets, NUMA nodes, GPUs' PCI places): hwloc;
# lstopo (package hwloc) writes the XML topologies tests load.
PACKAGES="$PACKAGES libhwloc-dev hwloc"
# Jobs in OCI containers (docs/containers.md): rootless runc runs them, umoci
# unpacks their images; the tests build an image from busybox-static.
PACKAGES="$PACKAGES runc umoci busybox-static"
# The scheduler's HTTP server; hpcq-report's chart; the administration
# tests (t8000-t8006) run a real Prometheus (and promtool) and headless
# Chromium, with curl and jq.
PACKAGES="$PACKAGES libmicrohttpd-dev libcairo2-dev curl jq prometheus chromium"
# Installed without their recommended packages (Snakemake 7's would bring
# ~200 more, ImageMagick and GDAL among them): the workflow tool the
# compatibility tests run for real (t1100, t1106); LAMMPS, which hpcq-md
# is checked against trajectory by trajectory (t3105; its manual is the
# recommended package).
# The C style (.clang-format), checked by make format-check before the tests.
PACKAGES="$PACKAGES clang-format"
PACKAGES_LEAN="snakemake lammps"

install_packages() {
    local missing="" lean="" p
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $p"
    done
    for p in $PACKAGES_LEAN; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            lean="$lean $p"
    done
    [ -z "$missing$lean" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "quickstart: missing packages; as root run:" >&2
        echo "  apt-get update && apt-get install -y$missing" >&2
        [ -n "$lean" ] && echo "  apt-get install -y --no-install-recommends$lean" >&2
        exit 1
    fi
    echo "== installing:$missing$lean"
    apt-get update -q
    [ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
    [ -z "$lean" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $lean
}

build() {
    echo "== building"
    if [ ! -f Makefile ]; then
        [ -x configure ] || ./autogen.sh > /dev/null
        ./configure -q
    fi
    make -j"$(nproc)" > /dev/null
}

demo() {
    dir=$top/qs     # global: the EXIT trap stops the cluster in it
    "$top/cli/hpcq-local" stop "$dir" > /dev/null 2>&1 || true
    rm -rf "$dir"
    echo "== starting a scheduler and two workers in $dir"
    eval "$("$top/cli/hpcq-local" start "$dir" --workers 2 --cpus-per-worker 2 \
             --gpus-per-worker 1)"
    export PATH="$top/cli:$PATH"
    echo "   HPCQ_SERVER=$HPCQ_SERVER"
    trap '"$top/cli/hpcq-local" stop "$dir" && echo "   stopped; state and logs are in $dir"' EXIT
    mkdir -p "$dir/work"
    cd "$dir/work"
    # The scheduler's own examples; the apps' scripts (md-*, climate-*) run
    # longer and are for a cluster you keep (see README).
    local ids="" f
    for f in "$top"/jobscripts/{hello,multicore,multinode,gpu,checkpoint}.pbs; do
        ids="$ids $(qsub "$f")"
        echo "   qsub $(basename "$f") -> $(echo $ids | awk '{print $NF}')"
    done
    echo "== qstat while they run"
    qstat || true
    local deadline=$((SECONDS + 120))
    while [ -n "$(qstat 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
    echo "== output files"
    for f in *.o*; do
        echo "--- $f"; cat "$f"
    done
    echo "== qstat -x"
    qstat -x
    cd "$top"
    echo "== stopping the daemons"
}

check() {
    local rc=0 fmt=0
    echo "== checking the C style (make format-check)"
    make -s format-check || fmt=1
    echo "== running the test suite (make check)"
    make -j2 check > check.log 2>&1 || rc=$?
    grep -E "^(PASS|FAIL|ERROR|SKIP|XFAIL|XPASS):" check.log | grep -v "^PASS" || true
    if [ $rc -ne 0 ]; then
        echo "== failures (from test-suite.log):"
        sed -n '/^FAIL\|^ERROR/,+40p' test-suite.log 2>/dev/null | head -200 || true
    fi
    local pass fail skip
    pass=$(grep -Ec "^PASS:" check.log || true)
    fail=$(grep -Ec "^(FAIL|ERROR|XPASS):" check.log || true)
    skip=$(grep -Ec "^SKIP:" check.log || true)
    [ $rc -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
    fail=$((fail + fmt))
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
}

install_packages
build
case "${1:-}" in
"") demo ;;
check) check ;;
*) echo "usage: $0 [check]" >&2; exit 2 ;;
esac
