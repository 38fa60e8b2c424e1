#!/bin/bash
# tests/gpu/device-run.sh - run the GPU checks (scheduler.sh, md.sh,
# climate.sh, container.sh) in one go on a GPU machine that cannot build hpcq itself (no
# jansson, sqlite3 or uuid headers), from binaries built elsewhere.
#
#   bash tests/gpu/device-run.sh            (from the repository root)
#
# Expects a prebuilt tree in $GPU_TREE (default .gpu), laid out like a build
# directory, which tests/gpu/build-device-tree.sh makes on a machine with
# the build's dependencies and the device tool carries along (keep .gpu in
# .git/info/exclude; run with carry [".gpu"], timeout_s about 500):
#   .gpu/cli/{hpcq-local,qsub,qstat,pbsnodes,...}  .gpu/scheduler/hpcq-scheduler
#   .gpu/worker/hpcq-worker  .gpu/apps/md/hpcq-md (configure --with-cuda,
#   --without-mpi: cudart linked dynamically)  .gpu/climate/hpcq-climate
#   (used only if there is no gcc there; else climate.sh builds its own)
#   .gpu/lib      libjansson, libsqlite3, libuuid, libmunge, libnettle (always first)
#   .gpu/libomp   libgomp (only if the machine has none)
#   .gpu/cudalib  libcudart.so(.13), after /usr/local/cuda/lib64
#   .gpu/ctools   runc, umoci, busybox (container.sh; after the machine's own)
# Each check runs under its own timeout (about 7.5 minutes in all) in a
# scratch folder; everything is logged to $OUT/gpu.log (OUT defaults to
# /tmp/gpu-out), with a few result files beside it.  Ends with one summary
# line per check; exit status 0 only if all passed (container.sh NOT RUN,
# with its reason, where the machine cannot run rootless containers: no
# user namespaces in a container, say, does not fail the others).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
T=$(cd "${GPU_TREE:-.gpu}" 2>/dev/null && pwd) || { echo "no prebuilt tree ${GPU_TREE:-.gpu}"; exit 1; }
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
LOG=$OUT/gpu.log
W=$(mktemp -d /tmp/gpu-run.XXXXXX)
t() { echo "[$(date -u +%T) +${SECONDS}s] $*"; }

main() {

t "device-run: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?') on $(hostname), $(nproc) CPUs"
for f in cli/hpcq-local cli/qsub cli/qstat cli/pbsnodes scheduler/hpcq-scheduler worker/hpcq-worker apps/md/hpcq-md climate/hpcq-climate; do
    [ -x "$T/$f" ] || { echo "missing $T/$f"; echo "SUMMARY: all: FAIL (prebuilt tree incomplete)"; return 1; }
done
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "no GPU: nvidia-smi missing or finds no device"
    echo "SUMMARY: all: FAIL (no GPU on $(hostname))"
    return 1
fi

# Libraries: ours for what the image lacks.
LDP=$T/lib
ldconfig -p 2>/dev/null | grep -q 'libgomp.so.1 ' || LDP=$LDP:$T/libomp
# The image's cudart first where it has one; ours also gives md.sh's peak
# bandwidth probe the unversioned libcudart.so a runtime-only image lacks.
LDP=$LDP:/usr/local/cuda/lib64:$T/cudalib
export LD_LIBRARY_PATH=$LDP${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/usr/local/cuda/bin:$T/ctools
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

t "machine"
nvidia-smi
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,mig.mode.current,clocks.max.sm,clocks.max.mem,pcie.link.gen.max --format=csv
grep -m1 'model name' /proc/cpuinfo; free -g | head -2
nvcc --version | tail -2; command -v gcc && gcc --version | head -1
for b in "$T"/apps/md/hpcq-md "$T"/scheduler/hpcq-scheduler "$T"/climate/hpcq-climate; do
    echo "ldd $b:"; ldd "$b" | grep -E 'not found|jansson|sqlite|uuid|gomp|cudart'
done

run() {   # name seconds command...
    local name=$1 secs=$2; shift 2
    t "=== $name (timeout ${secs}s): $*"
    local s=$SECONDS
    timeout -k 5 "$secs" "$@"
    local rc=$?
    case $rc in 0) res[$name]="PASS" ;; 124|137) res[$name]="FAIL (timed out after ${secs}s)" ;;
                2) res[$name]="NOT RUN (see its 'cannot run here' line)" ;;
                *) res[$name]="FAIL (exit $rc)" ;; esac
    res[$name]="${res[$name]} in $((SECONDS - s))s"
    t "=== $name: ${res[$name]}"
}

mkdir -p "$W/sched" "$W/md" "$W/climate"
run scheduler 75 env OUT="$W/sched" BUILD="$T" bash tests/gpu/scheduler.sh

run md 160 env -C "$W/md" bash "$top/tests/gpu/md.sh" "$T"
[ -f "$W/md/cpu.out" ] && { echo "md.sh's CPU run (32,000 atoms, $(nproc) CPUs):"; grep -E '^(Loop|Performance)' "$W/md/cpu.out"; }
# A CPU figure to set against the GPU's at 1M atoms (not part of md.sh).
t "md CPU reference: 63x63x63 (1,000,188 atoms), 20 steps, OMP_NUM_THREADS=$(nproc)"
OMP_NUM_THREADS=$(nproc) timeout 30 "$T/apps/md/hpcq-md" --cpu --cells 63x63x63 --steps 20 --thermo 20 \
    --neigh-every 20 --neigh-check no | grep -E '^(Loop|Performance)'

cl_env=()
if ! command -v gcc >/dev/null || ! echo '#include <xxhash.h>' | gcc -E - >/dev/null 2>&1; then
    echo "no gcc or no xxhash.h here: climate.sh uses the prebuilt $T/climate/hpcq-climate"
    cl_env=(CLIMATE_BIN="$T/climate/hpcq-climate")
fi
run climate 140 env "${cl_env[@]}" bash tests/gpu/climate.sh "$W/climate"

# Issue 26: a container job sees exactly its GPU (rootless runc, CDI).
mkdir -p "$W/container"
run container 60 env OUT="$W/container" BUILD="$T" bash tests/gpu/container.sh

# A few result files beside the log (at most 8 files come back).
cp "$W/climate/climate-gpu.txt" "$W/sched/gpu-scheduler/pbsnodes.json" "$OUT/" 2>/dev/null
cp "$W/sched/gpu-scheduler/worker1.log" "$OUT/sched-worker1.log" 2>/dev/null
cp "$W/sched/gpu-scheduler/gpu-job.txt" "$OUT/sched-gpu-job.txt" 2>/dev/null
cp "$W/container/gpu-container/gpu-container-job.txt" "$OUT/" 2>/dev/null
t "done"
fail=0
for n in scheduler md climate container; do
    echo "SUMMARY: $n: ${res[$n]:-FAIL (did not run)}"
    case ${res[$n]:-FAIL} in PASS* | "NOT RUN"*) ;; *) fail=1 ;; esac
done
return $fail
}

declare -A res
main 2>&1 | tee "$LOG"
exit "${PIPESTATUS[0]}"
