#!/bin/bash
# bench/md-vs-lammps.sh - hpcq-md against Debian's LAMMPS (lmp), both
# started from the same LAMMPS data file: in.lj (fcc 0.8442, T 1.44, seed
# 87287) up to velocity create, written by LAMMPS's write_data, for the
# 32,000-atom benchmark box and a 256,000-atom one.  Both then run STEPS
# steps with in.lj's settings (lj/cut 2.5, skin 0.3, neigh_modify delay 0
# every 20 check no, dt 0.005, NVE), on 1 and 2 cores, in one run so both
# see the same machine.  Each figure is the median of REPS runs (default
# 3), the codes taking turns, since the machine is noisy.
#
# Then (unless TRAJ=0) the trajectories: both codes run TRAJ_STEPS
# (default 3000) from the 8x8x8 (2,048-atom) data file with a dump every
# 10 steps, and tests/md-dump-diff.py reports how far apart their atoms
# are as time goes on and the first step at which some atom's positions
# differ by 1e-6.  Then (unless DRIFT=0) bench/md-drift.sh compares the
# total-energy drift per atom over long NVE runs of both codes, 5 seeds.
#
#   [REPS=N] [CELLS="20 40"] [CORES="1 2"] [TRAJ=0] [DRIFT=0]
#       bench/md-vs-lammps.sh BUILDDIR [STEPS] [DRIFT_CELLS] [DRIFT_STEPS]
set -eu
B=$(cd "${1:?usage: $0 BUILDDIR [STEPS] [DRIFT_CELLS] [DRIFT_STEPS]}" && pwd)
STEPS=${2:-100}
DCELLS=${3:-10}
DSTEPS=${4:-10000}
REPS=${REPS:-3}
CELLS=${CELLS:-20 40}
CORES=${CORES:-1 2}
TRAJ_STEPS=${TRAJ_STEPS:-3000}
SRC=$(cd "$(dirname "$0")/.." && pwd)
MD=$B/apps/md/hpcq-md
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
W=$(mktemp -d /tmp/md-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

# The data file of in.lj with N cells per side: LAMMPS's own lattice and
# velocities (in.lj up to velocity create), written by write_data.
lj_data() {
    sed -e "s/block 0 20 0 20 0 20/block 0 $1 0 $1 0 $1/" -e "/^pair_style/,\$d" \
        "$SRC/apps/md/ref/in.lj" >make.$1.in
    echo "write_data lj.$1.data" >>make.$1.in
    lmp -in make.$1.in -log none -screen none
    echo lj.$1.data
}
# LAMMPS's run from a data file with in.lj's settings; extra lines after.
lmp_input() {   # DATA STEPS [LINES...]
    local data=$1 steps=$2
    shift 2
    printf '%s\n' "units lj" "atom_style atomic" "pair_style lj/cut 2.5" "read_data $data" \
        "pair_coeff 1 1 1.0 1.0" "neighbor 0.3 bin" "neigh_modify delay 0 every 20 check no" \
        "fix 1 all nve" "thermo $steps" "thermo_modify format float %.15g" "$@" "run $steps"
}
md_args() {     # DATA STEPS
    echo "--cpu --data $1 --cutoff 2.5 --skin 0.3 --dt 0.005 --steps $2 --thermo $2" \
        "--thermo-digits 15 --neigh-delay 0 --neigh-every 20 --neigh-check no"
}
lmp_rate() {    # cores data -> atom-steps/s
    lmp_input "$2" "$STEPS" >run.in
    OMP_NUM_THREADS=1 mpirun -np "$1" lmp -in run.in -log none 2>&1 |
        awk '/^Loop time of/ { t = $4; s = $9; n = $12 } END { printf "%.0f", n * s / t }'
}
md_rate() {     # threads ranks data -> atom-steps/s
    OMP_NUM_THREADS=$1 mpirun -np "$2" "$MD" $(md_args "$3" "$STEPS") 2>/dev/null |
        awk '/^Performance:/ { printf "%.0f", $2 }'
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END {
    print NR % 2 ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "| atoms | cores | LAMMPS atom-steps/s | hpcq-md (threads) | hpcq-md (ranks) | best ratio |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
for cells in $CELLS; do
    data=$(lj_data $cells)
    for cores in $CORES; do
        L= T= R=
        for rep in $(seq "$REPS"); do
            L="$L $(lmp_rate $cores "$data")"
            T="$T $(md_rate $cores 1 "$data")"
            R="$R $(md_rate 1 $cores "$data")"
        done
        l=$(echo $L | median) t=$(echo $T | median) r=$(echo $R | median)
        best=$((t > r ? t : r))
        printf "| %d | %d | %d | %d | %d | %.2f |\n" $((4 * cells ** 3)) $cores \
            "$l" "$t" "$r" "$(awk -v a=$best -v b=$l 'BEGIN { print a / b }')"
    done
done

if [ "${TRAJ:-1}" != 0 ]; then
    echo
    data=$(lj_data 8)
    lmp_input "$data" "$TRAJ_STEPS" "dump 1 all custom 10 lmp.dump id type x y z vx vy vz fx fy fz" \
        "dump_modify 1 sort id format float %.17g" >traj.in
    OMP_NUM_THREADS=1 lmp -in traj.in -log none >lmp.out
    OMP_NUM_THREADS=1 "$MD" $(md_args "$data" "$TRAJ_STEPS") --dump md.dump --dump-every 10 >md.out
    python3 "$SRC/tests/md-dump-diff.py" md.dump lmp.dump 1e-6 >traj.diff
    echo "Trajectories from in.lj's 8x8x8 data file (2,048 atoms), $TRAJ_STEPS steps:"
    echo
    echo "| step | largest position difference | largest force difference / largest force |"
    echo "| ---: | ---: | ---: |"
    awk -v n="$TRAJ_STEPS" '$1 == "step" && ($2 % (n / 10) == 0) {
        printf "| %d | %s | %.3g |\n", $2, $4, $6 / $8 }' traj.diff
    echo
    echo "First step with an atom 1e-6 apart: $(sed -n 's/^first //p' traj.diff)"
    echo "Neighbour list builds: LAMMPS $(sed -n 's/^Neighbor list builds = //p' lmp.out)," \
        "hpcq-md $(sed -n 's/.* \([0-9]*\) neighbour list builds$/\1/p' md.out)"
fi

[ "${DRIFT:-1}" = 0 ] && exit 0
echo
exec "$SRC/bench/md-drift.sh" "$B" "$DCELLS" "$DSTEPS"
