#!/bin/bash
# hpcq-md's GPU selection: with no usable GPU the default run says so and
# uses the CPU, --gpu fails with one line, --cpu never looks.  Where a GPU
# is present, the GPU run must agree with the CPU run (tests/gpu/md.sh
# does the full check and timing).

. "$(dirname "$0")/lib.sh"
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
export OMP_NUM_THREADS=1
unset HPCQ_CHECKPOINT_DIR HPCQ_CHECKPOINT_INTERVAL
col() { awk -v s="$1" -v c="$2" '$1 == s && NF == 5 { print $c }' "$3"; }
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= t * m) }'; }
ARGS="--cells 5x5x5 --steps 100 --thermo 100 --thermo-digits 16"

have_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }

test_expect_success '--cpu runs on the CPU silently' '
    $MD --cpu $ARGS >cpu.out 2>cpu.err && ! test -s cpu.err &&
    grep -q "procs (1 threads each, cpu)" cpu.out
'

if have_gpu; then
    test_expect_success 'the GPU run agrees with the CPU run to 1e-8' '
        $MD --gpu $ARGS >gpu.out 2>&1 && grep -q ", cuda)" gpu.out &&
        for c in 3 5; do close_to $(col 0 $c gpu.out) $(col 0 $c cpu.out) 1e-12 || exit 1; done &&
        for c in 2 3 4 5; do close_to $(col 100 $c gpu.out) $(col 100 $c cpu.out) 1e-8 || exit 1; done
    '
else
    test_expect_success 'no GPU: the default run says so and uses the CPU' '
        $MD $ARGS >auto.out 2>auto.err && cat auto.err &&
        grep -q "procs (1 threads each, cpu)" auto.out &&
        { ! test -s auto.err || grep -q "no usable GPU.*using the CPU" auto.err; } &&
        test "$(col 100 4 auto.out)" = "$(col 100 4 cpu.out)"
    '
    test_expect_success 'no GPU: --gpu fails with one line, exit 1' '
        set +e; $MD --gpu $ARGS >g.out 2>g.err; rc=$?; set -e
        cat g.err; test $rc = 1 && test $(wc -l <g.err) = 1 &&
        grep -q "^hpcq-md: --gpu: no usable GPU" g.err
    '
fi

test_done
