#!/bin/bash
# bench/md-vs-lammps.sh - hpcq-md against Debian's LAMMPS (lmp) on the
# in.lj benchmark (32,000 atoms) and a 256,000-atom box, 1 and 2 cores,
# in one run so both see the same machine.  Each figure is the median of
# REPS runs (default 3), the codes taking turns, since the machine is
# noisy.  Then (unless DRIFT=0) bench/md-drift.sh compares the
# total-energy drift per atom over long NVE runs of both codes, 5 seeds.
#
#   [REPS=N] [DRIFT=0] bench/md-vs-lammps.sh BUILDDIR [STEPS] [DRIFT_CELLS] [DRIFT_STEPS]
set -eu
B=${1:?usage: $0 BUILDDIR [STEPS] [DRIFT_CELLS] [DRIFT_STEPS]}
STEPS=${2:-100}
DCELLS=${3:-10}
DSTEPS=${4:-10000}
REPS=${REPS:-3}
SRC=$(cd "$(dirname "$0")/.." && pwd)
MD=$B/apps/md/hpcq-md
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
W=$(mktemp -d /tmp/md-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

# in.lj with N cells per side and S steps (thermo only at the ends).
lj_input() {
    sed -e "s/block 0 20 0 20 0 20/block 0 $1 0 $1 0 $1/" -e "s/^run.*/run $2/" \
        -e "s/^thermo\t.*/thermo $2\nthermo_modify format float %.12g/" \
        "$SRC/apps/md/ref/in.lj" >in.$1.$2
    echo in.$1.$2
}
lmp_rate() {   # cores input -> atom-steps/s
    local f
    f=$(OMP_NUM_THREADS=1 mpirun -np "$1" lmp -in "$2" -log none 2>&1 |
        awk '/^Loop time of/ { t = $4; s = $9; n = $12 } END { printf "%.0f", n * s / t }')
    echo "$f"
}
md_rate() {    # threads ranks cells -> atom-steps/s
    OMP_NUM_THREADS=$1 mpirun -np "$2" "$MD" --cpu --cells "$3x$3x$3" --steps "$STEPS" \
        --thermo "$STEPS" --neigh-every 20 --neigh-check no 2>/dev/null |
        awk '/^Performance:/ { printf "%.0f", $2 }'
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END {
    print NR % 2 ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "| atoms | cores | LAMMPS atom-steps/s | hpcq-md (threads) | hpcq-md (ranks) | best ratio |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
for cells in 20 40; do
    in=$(lj_input $cells "$STEPS")
    for cores in 1 2; do
        L= T= R=
        for rep in $(seq "$REPS"); do
            L="$L $(lmp_rate $cores "$in")"
            T="$T $(md_rate $cores 1 $cells)"
            R="$R $(md_rate 1 $cores $cells)"
        done
        l=$(echo $L | median) t=$(echo $T | median) r=$(echo $R | median)
        best=$((t > r ? t : r))
        printf "| %d | %d | %d | %d | %d | %.2f |\n" $((4 * cells ** 3)) $cores \
            "$l" "$t" "$r" "$(awk -v a=$best -v b=$l 'BEGIN { print a / b }')"
    done
done

[ "${DRIFT:-1}" = 0 ] && exit 0
echo
exec "$SRC/bench/md-drift.sh" "$B" "$DCELLS" "$DSTEPS"
