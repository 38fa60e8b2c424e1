#!/bin/bash
# hpcq-climate: --help documents the domain, constants and cases; bad input
# is one clear line on stderr and exit status 2.
. "$(dirname "$0")/lib.sh"
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate

test_expect_success '--help lists the cases, the domain and the constants' '
    $CLIMATE --help > help.out &&
    for w in thermal collision gravity_waves density_current injection \
             "x in \[0, 20000\] m periodic" "z in \[0, 10000\] m" "cp 1004" \
             "Rd 287" "p0 100000" "HPCQ_CHECKPOINT_DIR" SIGTERM; do
        grep -q -e "$w" help.out || { echo "missing: $w"; exit 1; }
    done
'

# expect_bad DESCRIPTION ARGS...: exit status 2, exactly one line on stderr,
# nothing on stdout
expect_bad() {
    local desc=$1; shift
    test_expect_success "bad input: $desc" "
        $CLIMATE $* > bad.out 2> bad.err; rc=\$?;
        cat bad.err; test \$rc -eq 2 && test \$(wc -l < bad.err) -eq 1 &&
        grep -q '^hpcq-climate: ' bad.err && ! test -s bad.out
    "
}
expect_bad 'unknown case' --case tornado
expect_bad 'unknown option' --nx 40 --frobnicate
expect_bad 'zero grid' --nx 0
expect_bad 'negative grid' --nz -5
expect_bad 'non-numeric grid' --nx 4x0
expect_bad 'grid smaller than the stencil' --nx 3
expect_bad 'zero time' --sim-time 0
expect_bad 'negative time' --sim-time -10
expect_bad 'missing value' --sim-time
expect_bad 'unwritable output path' --nx 16 --nz 8 --sim-time 1 --output /nonexistent/dir/x.nc
expect_bad '--out-every without --output' --out-every 10
expect_bad 'zero checkpoint interval' --checkpoint-every 0
expect_bad 'keeping no checkpoint' --checkpoint-keep 0
expect_bad 'a stray argument' --nx 16 extra
expect_bad 'a flag given a value' --quiet=yes

test_expect_success 'bad input: invalid HPCQ_CHECKPOINT_INTERVAL' '
    HPCQ_CHECKPOINT_INTERVAL=soon $CLIMATE --nx 16 --nz 8 --sim-time 1 2> env.err;
    test $? -eq 2 && test $(wc -l < env.err) -eq 1
'

test_expect_success 'bad input: invalid HPCQ_CHECKPOINT_KEEP' '
    HPCQ_CHECKPOINT_KEEP=0 $CLIMATE --nx 16 --nz 8 --sim-time 1 2> keep.err;
    test $? -eq 2 && test $(wc -l < keep.err) -eq 1 && grep -q HPCQ_CHECKPOINT_KEEP keep.err
'

test_expect_success 'bad input: a checkpoint of another case in the checkpoint dir' '
    mkdir -p fc && $CLIMATE --case thermal --nx 16 --nz 8 --sim-time 5 \
        --checkpoint-every 2 --checkpoint-dir fc --quiet > /dev/null &&
    $CLIMATE --case collision --nx 16 --nz 8 --sim-time 5 --restart \
        --checkpoint-dir fc > f.out 2> f.err; rc=$?;
    cat f.err; test $rc -eq 2 && test $(wc -l < f.err) -eq 1 &&
    grep -q "is for case thermal" f.err
'

test_expect_success 'bad input: a checkpoint of another grid in the checkpoint dir' '
    $CLIMATE --case thermal --nx 20 --nz 8 --sim-time 5 --restart \
        --checkpoint-dir fc > g.out 2> g.err; rc=$?;
    cat g.err; test $rc -eq 2 && test $(wc -l < g.err) -eq 1
'

test_expect_success 'options also take the --name=value form' '
    $CLIMATE --case=thermal --nx=16 --nz=8 --sim-time=2 --quiet > eq.out &&
    grep -q "^mass:" eq.out
'

test_expect_success '--gpu without a usable GPU is bad input, default falls back to the CPU' '
    if $CLIMATE --gpu --nx 16 --nz 8 --sim-time 1 --quiet > gpu.out 2> gpu.err; then
        echo "a GPU is usable here"; grep -q "^mass:" gpu.out
    else
        test $? -eq 2 && grep -q "no usable GPU" gpu.err &&
        $CLIMATE --nx 16 --nz 8 --sim-time 1 > cpu.out && grep -q "cpu back end" cpu.out
    fi
'

test_done
