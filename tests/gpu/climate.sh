#!/bin/bash
# tests/gpu/climate.sh - hpcq-climate on a machine with an NVIDIA GPU.
#
#   tests/gpu/climate.sh [OUTDIR]        (from the repository root)
#
# Builds hpcq-climate with nvcc (sm_80, sm_90 and PTX) directly, without
# configure, so it needs only gcc, nvcc and the driver; checks that the GPU
# and CPU back ends agree and that the GPU run conserves mass; then times a
# large grid (8192 x 4096 cells by default) and reports cell-updates/s and
# the fraction of the memory bandwidth reached.  Designed to finish within
# 8 minutes including the build.  Results: OUTDIR/climate-gpu.txt.
#
# Environment: NX, NZ, STEPS (large grid), PEAK_BW (bytes/s, else from a
# table of known GPUs), NVCC (else $CUDA_HOME/bin/nvcc or nvcc on PATH),
# CLIMATE_BIN (an hpcq-climate already built by this script's recipe, e.g.
# on another machine: the build is skipped; tests/gpu/device-run.sh uses it
# where the GPU machine has no gcc).
set -u
OUT=${1:-${OUT:-/tmp/climate-gpu}}
mkdir -p "$OUT"
LOG=$OUT/climate-gpu.txt
: > "$LOG"
say() { echo "$*" | tee -a "$LOG"; }
fail() { say "FAIL: $*"; exit 1; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
command -v "$NVCC" > /dev/null || NVCC=nvcc
command -v "$NVCC" > /dev/null || fail "nvcc not found"
CUDA_DIR=$(cd "$(dirname "$(command -v "$NVCC")")/.." && pwd)
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee -a "$LOG"

# --- build ------------------------------------------------------------------
if [ -n "${CLIMATE_BIN:-}" ]; then
    C=$(cd "$(dirname "$CLIMATE_BIN")" && pwd)/$(basename "$CLIMATE_BIN")
    [ -x "$C" ] || fail "CLIMATE_BIN $CLIMATE_BIN is not an executable"
    say "build: skipped, using $C"
else
B=$OUT/build
mkdir -p "$B"
: > "$B/config.h"               # no NetCDF, no MPI: the core only
t0=$(date +%s)
"$NVCC" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
    -gencode arch=compute_90,code=compute_90 -O3 -std=c++17 -I"$SRC" -I"$B" \
    -c -o "$B/climate_cuda.o" "$SRC/apps/climate/climate_cuda.cu" || fail "nvcc"
gcc -O2 -fopenmp -Wall -Wextra -Werror -Wno-unused-parameter -I"$SRC" -I"$B" \
    -o "$B/hpcq-climate" "$SRC"/apps/climate/{main,climate_cases,climate_model,climate_cpu,climate_pow,climate_comm,climate_step,climate_ckpt,climate_output,climate_opts,climate_run}.c \
    "$SRC/common/error.c" "$SRC/common/util.c" "$SRC/common/ckptfile.c" "$SRC/common/ckptreport.c" "$B/climate_cuda.o" \
    -L"$CUDA_DIR/lib64" -lcudart_static -lxxhash -ldl -lrt -lpthread -lstdc++ -lm || fail "gcc"
say "build: $(( $(date +%s) - t0 )) s"
C=$B/hpcq-climate
fi

# --- CPU vs GPU -------------------------------------------------------------
cd "$OUT" || exit 1
for c in thermal gravity_waves injection; do
    "$C" --cpu --case $c --nx 256 --nz 128 --sim-time 200 --quiet --dump cpu.$c > cpu.$c.out || fail "cpu run $c"
    "$C" --gpu --case $c --nx 256 --nz 128 --sim-time 200 --quiet --dump gpu.$c > gpu.$c.out || fail "gpu run $c"
    python3 - "$c" <<'PY' | tee -a "$LOG" || fail "CPU and GPU disagree ($c)"
import array, sys
c = sys.argv[1]
def load(p):
    a = array.array("d"); a.frombytes(open(p, "rb").read()); return a
a, b = load("cpu." + c), load("gpu." + c)
P = len(a) // 4
worst = 0.0
for v in range(4):
    fa, fb = a[v*P:(v+1)*P], b[v*P:(v+1)*P]
    scale = max(abs(x) for x in fa) or 1.0
    d = max(abs(x - y) for x, y in zip(fa, fb)) / scale
    worst = max(worst, d)
print("%s: max |cpu - gpu| / max|field| = %.3e" % (c, worst))
sys.exit(0 if worst < 1e-8 else 1)
PY
    m=$(sed -n 's/^mass:.*relative change //p' gpu.$c.out)
    say "$c: gpu mass relative change $m"
    awk -v x="$m" 'BEGIN { x = (x < 0) ? -x : x; exit !(x <= 1e-13) }' || fail "mass ($c)"
done

# --- large grid timing ----------------------------------------------------
NX=${NX:-8192}; NZ=${NZ:-4096}; STEPS=${STEPS:-60}
dt=$(python3 -c "print(min(20000.0/$NX, 10000.0/$NZ) / 450.0)")
simt=$(python3 -c "print($dt * $STEPS)")
"$C" --gpu --case thermal --nx $NX --nz $NZ --sim-time "$simt" > large.out || fail "large run"
grep -E "^(hpcq-climate|mass|energy|performance)" large.out | tee -a "$LOG"
cups=$(sed -n 's/^performance: .*, \([0-9.e+]*\) cell-updates\/s/\1/p' large.out)
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [ -z "${PEAK_BW:-}" ]; then
    case "$name" in
        *H200*) PEAK_BW=4.8e12 ;; *H100*PCIe*) PEAK_BW=2.0e12 ;; *H100*) PEAK_BW=3.35e12 ;;
        *A100*80GB*) PEAK_BW=2.039e12 ;; *A100*) PEAK_BW=1.555e12 ;; *) PEAK_BW=2.0e12 ;;
    esac
fi
# Bytes per cell-update, counted from the kernels: per sweep stage the flux
# kernel reads 4 fields and writes 4 fluxes (64 B), the update reads the
# start state, the fluxes and one field and writes 4 (104 B); 3 stages x 2
# directions.  Stencil neighbours are assumed to hit in cache.
python3 - "$cups" "$PEAK_BW" <<'PY' | tee -a "$LOG"
import sys
cups, peak = float(sys.argv[1]), float(sys.argv[2])
bytes_per = 6 * (64 + 104)
bw = cups * bytes_per
print("large grid: %.3e cell-updates/s, ~%d B per cell-update -> %.3e B/s = %.1f%% of peak %.2e B/s"
      % (cups, bytes_per, bw, 100 * bw / peak, peak))
PY
say "PASS"
