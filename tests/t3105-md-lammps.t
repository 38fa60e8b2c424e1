#!/bin/bash
# hpcq-md against Debian's LAMMPS (lmp), trajectory by trajectory.  LAMMPS
# runs apps/md/ref/in.lj (8x8x8 cells, 2,048 atoms) up to velocity create
# and writes a data file; hpcq-md and LAMMPS then run 1,000 steps from it
# with in.lj's settings and must agree to 1e-9 in thermo at step 100 and
# rebuild their neighbour lists on the same steps (also with LAMMPS's
# check rule).  On the perfect lattice of step 0 every force is round-off
# (|f| ~ 1e-14), so the per-atom forces are compared on a melted state
# (in.lj after 100 steps, written by LAMMPS): to 1e-12 of the largest.
# A data file hpcq-md writes is read by LAMMPS and gives the same thermo.
. "$(dirname "$0")/lib.sh"
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
DIFF="python3 $HPCQ_SRCDIR/tests/md-dump-diff.py"
export OMP_NUM_THREADS=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset HPCQ_CHECKPOINT_DIR HPCQ_CHECKPOINT_INTERVAL

LMP=$(command -v lmp || command -v lmp_serial || command -v lmp_stable || true)
if [ -z "$LMP" ]; then
    test_skip 'hpcq-md against LAMMPS' 'LAMMPS (lmp) is not installed: apt-get install lammps'
    test_done
fi

# LAMMPS's run from DATA with in.lj's settings, neigh_modify $NEIGH:
# thermo every 100 steps with 15 digits, a full-precision dump every 50.
lmp_run() {   # DATA STEPS NEIGH OUT
    cat >"$4.in" <<EOF
units		lj
atom_style	atomic
pair_style	lj/cut 2.5
read_data	$1
pair_coeff	1 1 1.0 1.0
neighbor	0.3 bin
neigh_modify	$3
fix		1 all nve
thermo		100
thermo_modify	format float %.15g
dump		1 all custom 50 $4.dump id type x y z vx vy vz fx fy fz
dump_modify	1 sort id format float %.17g
run		$2
EOF
    "$LMP" -in "$4.in" -log none >"$4.out" 2>&1
}
md_run() {    # DATA STEPS DELAY EVERY CHECK OUT [options]
    local data=$1 steps=$2 delay=$3 every=$4 check=$5 out=$6
    shift 6
    $MD --cpu --data "$data" --cutoff 2.5 --skin 0.3 --dt 0.005 --steps "$steps" \
        --neigh-delay "$delay" --neigh-every "$every" --neigh-check "$check" \
        --thermo 100 --thermo-digits 15 --dump "$out.dump" --dump-every 50 "$@" >"$out.out"
}
# thermo value NAME at step S of LAMMPS's (lcol) or hpcq-md's (mcol) output
lcol() { awk -v s="$2" -v n="$3" '$1 == "Step" { for (i = 1; i <= NF; i++) c[$i] = i; nf = NF; next }
                                   nf && NF == nf && $1 == s { print $c[n]; exit }' "$1"; }
mcol() { lcol "$@"; }
# |a - b| <= tol |b|
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
             m = b < 0 ? -b : b; exit !(a != "" && d <= t * m) }'; }
same_thermo() {   # LMP_OUT MD_OUT STEP TOL
    for n in Temp E_pair TotEng Press; do
        l=$(lcol "$1" "$3" $n) m=$(mcol "$2" "$3" $n)
        echo "step $3 $n: LAMMPS $l hpcq-md $m"
        close_to "$m" "$l" "$4" || return 1
    done
}
builds() { sed -n 's/^Neighbor list builds = \([0-9]*\)/\1/p; s/.* \([0-9]*\) neighbour list builds$/\1/p' "$1"; }

