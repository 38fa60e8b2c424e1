#!/bin/bash
# hpcq-climate over MPI: the x decomposition with halo exchange gives the
# same answer on 1, 2 and 4 ranks (bitwise: every cell's arithmetic is the
# same whatever the slab boundaries), restarts across rank counts, and a
# grid too small for the rank count is bad input.  Uses the UCX PML when it
# can be selected here, else Open MPI's default.
. "$(dirname "$0")/lib.sh"
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_btl_base_warn_component_unused=0

if ! command -v mpirun > /dev/null || ! ldd "$CLIMATE" | grep -q libmpi; then
    test_skip 'MPI runs' 'mpirun missing or hpcq-climate built without MPI'
    test_done
fi
MPIRUN="mpirun --oversubscribe -x OMP_NUM_THREADS"
if $MPIRUN --mca pml ucx -np 2 $CLIMATE --nx 8 --nz 4 --sim-time 1 --quiet > /dev/null 2>&1; then
    MPIRUN="$MPIRUN --mca pml ucx"; say "using the UCX PML"
else
    say "the UCX PML cannot be selected here; using Open MPI's default"
fi

for c in thermal injection; do
    test_expect_success "$c: 1, 2 and 4 ranks agree bitwise" "
        $CLIMATE --case $c --nx 42 --nz 12 --sim-time 60 --quiet --dump $c.1 > $c.o1 &&
        $MPIRUN -np 2 $CLIMATE --case $c --nx 42 --nz 12 --sim-time 60 --quiet --dump $c.2 > $c.o2 &&
        $MPIRUN -np 4 $CLIMATE --case $c --nx 42 --nz 12 --sim-time 60 --quiet --dump $c.4 > $c.o4 &&
        cmp $c.1 $c.2 && cmp $c.1 $c.4 &&
        m=\$(sed -n 's/^mass:.*relative change //p' $c.o4) &&
        awk -v x=\"\$m\" 'BEGIN { x = (x < 0) ? -x : x; exit !(x <= 1e-13) }'
    "
done

test_expect_success 'checkpoint on 4 ranks, restart on 2 and on 2 again: same as serial' '
    mkdir ck &&
    $MPIRUN -np 4 $CLIMATE --case collision --nx 42 --nz 12 --sim-time 60 \
        --checkpoint-dir ck --stop-after 20 > s4.out; test $? -eq 143 &&
    $MPIRUN -np 2 $CLIMATE --case collision --nx 42 --nz 12 --sim-time 60 \
        --checkpoint-dir ck --restart --dump r2.bin > r2.out &&
    grep -q "restarted from .* at step 20" r2.out &&
    $CLIMATE --case collision --nx 42 --nz 12 --sim-time 60 --quiet --dump ser.bin > /dev/null &&
    cmp ser.bin r2.bin
'

test_expect_success 'grid too small for 4 ranks: one line, exit 2' '
    $MPIRUN -np 4 $CLIMATE --nx 6 --nz 8 > small.out 2> small.err; rc=$?;
    cat small.err; test $rc -eq 2 &&
    test $(grep -c "^hpcq-climate: grid too small for 4 ranks" small.err) -eq 1
'

test_done
