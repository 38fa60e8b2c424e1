#!/bin/bash
# tests/gpu/md.sh - hpcq-md on a machine with an NVIDIA GPU: build with
# nvcc, check CPU-vs-GPU agreement, time 1M and 8M atoms.  Prints
# atom-steps/s and the fraction of the GPU's memory bandwidth the force
# kernel reaches.  Budget: under 8 minutes including the build.
#
#   tests/gpu/md.sh [BUILD_DIR]     (run from the source tree)
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-/tmp/md-gpu-build}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
deadline=$((SECONDS + 470))
t() { echo "[$(date +%T) +${SECONDS}s] $*"; }

t "GPU: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)"
mkdir -p "$B"
if [ ! -x "$B/apps/md/hpcq-md" ]; then
    t "build (nvcc)"
    [ -x "$SRC/configure" ] || (cd "$SRC" && ./autogen.sh >/dev/null)
    (cd "$B" && "$SRC/configure" --with-cuda >/dev/null && make -j"$(nproc)" apps/md/hpcq-md >/dev/null)
fi
MD=$B/apps/md/hpcq-md
ldd "$MD" | grep -q cudart || { echo "FAIL: hpcq-md not built with CUDA"; exit 1; }

col() { awk -v s="$1" -v c="$2" '$1 == s && NF == 5 { print $c }' "$3"; }
reldiff() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; printf "%.3g", d / m }'; }

t "agreement: in.lj (32,000 atoms, 100 steps) on CPU and GPU"
ARGS="--cells 20x20x20 --steps 100 --thermo 50 --thermo-digits 16 --neigh-every 20 --neigh-check no"
"$MD" --cpu $ARGS >cpu.out
"$MD" --gpu $ARGS >gpu.out
cat gpu.out
fail=0
for c in 3 5; do
    r=$(reldiff "$(col 0 $c gpu.out)" "$(col 0 $c cpu.out)")
    echo "step 0 column $c: relative difference $r"
    awk -v r="$r" 'BEGIN { exit !(r < 1e-12) }' || fail=1
done
for c in 2 3 4 5; do
    r=$(reldiff "$(col 100 $c gpu.out)" "$(col 100 $c cpu.out)")
    echo "step 100 column $c: relative difference $r"
    awk -v r="$r" 'BEGIN { exit !(r < 1e-8) }' || fail=1
done
[ $fail = 0 ] && echo "PASS: CPU and GPU agree" || echo "FAIL: CPU and GPU disagree"

# Memory traffic of the force kernel per atom-step, counted as the bytes it
# must move at least once: its neighbour list (4 bytes per entry, ~77
# entries within cutoff+skin at this density), 3 position reads through
# the cache per neighbour are not counted, 3 positions + 3 forces own.
peak_gbs=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader >/dev/null;
           python3 - <<'PY' 2>/dev/null || echo 0
import ctypes
c = ctypes.CDLL("libcudart.so")
v = ctypes.c_int()
def attr(a):
    c.cudaDeviceGetAttribute(ctypes.byref(v), a, 0); return v.value
clock_khz = attr(36)   # cudaDevAttrMemoryClockRate
bus = attr(37)         # cudaDevAttrGlobalMemoryBusWidth
print("%.0f" % (2 * clock_khz * 1e3 * bus / 8 / 1e9))
PY
)
for cells in 63x63x63 126x126x126; do
    [ $SECONDS -lt $deadline ] || { echo "out of time before $cells"; break; }
    steps=200; [ $cells = 126x126x126 ] && steps=100
    t "timing $cells ($((4 * ${cells%%x*} ** 3)) atoms, $steps steps)"
    "$MD" --gpu --cells $cells --steps $steps --thermo $steps --neigh-every 20 \
        --neigh-check no >run.out
    cat run.out
    rate=$(awk '/^Performance:/ { print $2 }' run.out)
    # bytes per atom-step: list 77*4 + own x,f 48
    bw=$(awk -v r="$rate" 'BEGIN { printf "%.1f", r * (77 * 4 + 48) / 1e9 }')
    echo "RESULT $cells atom-steps/s=$rate force-kernel-min-traffic=${bw}GB/s peak=${peak_gbs}GB/s fraction=$(awk -v a="$bw" -v p="$peak_gbs" 'BEGIN { if (p > 0) printf "%.2f", a / p; else print "?" }')"
done
t "done"
[ $fail = 0 ]
