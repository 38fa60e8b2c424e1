#!/bin/bash
# hpcq-md on one rank: LAMMPS step-0 agreement, thermo output, input file,
# threads, trajectory and bad input (one error line, exit status 2).

. "$(dirname "$0")/lib.sh"
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
export OMP_NUM_THREADS=1
unset HPCQ_CHECKPOINT_DIR HPCQ_CHECKPOINT_INTERVAL

# Reference: Debian's LAMMPS 29 Sep 2021 (lmp -in apps/md/ref/in.lj),
# step 0 of in.lj; see apps/md/README.md for how they were recorded.
REF_EPAIR=-6.7733681
REF_PRESS=-5.0197073

# Column $2 of the thermo line for step $1 in file $3.
col() { awk -v s="$1" -v c="$2" '$1 == s && NF == 5 { print $c }' "$3"; }
sig7() { printf '%.7g' "$1"; }
# |a - b| <= tol * |b|
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= t * m) }'; }

test_expect_success 'in.lj step 0 matches LAMMPS E_pair and Press to 7 digits' '
    $MD --lattice fcc --density 0.8442 --cells 20x20x20 --temp 1.44 \
        --seed 87287 --cutoff 2.5 --skin 0.3 --dt 0.005 --steps 0 \
        --thermo-digits 12 --cpu >inlj.out &&
    e=$(col 0 3 inlj.out) && p=$(col 0 5 inlj.out) &&
    echo "E_pair $e Press $p" &&
    test "$(sig7 $e)" = "$(sig7 $REF_EPAIR)" &&
    test "$(sig7 $p)" = "$(sig7 $REF_PRESS)" &&
    test "$(sig7 $(col 0 2 inlj.out))" = 1.44
'

test_expect_success 'thermo has the LAMMPS columns and the timing summary' '
    $MD --cells 4x4x4 --steps 20 --thermo 10 >t.out &&
    head -1 t.out | grep -x "Step Temp E_pair TotEng Press" &&
    test -n "$(col 10 2 t.out)" && test -n "$(col 20 2 t.out)" &&
    grep "^Loop time of" t.out && grep "atom-steps/s" t.out
'

# The fcc start melts in the first ~100 steps (LAMMPS's TotEng moves by
# 2e-3 relative there too), and lj/cut is not shifted, so compare after it.
test_expect_success 'NVE holds the total energy from step 100 to 1000' '
    $MD --cells 5x5x5 --steps 1000 --thermo 100 --thermo-digits 12 >e.out &&
    close_to $(col 1000 4 e.out) $(col 100 4 e.out) 2e-3
'

test_expect_success 'an input file gives the same run as the options' '
    printf "cells 4x4x4 # small\nsteps 30\nthermo 30\nthermo-digits 16\nneigh-check no\n" >in.md &&
    $MD in.md >f.out && $MD --cells 4x4x4 --steps 30 --thermo 30 \
        --thermo-digits 16 --neigh-check no >o.out &&
    test "$(col 30 4 f.out)" = "$(col 30 4 o.out)" &&
    $MD --input in.md --steps 20 >g.out && test -n "$(col 20 4 g.out)"
'

test_expect_success 'two OpenMP threads agree with one to 1e-10' '
    $MD --cells 5x5x5 --steps 100 --thermo 100 --thermo-digits 16 >t1.out &&
    OMP_NUM_THREADS=2 $MD --cells 5x5x5 --steps 100 --thermo 100 \
        --thermo-digits 16 >t2.out &&
    for c in 2 3 4 5; do close_to $(col 100 $c t2.out) $(col 100 $c t1.out) 1e-10 || exit 1; done
'

test_expect_success 'thermostats hold the temperature' '
    $MD --cells 4x4x4 --steps 400 --thermo 400 --thermostat berendsen --tdamp 0.1 >b.out &&
    close_to $(col 400 2 b.out) 1.44 0.1 &&
    $MD --cells 4x4x4 --steps 400 --thermo 400 --thermostat langevin --tdamp 0.1 >l.out &&
    close_to $(col 400 2 l.out) 1.44 0.25
'

test_expect_success 'extended XYZ trajectory has a frame per dump step' '
    $MD --cells 3x3x3 --cutoff 2.0 --skin 0.3 --steps 20 --dump-xyz traj.xyz --dump-every 10 >/dev/null &&
    test $(grep -c "^108$" traj.xyz) = 3 &&
    grep -q "Lattice=\"" traj.xyz && test $(wc -l <traj.xyz) = $((3 * 110))
'

# bad_input DESC ARGS...: exit status 2 and exactly one line on stderr.
bad_input() {
    local desc=$1; shift
    test_expect_success "bad input: $desc" '
        set +e; $MD '"$*"' >bad.out 2>bad.err; rc=$?; set -e
        cat bad.err; test $rc = 2 && test $(wc -l <bad.err) = 1 &&
        grep -q "^hpcq-md: " bad.err
    '
}
bad_input 'unknown option' --frobnicate 3
bad_input 'zero cells' --cells 0x4x4
bad_input 'malformed cells' --cells 4x4
bad_input 'negative density' --density -0.8
bad_input 'zero timestep' --dt 0
bad_input 'non-numeric timestep' --dt fast
bad_input 'cutoff beyond half the box' --cells 3x3x3 --cutoff 3.0
bad_input 'missing value' --steps
bad_input 'missing input file' /nonexistent/in.md
bad_input 'unknown key in input file' --input <(echo "temperature 3")
bad_input 'restart without a checkpoint folder' --restart --cells 4x4x4

test_expect_success '--help lists the options and exits 0' '
    $MD --help >h.out && grep -q -- "--cells" h.out && grep -q -- "--restart" h.out
'

test_done
