#!/bin/bash
# hpcq-md's LAMMPS files without LAMMPS: --write-data then --data gives the
# same state back; two atom types with masses and PairIJ coefficients run
# and hold their energy; atoms outside the box come in with image flags;
# --dump frames (and a restart appends to them); one error line and exit
# status 2 for what is not supported (other atom styles, triclinic boxes,
# several types without pair coefficients, bonds, sparse ids, ...).
. "$(dirname "$0")/lib.sh"
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
export OMP_NUM_THREADS=1
unset HPCQ_CHECKPOINT_DIR HPCQ_CHECKPOINT_INTERVAL
RUN="$MD --cpu --cutoff 2.0 --thermo-digits 15"

col() { awk -v s="$1" -v c="$2" '$1 == s && NF == 5 { print $c }' "$3"; }
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
             m = b < 0 ? -b : b; exit !(a != "" && d <= t * m) }'; }

test_expect_success '--write-data: the lattice as a LAMMPS data file' '
    $RUN --cells 3x3x3 --steps 40 --thermo 40 --write-data a.data >a.out &&
    head -20 a.data && grep -q "^108 atoms$" a.data && grep -q "^1 atom types$" a.data &&
    grep -q "^Masses$" a.data && grep -q "^Pair Coeffs # lj/cut$" a.data &&
    grep -q "^Atoms # atomic$" a.data && grep -q "^Velocities$" a.data
'

test_expect_success '--data reads it back: the state it was written from' '
    $RUN --data a.data --steps 0 >b.out &&
    for c in 2 3 5; do
        echo "$(col 40 $c a.out) $(col 0 $c b.out)"
        close_to "$(col 0 $c b.out)" "$(col 40 $c a.out)" 1e-13 || exit 1
    done
'

