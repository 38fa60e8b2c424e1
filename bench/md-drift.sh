#!/bin/bash
# bench/md-drift.sh - total-energy conservation of hpcq-md against
# Debian's LAMMPS (lmp) over several seeds: fcc 0.8442, T 1.44, cutoff
# 2.5, skin 0.3, lists every 20 steps without the check (in.lj), NVE,
# dt 0.005, 1 core each.  For every seed both codes run the same set-up
# (their random velocities differ: only the statistics compare).
#
#   bench/md-drift.sh BUILDDIR [CELLS] [STEPS] [SEEDS...]
#
# Per run, from TotEng per atom printed every 100 steps after step 100
# (the lattice has melted by then; lj/cut is not shifted, so the energy
# jumps as pairs cross the cutoff):
#   |dE|   abs(TotEng(STEPS) - TotEng(100))
#   slope  least-squares slope of TotEng against time (per atom per tau)
#   sd     standard deviation of TotEng about that line
set -eu
B=${1:?usage: $0 BUILDDIR [CELLS] [STEPS] [SEEDS...]}
CELLS=${2:-10}
STEPS=${3:-10000}
shift $(($# < 3 ? $# : 3))
SEEDS=${*:-87287 12345 4928459 777 31415}
SRC=$(cd "$(dirname "$0")/.." && pwd)
MD=$B/apps/md/hpcq-md
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
W=$(mktemp -d /tmp/md-drift.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

# stats FILE COLUMN -> "|dE| slope sd"
stats() {
    awk -v last="$STEPS" -v c="$2" -v dt=0.005 '
        $1 ~ /^[0-9]+$/ && NF >= 5 && $1 >= 100 {
            t = $1 * dt; e = $c; if ($1 == 100) e0 = e; if ($1 == last) e1 = e
            n++; st += t; se += e; stt += t * t; ste += t * e; see += e * e }
        END {
            b = (n * ste - st * se) / (n * stt - st * st); a = (se - b * st) / n
            r = see - 2 * a * se - 2 * b * ste + n * a * a + 2 * a * b * st + b * b * stt
            printf "%.3g %.3g %.3g", (e1 > e0 ? e1 - e0 : e0 - e1), b, sqrt((r > 0 ? r : 0) / n) }' "$1"
}

echo "$((4 * CELLS ** 3)) atoms, $STEPS steps NVE, dt 0.005, 1 core; TotEng per atom from step 100:"
echo
echo "| seed | LAMMPS abs(dE) | hpcq-md abs(dE) | LAMMPS slope /tau | hpcq-md slope /tau | LAMMPS sd | hpcq-md sd |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for seed in $SEEDS; do
    sed -e "s/block 0 20 0 20 0 20/block 0 $CELLS 0 $CELLS 0 $CELLS/" \
        -e "s/^velocity.*/velocity all create 1.44 $seed loop geom/" \
        -e "s/^run.*/run $STEPS/" \
        -e "s/^thermo\t.*/thermo 100\nthermo_modify format float %.12g/" \
        "$SRC/apps/md/ref/in.lj" >in.$seed
    lmp -in in.$seed -log none >lmp.$seed 2>&1
    "$MD" --cpu --cells ${CELLS}x${CELLS}x${CELLS} --seed "$seed" --steps "$STEPS" \
        --thermo 100 --thermo-digits 12 --neigh-every 20 --neigh-check no >md.$seed 2>/dev/null
    read -r ld ls lsd <<<"$(stats lmp.$seed 5)"
    read -r md ms msd <<<"$(stats md.$seed 4)"
    echo "| $seed | $ld | $md | $ls | $ms | $lsd | $msd |"
    echo "$ld $md $ls $ms $lsd $msd" >>all
done
# medians over the seeds, and the mean of |slope|
awk '{ for (c = 1; c <= 6; c++) { v[c, NR] = $c; if (c == 3 || c == 4) as[c] += ($c < 0 ? -$c : $c) } }
    END {
        n = NR
        for (c = 1; c <= 6; c++) {
            for (i = 1; i <= n; i++) w[i] = (c == 3 || c == 4) && v[c, i] < 0 ? -v[c, i] : v[c, i]
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t }
            m[c] = n % 2 ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2
        }
        printf "| median (abs for slopes) | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g |\n", m[1], m[2], m[3], m[4], m[5], m[6]
        printf "| mean abs(slope) | | | %.3g | %.3g | | |\n", as[3] / n, as[4] / n }' all
