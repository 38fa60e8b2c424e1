#!/bin/bash
# jobscripts/md-mpi.pbs and jobscripts/climate-mpi.pbs, submitted as they
# are (their mpirun lines have no hostfile, -np or launcher flags), run on
# 1, 2 and 4 hosts of their own (network namespaces, UCX over TCP): hpcq-md
# agrees with the 1-host run to 1e-10 and hpcq-climate's NetCDF output is
# bitwise the same.  Only qsub's -l (a select this 2-core machine can
# hold) and -v (a small problem: CELLS, STEPS; NX, NZ, SIM_TIME) differ.
. "$(dirname "$0")/lib.sh"

MD=$HPCQ_BUILDDIR/apps/md/hpcq-md
CLIMATE=$HPCQ_BUILDDIR/apps/climate/hpcq-climate
if ! command -v mpirun >/dev/null; then
    skip_all "no Open MPI (mpirun) here" "md-mpi.pbs on 1, 2 and 4 hosts" \
        "climate-mpi.pbs on 1, 2 and 4 hosts"
fi
hosts_require
cluster_start 4 --cpus-per-worker 2 --hosts

# Root's jobs need Open MPI's consent to run as root.
asroot=OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tl=120; built_with_asan && tl=900
hosts_of() { job_attr $1 exec_host | tr + '\n' | sed 's|/.*||' | sort -u | wc -l; }

# run NAME SCRIPT VARS [SELECT]: submit SCRIPT (unmodified) and wait; the
# job's output is NAME.out.
run() {
    local id
    id=$(qsub $(app_vars) -v "$asroot,$3" ${4:+-l select=$4} -o $1.out \
         "$HPCQ_SRCDIR/jobscripts/$2") && echo $id > $1.id &&
    wait_state $id F $tl && cat $1.out &&
    test "$(job_attr $id Exit_status)" = 0
}

if ldd "$MD" 2>/dev/null | grep -q libmpi; then
    v="MD=$MD,CELLS=6x6x6,STEPS=100"
    test_expect_success 'md-mpi.pbs on 1 host (1 rank)' '
        run md1 md-mpi.pbs $v 1:ncpus=1:mpiprocs=1:ompthreads=1 &&
        test "$(hosts_of $(cat md1.id))" = 1 && grep -q " on 1 procs (1 threads each" md1.out
    '
    test_expect_success 'md-mpi.pbs as written (4 ranks on 2 hosts) agrees to 1e-10' '
        run md2 md-mpi.pbs $v && test "$(hosts_of $(cat md2.id))" = 2 &&
        grep -q " on 4 procs (1 threads each" md2.out &&
        md_same_thermo 100 md2.out md1.out
    '
    test_expect_success 'md-mpi.pbs on 4 hosts (1 rank each) agrees to 1e-10' '
        run md4 md-mpi.pbs $v 4:ncpus=1:mpiprocs=1:ompthreads=1 &&
        test "$(hosts_of $(cat md4.id))" = 4 &&
        grep -q " on 4 procs (1 threads each" md4.out &&
        md_same_thermo 100 md4.out md1.out
    '
else
    test_skip 'md-mpi.pbs on 1, 2 and 4 hosts' 'hpcq-md built without MPI'
fi

if ldd "$CLIMATE" 2>/dev/null | grep -q libmpi; then
    v="CLIMATE=$CLIMATE,NX=64,NZ=32,SIM_TIME=60,OUT_EVERY=30"
    nc() { echo "density_current.$(cat $1.id).nc"; }
    test_expect_success 'climate-mpi.pbs on 1 host (1 rank)' '
        run cl1 climate-mpi.pbs $v 1:ncpus=1:mpiprocs=1:ompthreads=1 &&
        test -s $(nc cl1)
    '
    test_expect_success 'climate-mpi.pbs on 2 hosts (4 ranks): bitwise the same' '
        run cl2 climate-mpi.pbs $v 2:ncpus=2:mpiprocs=2:ompthreads=1 &&
        test "$(hosts_of $(cat cl2.id))" = 2 && cmp $(nc cl1) $(nc cl2)
    '
    test_expect_success 'climate-mpi.pbs on 4 hosts (4 ranks, 2 threads each): bitwise the same' '
        run cl4 climate-mpi.pbs $v 4:ncpus=2:mpiprocs=1:ompthreads=2 &&
        test "$(hosts_of $(cat cl4.id))" = 4 && cmp $(nc cl1) $(nc cl4)
    '
else
    test_skip 'climate-mpi.pbs on 1, 2 and 4 hosts' 'hpcq-climate built without MPI'
fi

test_done
