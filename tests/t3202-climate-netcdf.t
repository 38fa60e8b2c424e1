#!/bin/bash
# hpcq-climate: NetCDF snapshots follow CF conventions and ncdump reads them;
# a restarted run extends the file to exactly what an uninterrupted run wrote.
. "$(dirname "$0")/lib.sh"
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate

if ! grep -q '^#define HAVE_NETCDF 1' "$HPCQ_BUILDDIR/config.h" 2>/dev/null; then
    test_skip 'NetCDF output and hpcq-climate-plot' 'built without NetCDF'
    test_done
fi

test_expect_success 'a run with snapshots every 20 s over 100 s writes a.nc' '
    $CLIMATE --case thermal --nx 24 --nz 12 --sim-time 100 --out-every 20 \
        --output a.nc --quiet > a.out && test -s a.nc
'

# The plot helper needs only a.nc (and libpng, found by configure).
if [ -x "$HPCQ_BUILDDIR/apps/climate/hpcq-climate-plot" ]; then
    test_expect_success 'hpcq-climate-plot renders a field to PNG' '
        $HPCQ_BUILDDIR/apps/climate/hpcq-climate-plot a.nc theta_prime a.png > plot.out &&
        head -c 8 a.png | od -An -c | grep -q "P   N   G" &&
        grep -q "a.png: 24 x 12" plot.out &&
        ! $HPCQ_BUILDDIR/apps/climate/hpcq-climate-plot a.nc nosuchvar x.png 2> plot.err &&
        test $(wc -l < plot.err) -eq 1
    '
else
    test_skip 'hpcq-climate-plot renders a field to PNG' 'built without libpng'
fi

if ! command -v ncdump > /dev/null; then
    test_skip 'NetCDF contents' 'ncdump not installed'
    test_done
fi

test_expect_success 'snapshots every 20 s over 100 s: 6 records' '
    ncdump -h a.nc > a.hdr && cat a.hdr &&
    grep -q "time = UNLIMITED ; // (6 currently)" a.hdr
'

test_expect_success 'CF metadata: Conventions, axes with units, variables with units and long_name' '
    grep -q ":Conventions = \"CF-1.8\"" a.hdr &&
    grep -q "x = 24 ;" a.hdr && grep -q "z = 12 ;" a.hdr &&
    grep -q "double time(time)" a.hdr && grep -q "time:units = \"s\"" a.hdr &&
    grep -q "x:units = \"m\"" a.hdr && grep -q "z:units = \"m\"" a.hdr &&
    for v in rho u w theta theta_prime p_prime; do
        grep -q "double $v(time, z, x)" a.hdr &&
        grep -q "$v:units = " a.hdr && grep -q "$v:long_name = " a.hdr || exit 1
    done &&
    grep -q "theta:standard_name = \"air_potential_temperature\"" a.hdr
'

test_expect_success 'values: time axis and a plausible potential temperature' '
    ncdump -v time a.nc | tr -d "\n" | grep -q "time = 0, 20\..*, 100 ;" &&
    ncdump -v theta a.nc | grep -E -o "30[0-3]\.[0-9]+" | head -1 | grep -q .
'

test_expect_success 'restart extends the file: same records as an uninterrupted run' '
    mkdir ck &&
    $CLIMATE --case thermal --nx 24 --nz 12 --sim-time 100 --out-every 20 \
        --output b.nc --checkpoint-dir ck --stop-after 30 --quiet; test $? -eq 143 &&
    $CLIMATE --case thermal --nx 24 --nz 12 --sim-time 100 --out-every 20 \
        --output b.nc --checkpoint-dir ck --restart --quiet > b.out &&
    ncdump a.nc | sed 1d > a.txt && ncdump b.nc | sed 1d > b.txt &&
    diff a.txt b.txt
'

test_done
