#!/bin/bash
# bench/climate-cpu.sh - hpcq-climate CPU throughput in cell-updates per
# second (cells x time steps / wall seconds of the time loop) at 400 x 200
# and 1600 x 800 cells on 1 and 2 cores, side by side with miniWeather
# when its source is given.
#
#   [REPS=3] [CORES="1 2"] [MINIWEATHER=DIR] bench/climate-cpu.sh BUILDDIR [STEPS_SMALL [STEPS_LARGE]]
#
# The thermal case; the step count is fixed by choosing --sim-time = steps
# x dt (hpcq-climate: dt = min(dx, dz) / 450 m/s; miniWeather: 1.5 times
# that).  MINIWEATHER is a checkout of github.com/mrnorman/miniWeather:
# its C MPI version (c/miniWeather_mpi.cpp) is compiled in a temporary
# folder with mpicxx -O3, its PnetCDF output cut out (the runs write no
# output), and run with 1 and 2 ranks where hpcq-climate runs with 1 and
# 2 OpenMP threads; nothing of it is kept.  The two codes take turns,
# REPS times, and each figure is the median; "ratio" is hpcq-climate's
# over miniWeather's.  Besides the rate over the time loop's wall time
# that each program reports, the rate per CPU-second (cells x steps over
# the process's user + system time, set-up included) is given: on a
# shared machine it is the steadier measure of per-core throughput.
# Prints a Markdown table.
set -eu
B=${1:?usage: climate-cpu.sh BUILDDIR [STEPS_SMALL [STEPS_LARGE]]}
S1=${2:-200}
S2=${3:-20}
REPS=${REPS:-3}
CORES=${CORES:-1 2}
C=$B/apps/climate/hpcq-climate
MW=${MINIWEATHER:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
W=$(mktemp -d /tmp/climate-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT

# miniWeather for an nx x nz grid and a simulated time: its sizes are
# compile-time constants.
mw_build() {
    local nx=$1 nz=$2 simt=$3
    python3 - "$MW/c/miniWeather_mpi.cpp" "$W/mw.cpp" <<'PY'
import sys
s = open(sys.argv[1]).read().replace('#include "pnetcdf.h"', '')
a = s.index('void output( double *state , double etime ) {')
b = s.index('\n}\n', s.index('void ncwrap( int ierr , int line ) {')) + 3
s = s[:a] + 'void output( double *state , double etime ) {}\nvoid ncwrap( int ierr , int line ) {}\n' + s[b:]
open(sys.argv[2], 'w').write(s)
PY
    mpicxx -O3 -DNO_INFORM -D_NX="$nx" -D_NZ="$nz" -D_SIM_TIME="$simt" -D_OUT_FREQ=-1 \
        -D_DATA_SPEC=DATA_SPEC_THERMAL -o "$W/mw_${nx}" "$W/mw.cpp"
}

simtime() {   # nx nz steps cfl [less] -> seconds for steps - less steps
    awk -v nx="$1" -v nz="$2" -v s="$3" -v c="$4" -v l="${5:-0}" 'BEGIN {
        dx = 20000 / nx; dz = 10000 / nz; d = (dx < dz) ? dx : dz; printf "%.17g", (s - l) * c * d / 450 }'
}

cpu_rate() {    # cells -> cells per CPU-second from $W/cpu (user system)
    awk -v c="$1" '{ printf "%.6g\n", c / ($1 + $2) }' "$W/cpu"
}

hpcq_rate() {   # threads nx nz simt steps -> "wall rate cpu-rate"
    local r
    r=$(OMP_NUM_THREADS=$1 OMP_PROC_BIND=close /usr/bin/time -f "%U %S" -o "$W/cpu" \
        "$C" --cpu --case thermal --nx "$2" --nz "$3" --sim-time "$4" |
        sed -n 's/^performance: [0-9]* steps in \([0-9.]*\) s, \(.*\) cell-updates\/s/\1 \2/p')
    echo "$r $(cpu_rate $(($2 * $3 * $5)))"
}

mw_rate() {     # ranks nx nz steps -> "wall rate cpu-rate"
    local r
    r=$(/usr/bin/time -f "%U %S" -o "$W/cpu" mpirun -np "$1" "$W/mw_$2" |
        awk -v c=$(($2 * $3 * $4)) '/^CPU Time:/ { printf "%s %.6g\n", $3, c / $3 }')
    echo "$r $(cpu_rate $(($2 * $3 * $4)))"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if [ -n "$MW" ]; then
    echo "| grid | steps | cores | hpcq wall s | hpcq cell-updates/s | miniWeather | ratio | hpcq per CPU-s | miniWeather per CPU-s | ratio |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
else
    echo "| grid | steps | threads | wall s | cell-updates/s | per CPU-s |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
fi
for g in "400 200 $S1" "1600 800 $S2"; do
    set -- $g
    nx=$1 nz=$2 steps=$3
    # (steps - 0.5) dt: exactly steps steps, the last one half long
    [ -n "$MW" ] && mw_build "$nx" "$nz" "$(simtime "$nx" "$nz" "$steps" 1.5 0.5)"
    for t in $CORES; do
        : >"$W/h" >"$W/m"
        for rep in $(seq "$REPS"); do
            hpcq_rate "$t" "$nx" "$nz" "$(simtime "$nx" "$nz" "$steps" 1)" "$steps" >>"$W/h"
            [ -n "$MW" ] && mw_rate "$t" "$nx" "$nz" "$steps" >>"$W/m"
        done
        hw=$(cut -d' ' -f1 "$W/h" | median) hr=$(cut -d' ' -f2 "$W/h" | median)
        hc=$(cut -d' ' -f3 "$W/h" | median)
        if [ -n "$MW" ]; then
            mr=$(cut -d' ' -f2 "$W/m" | median) mc=$(cut -d' ' -f3 "$W/m" | median)
            printf "| %s x %s | %s | %s | %.3f | %.3g | %.3g | %.2f | %.3g | %.3g | %.2f |\n" \
                "$nx" "$nz" "$steps" "$t" "$hw" "$hr" "$mr" \
                "$(awk -v a="$hr" -v b="$mr" 'BEGIN { print a / b }')" "$hc" "$mc" \
                "$(awk -v a="$hc" -v b="$mc" 'BEGIN { print a / b }')"
        else
            printf "| %s x %s | %s | %s | %.3f | %.3g | %.3g |\n" "$nx" "$nz" "$steps" "$t" \
                "$hw" "$hr" "$hc"
        fi
    done
done
