#!/bin/bash
# hpcq-md under MPI: 1, 2 and 4 ranks agree to 1e-10 at step 100;
# checkpoints with per-rank parts restart bitwise on the same rank count
# and to 1e-10 on another.

. "$(dirname "$0")/lib.sh"
MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
export OMP_NUM_THREADS=1
unset HPCQ_CHECKPOINT_DIR HPCQ_CHECKPOINT_INTERVAL
# Open MPI as root needs these; shared memory and TCP on loopback only
# (Open MPI 4.1's UCX layer also needs pml_ucx_tls/devices=any to accept
# them rather than insist on InfiniBand).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_pml=ob1 OMPI_MCA_rmaps_base_oversubscribe=1
export UCX_TLS=sm,self,tcp UCX_NET_DEVICES=lo

mpi() { local n=$1; shift; timeout 120 mpirun -np $n --oversubscribe "$@"; }

if ! command -v mpirun >/dev/null || ! ldd "$MD" | grep -q libmpi; then
    test_skip 'MPI runs' 'hpcq-md built without MPI or no mpirun'
    test_done
fi

RUN="$MD --cpu --cells 6x6x6 --thermo 50 --thermo-digits 17 --neigh-every 10"

test_expect_success '1 rank' 'mpi 1 $RUN --steps 100 >r1.out 2>&1 && cat r1.out'
test_expect_success '2 ranks agree with 1 to 1e-10 at step 100' '
    mpi 2 $RUN --steps 100 >r2.out 2>&1 && md_same_thermo 100 r2.out r1.out
'
test_expect_success '4 ranks agree with 1 to 1e-10 at step 100' '
    mpi 4 $RUN --steps 100 >r4.out 2>&1 && md_same_thermo 100 r4.out r1.out
'
test_expect_success 'the UCX point-to-point layer works too' '
    if ompi_info 2>/dev/null | grep -q "MCA pml: ucx"; then
        OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any \
            mpi 2 $RUN --steps 100 >ru.out 2>&1 && md_same_thermo 100 ru.out r1.out
    else echo "no pml ucx here"; fi
'
test_expect_success '2 ranks: 60 steps + restart + 40 is bitwise the straight run' '
    mpi 2 $RUN --steps 100 --dump-state s2.state >s2.out 2>&1 &&
    mpi 2 $RUN --steps 60 --checkpoint-dir ck --checkpoint-every 25 >/dev/null 2>&1 &&
    ls ck && test -f ck/md-00000003.r00001.part && grep -a -q "^step 60$" ck/md-00000003.ckpt &&
    mpi 2 $RUN --steps 100 --checkpoint-dir ck --restart --dump-state rs2.state >rs2.out 2>&1 &&
    test "$(grep "^ *100 " rs2.out)" = "$(grep "^ *100 " s2.out)" &&
    cmp s2.state rs2.state
'
test_expect_success 'restart of a 2-rank checkpoint on 1 and 4 ranks agrees to 1e-10' '
    mpi 1 $RUN --steps 100 --checkpoint-dir ck --restart >rs1.out 2>&1 &&
    grep "written by 2 ranks" rs1.out && md_same_thermo 100 rs1.out s2.out &&
    mpi 4 $RUN --steps 100 --checkpoint-dir ck --restart >rs4.out 2>&1 &&
    md_same_thermo 100 rs4.out s2.out
'
test_expect_success 'a LAMMPS data file on 2 and 4 ranks: each rank keeps its atoms, same run' '
    $MD --cpu --cells 6x6x6 --steps 30 --thermo 0 --write-data d.data >/dev/null &&
    mpi 1 $RUN --data d.data --steps 100 --dump d1.dump --dump-every 100 >d1.out 2>&1 &&
    mpi 2 $RUN --data d.data --steps 100 >d2.out 2>&1 && md_same_thermo 100 d2.out d1.out &&
    mpi 4 $RUN --data d.data --steps 100 --dump d4.dump --dump-every 100 \
        --write-data d4.data >d4.out 2>&1 && md_same_thermo 100 d4.out d1.out &&
    test $(grep -c "^ITEM: TIMESTEP" d4.dump) = 2 &&
    test $(awk "/^Atoms/ { a = 1; next } /^Velocities/ { a = 0 } a && NF == 8" d4.data | wc -l) = 864
'
test_expect_success 'a box too small for the ranks: one error line, exit 2' '
    set +e; mpi 4 $MD --cpu --cells 3x3x3 --cutoff 2.4 --steps 1 >x.out 2>x.err; rc=$?; set -e
    cat x.err; test $rc = 2 && grep -q "too small to split over 4 ranks" x.err
'

test_done
