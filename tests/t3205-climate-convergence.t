#!/bin/bash
# hpcq-climate grid convergence on the smooth gravity_waves case: the
# differences between successive grids (coarse cell averages against the
# fine ones averaged 2 x 2) shrink at second order or better.  Spatially
# the scheme is 3rd to 4th order; the dimensional splitting (alternated
# each step) and the near-wall extrapolation limit it to about 2.
. "$(dirname "$0")/lib.sh"
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
export OMP_NUM_THREADS=2

test_expect_success 'runs on 50x25, 100x50, 200x100, 400x200 cells' '
    for n in 25 50 100 200; do
        $CLIMATE --case gravity_waves --nx $((2 * n)) --nz $n --sim-time 60 \
            --quiet --dump g$n.bin > /dev/null || exit 1
    done
'

test_expect_success 'observed order >= 1.8 for rho, rho w and rho theta' '
    python3 - <<PY
import array, math
def load(n):
    a = array.array("d"); a.frombytes(open("g%d.bin" % n, "rb").read()); return a
def field(a, nx, nz, v):
    return a[v * nx * nz:(v + 1) * nx * nz]
def restrict(g, nx, nz):
    return [0.25 * (g[2*k*nx + 2*i] + g[2*k*nx + 2*i + 1] + g[(2*k+1)*nx + 2*i]
                    + g[(2*k+1)*nx + 2*i + 1]) for k in range(nz // 2) for i in range(nx // 2)]
ns = [25, 50, 100, 200]
for v, name in ((0, "rho"), (2, "rho w"), (3, "rho theta")):
    errs = []
    for a, b in zip(ns, ns[1:]):
        ca = field(load(a), 2 * a, a, v)
        rb = restrict(field(load(b), 2 * b, b, v), 2 * b, b)
        errs.append(math.sqrt(sum((x - y) ** 2 for x, y in zip(ca, rb)) / len(ca)))
    orders = [math.log2(errs[i] / errs[i + 1]) for i in range(len(errs) - 1)]
    print("# %-9s differences %s orders %s" % (name, ["%.2e" % e for e in errs],
                                              ["%.2f" % o for o in orders]))
    assert orders[-1] >= 1.8, (name, orders)
PY
'

grep -h "differences" "$TEST_ROOT"/out.2 2>/dev/null | sed 's/^# */# /'

test_done
