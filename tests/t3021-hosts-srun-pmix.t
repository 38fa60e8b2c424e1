#!/bin/bash
# srun -n 4 --mpi=pmix across hosts of their own (network namespaces):
# one hpcq-stepd per host runs that host's ranks under its PMIx server,
# and srun carries the fence data (the modex: each rank's UCX address)
# between the hosts over the task manager's authenticated links; the MPI
# job gets the same result as through mpirun on the PBS path (t3004) and
# on the Slurm path (t3020).  Ranks killed with the job on every host.
. "$(dirname "$0")/lib.sh"

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
    skip_all "no Open MPI (mpirun, mpicc) here" "srun --mpi=pmix across hosts"
fi
if [ ! -x "$HPCQ_BUILDDIR/worker/hpcq-stepd" ]; then
    skip_all "hpcq built without PMIx (libpmix-dev)" "srun --mpi=pmix across hosts"
fi
hosts_require
cluster_start 2 --cpus-per-worker 2 --hosts

asroot=OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cat > srun.sh <<'S'
#!/bin/bash
#SBATCH -N 2 --ntasks-per-node=2
timeout 120 srun -n 4 ./hello | sed "s/ procid .*//" | sort > "$OUT"
echo "rc=${PIPESTATUS[0]}" >> "$OUT"
timeout 120 mpirun ./hello | sed "s/ procid .*//" | sort > mpirun.res
echo "rc=${PIPESTATUS[0]}" >> mpirun.res
timeout 60 srun --mpi=pmix -l -m cyclic ./hello | sort > cyclic.res
timeout 60 srun --mpi=pmix ./hello 3 > abort.res 2>&1
echo "rc=$?" >> abort.res
S

# SLURM_MPI_TYPE=pmix in the job's environment (a site's MpiDefault=pmix):
# a plain `srun -n 4 ./mpi_prog`, and mpirun (whose orted step goes
# through hpcq-stepd too) beside it.
test_expect_success 'sbatch + srun -n 4 (SLURM_MPI_TYPE=pmix): 4 ranks, 2 on each host' '
    mpicc -o hello "$HPCQ_SRCDIR/tests/data/mpi-hello-abort.c" &&
    n=$(sbatch --parsable --export=ALL,OUT=$WORK/srun.res,SLURM_MPI_TYPE=pmix,$asroot srun.sh) &&
    wait_state $n F 180 && cat slurm-$n.out srun.res &&
    grep -qx "rc=0" srun.res &&
    test "$(grep -c "^rank [0-3] of 4 on node1 sum 6$" srun.res)" -eq 2 &&
    test "$(grep -c "^rank [0-3] of 4 on node2 sum 6$" srun.res)" -eq 2
'

test_expect_success '-m cyclic: ranks round the hosts, each with its label' '
    cat cyclic.res &&
    test "$(cat cyclic.res)" = "$(printf "0: rank 0 of 4 on node1 sum 6 procid 0\n1: rank 1 of 4 on node2 sum 6 procid 1\n2: rank 2 of 4 on node1 sum 6 procid 2\n3: rank 3 of 4 on node2 sum 6 procid 3")"
'

test_expect_success 'MPI_Abort on node2 ends the ranks on both hosts; srun exits 7' '
    cat abort.res && grep -qx "rc=7" abort.res && grep -q "node2: MPI_Abort with status 7" abort.res &&
    ! pgrep -f "$WORK/hello" >/dev/null
'

test_expect_success 'mpirun in the same job (SLURM_MPI_TYPE=pmix) gives the same result' '
    cat mpirun.res && test "$(cat mpirun.res)" = "$(cat srun.res)"
'

test_expect_success 'the same program through mpirun on the PBS path gives the same result' '
    printf "#!/bin/bash\ntimeout 120 mpirun ./hello | sed \"s/ procid .*//\" | sort > \"\$OUT\"\necho \"rc=\${PIPESTATUS[0]}\" >> \"\$OUT\"\n" > pbs.sh &&
    id=$(qsub -v OUT=$WORK/pbs.res,$asroot -l select=2:ncpus=2:mpiprocs=2,place=scatter -o p.out -j oe pbs.sh) &&
    wait_state $id F 150 && cat p.out pbs.res &&
    test "$(cat pbs.res)" = "$(cat srun.res)"
'

test_expect_success 'scancel of a pmix step leaves no rank or stepd on any host' '
    cat > spin.sh <<-S &&
	#!/bin/bash
	#SBATCH -N 2 --ntasks-per-node=1
	srun --mpi=pmix sleep 994
	S
    n=$(sbatch --parsable spin.sh) &&
    wait_until 60 sh -c "test \$(pgrep -x -fc \"sleep 994\") -ge 2" &&
    scancel $n && wait_state $n F 30 &&
    wait_until 15 sh -c "! pgrep -x -f \"sleep 994\" >/dev/null && ! pgrep -x hpcq-stepd >/dev/null"
'

test_done
