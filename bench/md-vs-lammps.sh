#!/bin/bash
# bench/md-vs-lammps.sh - hpcq-md against Debian's LAMMPS (lmp) on the
# in.lj benchmark (32,000 atoms) and a 256,000-atom box, 1 and 2 cores,
# in one run so both see the same machine.  Then (unless DRIFT=0) the
# total-energy drift per atom over a long NVE run of both codes.
#
#   bench/md-vs-lammps.sh BUILDDIR [STEPS] [DRIFT_CELLS] [DRIFT_STEPS]
set -eu
B=${1:?usage: $0 BUILDDIR [STEPS] [DRIFT_CELLS] [DRIFT_STEPS]}
STEPS=${2:-100}
DCELLS=${3:-10}
DSTEPS=${4:-10000}
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

echo "| atoms | cores | LAMMPS atom-steps/s | hpcq-md (threads) | hpcq-md (ranks) | best ratio |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
for cells in 20 40; do
    in=$(lj_input $cells "$STEPS")
    for cores in 1 2; do
        l=$(lmp_rate $cores "$in")
        t=$(md_rate $cores 1 $cells)
        r=$(md_rate 1 $cores $cells)
        best=$((t > r ? t : r))
        printf "| %d | %d | %d | %d | %d | %.2f |\n" $((4 * cells ** 3)) $cores \
            "$l" "$t" "$r" "$(awk -v a=$best -v b=$l 'BEGIN { print a / b }')"
    done
done

[ "${DRIFT:-1}" = 0 ] && exit 0
echo
echo "Energy drift, $((4 * DCELLS ** 3)) atoms, $DSTEPS steps NVE, dt 0.005, 1 core:"
in=$(lj_input $DCELLS "$DSTEPS")
sed -i "s/^thermo .*/thermo 100\nthermo_modify format float %.12g/" "$in"
OMP_NUM_THREADS=1 lmp -in "$in" -log none >lmp.out 2>&1
OMP_NUM_THREADS=1 "$MD" --cpu --cells ${DCELLS}x${DCELLS}x${DCELLS} --steps "$DSTEPS" \
    --thermo 100 --thermo-digits 12 --neigh-every 20 --neigh-check no >md.out 2>/dev/null
# drift: |TotEng(end) - TotEng(step 100)| (after the lattice melts), and
# the standard deviation of TotEng over the run after step 100
drift() { awk -v last="$DSTEPS" -v c="$2" '$1 ~ /^[0-9]+$/ && NF >= 5 && $1 >= 100 {
    e = $c; if ($1 == 100) e0 = e; if ($1 == last) e1 = e; s += e; ss += e * e; n++ }
    END { m = s / n; printf "%.3g %.3g", (e1 > e0 ? e1 - e0 : e0 - e1), sqrt(ss / n - m * m) }' "$1"; }
read ld lsd <<<"$(drift lmp.out 5)"
read md msd <<<"$(drift md.out 4)"
echo "| code | abs(TotEng(end) - TotEng(100)) per atom | std dev of TotEng per atom |"
echo "| --- | ---: | ---: |"
echo "| LAMMPS | $ld | $lsd |"
echo "| hpcq-md | $md | $msd |"
