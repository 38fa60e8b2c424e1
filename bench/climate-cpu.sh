#!/bin/bash
# bench/climate-cpu.sh - hpcq-climate CPU throughput in cell-updates per
# second (cells x time steps / wall seconds of the time loop) at 400 x 200
# and 1600 x 800 cells on 1 and 2 OpenMP threads.
#
#   bench/climate-cpu.sh BUILDDIR [STEPS_SMALL [STEPS_LARGE]]
#
# The thermal case; the step count is fixed by choosing --sim-time = steps
# x dt (dt = min(dx, dz) / 450 m/s).  Prints a Markdown table.
set -eu
B=${1:?usage: climate-cpu.sh BUILDDIR [STEPS_SMALL [STEPS_LARGE]]}
S1=${2:-200}
S2=${3:-20}
C=$B/apps/climate/hpcq-climate

echo "| grid | steps | threads | wall s | cell-updates/s |"
echo "| --- | ---: | ---: | ---: | ---: |"
for g in "400 200 $S1" "1600 800 $S2"; do
    set -- $g
    nx=$1 nz=$2 steps=$3
    simt=$(awk -v nx=$nx -v nz=$nz -v s=$steps 'BEGIN {
        dx = 20000 / nx; dz = 10000 / nz; d = (dx < dz) ? dx : dz; printf "%.17g", s * d / 450 }')
    for t in 1 2; do
        out=$(OMP_NUM_THREADS=$t OMP_PROC_BIND=close "$C" --cpu --case thermal \
              --nx $nx --nz $nz --sim-time "$simt")
        perf=$(echo "$out" | sed -n 's/^performance: \([0-9]*\) steps in \([0-9.]*\) s, \(.*\) cell-updates\/s/\1 \2 \3/p')
        set -- $perf
        echo "| $nx x $nz | $1 | $t | $2 | $(printf '%.3g' "$3") |"
    done
done
