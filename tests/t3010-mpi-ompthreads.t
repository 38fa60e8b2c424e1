#!/bin/bash
# mpiprocs and ompthreads decide the ranks per host and OMP_NUM_THREADS,
# as in PBS Pro (pbs_resources(7B)): PBS_NODEFILE has mpiprocs lines per
# chunk, and NCPUS and OMP_NUM_THREADS are the first chunk's ompthreads
# (by default its ncpus) in the job and in what pbsdsh, pbs_tmrsh and
# mpirun start on the other hosts (network namespaces).
. "$(dirname "$0")/lib.sh"

test_expect_success 'a bad ompthreads is refused with one line' '
    for v in 0 -1 two ""; do
        ! echo true | qsub -l select=1:ncpus=1:ompthreads=$v > out 2> err &&
        test ! -s out && test "$(wc -l < err)" -eq 1 &&
        grep -q "invalid ompthreads" err || exit 1
    done
'

hosts_require
cluster_start 2 --cpus-per-worker 4 --hosts

cat > omp.sh <<'S'
#!/bin/bash
echo "job OMP_NUM_THREADS=$OMP_NUM_THREADS NCPUS=$NCPUS"
cat "$PBS_NODEFILE" | sed "s/^/nodefile /"
pbsdsh -- sh -c 'echo "dsh $(hostname) OMP_NUM_THREADS=$OMP_NUM_THREADS NCPUS=$NCPUS"'
pbs_tmrsh node2 'echo "tmrsh $(hostname) OMP_NUM_THREADS=$OMP_NUM_THREADS"'
if command -v mpirun >/dev/null; then
    timeout 120 mpirun sh -c 'echo "mpi $(hostname) OMP_NUM_THREADS=$OMP_NUM_THREADS"'
fi
S
asroot=OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

test_expect_success 'select=2:ncpus=4:mpiprocs=2:ompthreads=2: 2 nodefile lines per host, OMP_NUM_THREADS=2' '
    id=$(qsub -v $asroot -l select=2:ncpus=4:mpiprocs=2:ompthreads=2,place=scatter \
         -o o.out -j oe omp.sh) &&
    wait_state $id F 150 && cat o.out &&
    test "$(job_attr $id Exit_status)" = 0 &&
    test "$(job_attr $id Resource_List.select)" = 2:ncpus=4:mpiprocs=2:ompthreads=2 &&
    grep -qx "job OMP_NUM_THREADS=2 NCPUS=2" o.out &&
    test "$(grep "^nodefile " o.out)" = "$(printf "nodefile node1\nnodefile node1\nnodefile node2\nnodefile node2")"
'

test_expect_success '... and in what pbsdsh and pbs_tmrsh start on either host' '
    test "$(grep "^dsh " o.out | sort)" = "$(printf "dsh node1 OMP_NUM_THREADS=2 NCPUS=2\ndsh node1 OMP_NUM_THREADS=2 NCPUS=2\ndsh node2 OMP_NUM_THREADS=2 NCPUS=2\ndsh node2 OMP_NUM_THREADS=2 NCPUS=2")" &&
    grep -qx "tmrsh node2 OMP_NUM_THREADS=2" o.out
'

if command -v mpirun >/dev/null; then
    test_expect_success '... and in the ranks mpirun starts (no flags): 2 per host' '
        test "$(grep "^mpi " o.out | sort | uniq -c | awk "{print \$1, \$3, \$4}")" = "$(printf "2 node1 OMP_NUM_THREADS=2\n2 node2 OMP_NUM_THREADS=2")"
    '
else
    test_skip '... and in the ranks mpirun starts' 'no Open MPI (mpirun) here'
fi

test_expect_success 'no ompthreads: OMP_NUM_THREADS and NCPUS are the chunk'\''s ncpus' '
    printf "#!/bin/sh\necho \"OMP_NUM_THREADS=\$OMP_NUM_THREADS NCPUS=\$NCPUS\"\n" > d.sh &&
    id=$(qsub -l select=1:ncpus=3 -o d.out d.sh) && wait_state $id F 30 &&
    grep -qx "OMP_NUM_THREADS=3 NCPUS=3" d.out
'

test_done