# Two types: every other atom of a.data becomes type 2, three times heavier,
# with its own epsilon and sigma and the unlike pair given explicitly.  In
# so small a box the unshifted cutoff makes TotEng jump by 1e-2 (the same
# at half the timestep): a broken mass or force would move it far more.
test_expect_success 'two atom types with masses and PairIJ Coeffs run' '
    awk "/^Atoms/ { a = 1 } /^Velocities/ { a = 0 }
         /atom types/ { print \"2 atom types\"; next }
         /^Masses/ { print; getline; print; print \"1 1\"; print \"2 3\"; getline; next }
         /^Pair Coeffs/ { print \"PairIJ Coeffs # lj/cut\"; print \"\";
                          print \"1 1 1 1\"; print \"1 2 0.8 1.05\"; print \"2 2 0.6 1.1\";
                          getline; getline; next }
         a && NF == 8 && \$1 % 2 == 0 { \$2 = 2 } { print }" a.data >two.data &&
    $RUN --data two.data --steps 400 --thermo 100 >two.out && cat two.out &&
    close_to "$(col 400 4 two.out)" "$(col 100 4 two.out)" 2e-2
'

test_expect_success 'the heavier type moves slower (equipartition holds m v^2, not v^2)' '
    $RUN --data two.data --steps 400 --thermo 0 --dump two.dump --dump-every 400 >/dev/null &&
    awk "/ITEM: TIMESTEP/ { getline; s = \$1 } s == 400 && NF == 11 {
         v = \$6 * \$6 + \$7 * \$7 + \$8 * \$8; n[\$2]++; sum[\$2] += v }
         END { r = (sum[1] / n[1]) / (sum[2] / n[2]); print \"<v2> light/heavy\", r;
               exit !(r > 1.5 && r < 6) }" two.dump
'

test_expect_success 'write-data keeps both types, masses and the pair table' '
    $RUN --data two.data --steps 10 --write-data two-out.data >/dev/null &&
    grep -q "^2 3$" two-out.data && grep -q "^PairIJ Coeffs # lj/cut$" two-out.data &&
    grep -q "^1 2 0.80000000000000004 1.05" two-out.data &&
    test $(awk "/^Atoms/ { a = 1; next } /^Velocities/ { a = 0 } a && \$2 == 2" two-out.data | wc -l) = 54
'

test_expect_success 'an atom outside the box comes in, its image flag counting the crossing' '
    L=$(awk "/xlo xhi/ { print \$2 }" a.data) &&
    awk -v L=$L "/^Atoms/ { a = 1 } a && \$1 == 7 && NF == 8 { \$3 += 2 * L; \$6 = 0 } { print }" \
        a.data >out.data &&
    $RUN --data out.data --steps 0 --write-data back.data >/dev/null &&
    awk "/^Atoms/ { a = 1 } a && \$1 == 7 && NF == 8 { print; exit !(\$6 == 2) }" back.data
'

test_expect_success '--dump: LAMMPS text frames every --dump-every steps, sorted by id' '
    $RUN --cells 3x3x3 --steps 20 --dump t.dump --dump-every 10 >/dev/null &&
    test $(grep -c "^ITEM: TIMESTEP$" t.dump) = 3 &&
    grep -A1 "^ITEM: TIMESTEP" t.dump | grep -x -e 0 -e 10 -e 20 | wc -l | grep -qx 3 &&
    grep -q "^ITEM: BOX BOUNDS pp pp pp$" t.dump &&
    grep -q "^ITEM: ATOMS id type x y z vx vy vz fx fy fz$" t.dump &&
    awk "NF == 11 { if (\$1 != ++n) exit 1; if (n == 108) n = 0 }" t.dump
'

test_expect_success 'a restarted run appends to its dump: the frames of a straight run' '
    $RUN --cells 3x3x3 --steps 10 --dump r.dump --dump-every 10 --checkpoint-dir ck \
        --checkpoint-every 10 >/dev/null 2>&1 &&
    $RUN --cells 3x3x3 --steps 20 --dump r.dump --dump-every 10 --checkpoint-dir ck \
        --restart >/dev/null 2>&1 &&
    cmp t.dump r.dump
'

# bad_data DESC SED-SCRIPT WORDS: a.data edited by SED-SCRIPT is refused with
# one line on stderr, containing WORDS, and exit status 2.
bad_data() {
    test_expect_success "bad data file: $1" '
        sed -e "'"$2"'" a.data >bad.data &&
        set +e; $RUN --data bad.data --steps 1 >bad.out 2>bad.err; rc=$?; set -e
        cat bad.err; test $rc = 2 && test $(wc -l <bad.err) = 1 &&
        grep -q "^hpcq-md: .*'"$3"'" bad.err
    '
}
bad_data 'another atom style' 's/^Atoms # atomic/Atoms # full/' "atom style .full. is not supported"
bad_data 'atom lines of another style' 's/^\(5 1 [^ ]* [^ ]* [^ ]*\) .*$/\1 1 0 0 0/; s/^Atoms # atomic/Atoms/' "only atom_style atomic"
bad_data 'a triclinic box' 's/^\(.*zlo zhi\)$/\1\n0 0 0 xy xz yz/' "triclinic"
bad_data 'two types, no pair coefficients' 's/^1 atom types/2 atom types/; /^Masses/,/^Atoms/{/^1 1$/a\
2 1
}; /^Pair Coeffs/,/^Atoms/{/^Pair/d;/^1 1 1$/d}' "2 atom types but no Pair Coeffs"
bad_data 'bonds' 's/^1 atom types/1 atom types\n4 bonds/' "4 bonds"
bad_data 'an unknown section' 's/^Velocities$/Bonds/' "section .Bonds. is not supported"
bad_data 'ids that are not 1..N' 's/^108 1 /208 1 /' "atom ids must be 1"
bad_data 'a duplicate id' 's/^108 1 /107 1 /' "duplicate atom id"
bad_data 'a missing mass' '/^Masses/,/^Pair/{/^1 1$/d}' "expected .type mass."
bad_data 'a per-pair cutoff other than --cutoff' 's/^1 1 1$/1 1 1 3.0/' "per-pair cutoffs"
bad_data 'no box' '/xlo xhi/d' "no .xlo xhi. line"
bad_data 'a type out of range' 's/^5 1 /5 3 /' "type from the header"

test_expect_success 'bad data file: missing file, one line' '
    set +e; $RUN --data nosuch.data >x.out 2>x.err; rc=$?; set -e
    test $rc = 2 && test $(wc -l <x.err) = 1 && grep -q "cannot open data file" x.err
'

test_expect_success '--gpu with two atom types: one line, the reason' '
    set +e; $RUN --data two.data --gpu --steps 1 >g.out 2>g.err; rc=$?; set -e
    cat g.err; test $rc = 1 && grep -q "one atom type of mass 1" g.err
'

test_done
