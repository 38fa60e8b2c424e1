#!/bin/bash
# hpcq-climate: every named case runs on a small grid, conserves mass to
# round-off (1e-13 relative) and reports a finite energy change; a state at
# rest stays exactly at rest (the background is balanced).
. "$(dirname "$0")/lib.sh"
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
export OMP_NUM_THREADS=2

# the relative change printed on the "WHAT:" line
rel() { sed -n "s/^$1:.*relative change //p" "$2"; }
small() { awk -v x="$1" -v lim="$2" 'BEGIN { x = (x < 0) ? -x : x; exit !(x == x && x <= lim) }'; }

for c in thermal collision gravity_waves density_current injection; do
    test_expect_success "$c: runs, mass conserved to 1e-13, energy reported" "
        $CLIMATE --case $c --nx 48 --nz 24 --sim-time 400 --quiet > $c.out &&
        cat $c.out &&
        m=\$(rel mass $c.out) && e=\$(rel energy $c.out) &&
        test -n \"\$m\" && test -n \"\$e\" &&
        small \"\$m\" 1e-13 && small \"\$e\" 1e-1
    "
done

test_expect_success 'mass conserved to 1e-13 on an odd-sized grid with 2 threads' '
    OMP_NUM_THREADS=2 $CLIMATE --case collision --nx 37 --nz 19 --sim-time 300 --quiet > odd.out &&
    small "$(rel mass odd.out)" 1e-13
'

test_expect_success 'results do not depend on the number of threads (bitwise)' '
    OMP_NUM_THREADS=1 $CLIMATE --case thermal --nx 40 --nz 20 --sim-time 100 --quiet --dump t1.bin &&
    OMP_NUM_THREADS=2 $CLIMATE --case thermal --nx 40 --nz 20 --sim-time 100 --quiet --dump t2.bin &&
    cmp t1.bin t2.bin
'

test_expect_success 'the thermal bubble rises (centre of the warm anomaly goes up)' '
    $CLIMATE --case thermal --nx 40 --nz 20 --sim-time 10 --quiet --dump a.bin &&
    $CLIMATE --case thermal --nx 40 --nz 20 --sim-time 400 --quiet --dump b.bin &&
    python3 - <<PY
import array
def wz(path, nx=40, nz=20):
    a = array.array("d"); a.frombytes(open(path, "rb").read())
    P = nx * nz
    w = a[2 * P:3 * P]
    # rho w summed over the bubble column region is upward
    return sum(w[k * nx + i] for k in range(nz) for i in range(15, 25))
assert wz("b.bin") > 10 * abs(wz("a.bin")) > 0, (wz("a.bin"), wz("b.bin"))
PY
'

test_done