test_expect_success 'LAMMPS writes in.lj (8x8x8) up to velocity create, and 100 steps on' '
    sed -e "s/block 0 20 0 20 0 20/block 0 8 0 8 0 8/" -e "/^pair_style/,\$d" \
        "$HPCQ_SRCDIR/apps/md/ref/in.lj" >make.in &&
    echo "write_data start.data" >>make.in && cat make.in &&
    "$LMP" -in make.in -log none >make.out 2>&1 &&
    lmp_run start.data 100 "delay 0 every 20 check no" melt &&
    echo "write_data melt.data" >>melt.in && "$LMP" -in melt.in -log none >melt.out 2>&1 &&
    grep -q "^2048 atoms" start.data && grep -q "^Velocities" melt.data
'

test_expect_success 'hpcq-md reads it: the same thermo at step 0' '
    lmp_run start.data 0 "delay 0 every 20 check no" lzero &&
    md_run start.data 0 0 20 no zero && same_thermo lzero.out zero.out 0 1e-12
'

test_expect_success '1,000 steps each (neigh_modify delay 0 every 20 check no)' '
    lmp_run start.data 1000 "delay 0 every 20 check no" l20 &&
    md_run start.data 1000 0 20 no m20 &&
    grep "^Loop time" l20.out m20.out
'

test_expect_success 'thermo agrees to 1e-9 relative at step 100 (and is reported at 1000)' '
    same_thermo l20.out m20.out 100 1e-9 &&
    { same_thermo l20.out m20.out 1000 1 || true; }
'

test_expect_success 'the lists are rebuilt on the same steps: as many builds as LAMMPS' '
    echo "LAMMPS $(builds l20.out) hpcq-md $(builds m20.out)" &&
    test -n "$(builds l20.out)" && test "$(builds l20.out)" = "$(builds m20.out)"
'

test_expect_success 'the trajectories, frame by frame: where they part by 1e-6' '
    $DIFF m20.dump l20.dump 1e-6 >traj.diff && cat traj.diff &&
    test $(grep -c "^step " traj.diff) = 21 &&
    awk "\$1 == \"step\" && \$2 == 0 { exit !(\$4 == 0) }" traj.diff &&
    awk "\$1 == \"step\" && \$2 == 100 { exit !(\$4 < 1e-12) }" traj.diff
'
[ -f traj.diff ] && say "positions 1e-6 apart first at step: $(sed -n "s/^first //p" traj.diff)" \
    "(of 1000; largest difference at 1000: $(awk '$2 == 1000 { print $4 }' traj.diff))"

test_expect_success 'LAMMPS check rule (delay 4 every 2 check yes): same builds, same thermo' '
    lmp_run start.data 300 "delay 4 every 2 check yes" lchk &&
    md_run start.data 300 4 2 yes mchk &&
    echo "LAMMPS $(builds lchk.out) hpcq-md $(builds mchk.out)" &&
    test "$(builds lchk.out)" = "$(builds mchk.out)" &&
    same_thermo lchk.out mchk.out 100 1e-9 && same_thermo lchk.out mchk.out 300 1e-7
'

test_expect_success 'forces on the melted state: every atom to 1e-12 of the largest force' '
    lmp_run melt.data 0 "delay 0 every 20 check no" lf &&
    md_run melt.data 0 0 20 no mf &&
    $DIFF mf.dump lf.dump >f.diff && cat f.diff &&
    awk "\$1 == \"step\" { d = \$6; m = \$8; print \"max |df| / max |f| =\", d / m;
         ok = m > 1 && d <= 1e-12 * m } END { exit !ok }" f.diff
'

test_expect_success 'a data file hpcq-md writes, LAMMPS reads: same state, same thermo' '
    md_run start.data 100 0 20 no w --write-data w.data &&
    grep -q "^Atoms # atomic" w.data && grep -q "^Velocities" w.data &&
    awk "/^Atoms/ { a = 1; next } /^Velocities/ { a = 0 } a && NF == 8 && (\$6 || \$7 || \$8) { n++ }
         END { print n, \"atoms with image flags\"; exit !(n > 0) }" w.data &&
    lmp_run w.data 0 "delay 0 every 20 check no" lw &&
    for n in Temp E_pair Press; do
        l=$(lcol lw.out 0 $n) m=$(mcol w.out 100 $n)
        echo "$n: LAMMPS from hpcq-md'"'"'s file $l, hpcq-md $m"
        close_to "$l" "$m" 1e-12 || exit 1
    done
'

test_done
