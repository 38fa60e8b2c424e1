#!/bin/bash
# srun --mpi=pmix: Open MPI programs started by srun itself (direct
# launch), on one host: each node of the step runs hpcq-stepd, a PMIx
# server (libpmix, as Slurm's mpi/pmix plugin embeds in slurmstepd), that
# forks the node's ranks and exchanges their fence data through srun;
# SLURM_MPI_TYPE chooses it too; MPI_Abort ends the step with its status;
# stdin to rank 0, -o %t files, signals to every rank; --mpi=list and bad
# types as Slurm's srun says them.  Across hosts: t3021.
. "$(dirname "$0")/lib.sh"

if ! command -v mpicc >/dev/null; then
    skip_all "no Open MPI (mpicc) here" "srun --mpi=pmix"
fi
if [ ! -x "$HPCQ_BUILDDIR/worker/hpcq-stepd" ]; then
    skip_all "hpcq built without PMIx (libpmix-dev)" "srun --mpi=pmix"
fi

cluster_start 1 --cpus-per-worker 4


h=$(hostname)
asroot=OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cat > pmix.sh <<'S'
#!/bin/bash
#SBATCH -n 4
srun --mpi=pmix ./hello | sort > pmix.out
echo "rc=${PIPESTATUS[0]}" >> pmix.out
SLURM_MPI_TYPE=pmix srun -n 2 ./hello > env.out
echo "rc=$?" >> env.out
srun --mpi=pmix -l -n 2 ./hello | sort > label.out
srun --mpi=pmix -n 3 sh -c 'echo "$SLURM_PROCID $SLURM_LOCALID $PMIX_RANK $PMIX_NAMESPACE"' | sort > ids.out
printf "line1\nline2\n" | srun --mpi=pmix -n 2 sh -c 'while read l; do echo "$SLURM_PROCID got $l"; done; echo "$SLURM_PROCID eof"' | sort > stdin.out
head -c 300000 /dev/zero | srun --mpi=pmix -n 1 wc -c > big.out
srun --mpi=pmix -n 2 -o out-%t.txt sh -c 'echo "to file $SLURM_PROCID"'
srun --mpi=pmix -n 2 sh -c 'trap "echo term \$SLURM_PROCID; exit 3" TERM; echo up; sleep 30 & wait' > sig.out 2>&1 &
for i in $(seq 100); do [ "$(grep -c "^up" sig.out)" = 2 ] && break; sleep 0.2; done
kill -TERM $!; wait $!; echo "rc=$?" >> sig.out
srun --mpi=pmix_v4 -n 4 ./hello 2 > abort.out 2> abort.err
echo "rc=$?" >> abort.out
S

test_expect_success 'srun --mpi=pmix -n 4 ./hello: 4 ranks of one MPI_COMM_WORLD' '
    mpicc -o hello "$HPCQ_SRCDIR/tests/data/mpi-hello-abort.c" &&
    n=$(sbatch --parsable --export=ALL,$asroot pmix.sh) && echo $n > pmix.id && wait_state $n F 120 &&
    cat slurm-$n.out pmix.out &&
    test "$(cat pmix.out)" = "$(printf "rank 0 of 4 on $h sum 6 procid 0\nrank 1 of 4 on $h sum 6 procid 1\nrank 2 of 4 on $h sum 6 procid 2\nrank 3 of 4 on $h sum 6 procid 3\nrc=0")"
'

test_expect_success 'SLURM_MPI_TYPE=pmix chooses it; -l labels each rank' '
    cat env.out label.out &&
    test "$(grep -c "^rank [01] of 2 on $h sum 1 procid [01]$" env.out)" = 2 &&
    grep -qx "rc=0" env.out &&
    grep -qx "0: rank 0 of 2 on $h sum 1 procid 0" label.out &&
    grep -qx "1: rank 1 of 2 on $h sum 1 procid 1" label.out
'

test_expect_success 'each rank: SLURM_PROCID, SLURM_LOCALID, PMIX_RANK, the step'"'"'s namespace' '
    cat ids.out &&
    test "$(cat ids.out)" = "$(printf "0 0 0 hpcq.pmix.$(cat pmix.id).3\n1 1 1 hpcq.pmix.$(cat pmix.id).3\n2 2 2 hpcq.pmix.$(cat pmix.id).3")"
'

test_expect_success 'stdin goes to rank 0 (past the task manager'"'"'s window too); -o %t files' '
    cat stdin.out big.out &&
    test "$(cat stdin.out)" = "$(printf "0 eof\n0 got line1\n0 got line2\n1 eof")" &&
    test "$(cat big.out)" = 300000 &&
    test "$(cat out-0.txt)" = "to file 0" && test "$(cat out-1.txt)" = "to file 1"
'

test_expect_success 'SIGTERM to srun reaches every rank; srun exits with their status' '
    cat sig.out && grep -qx "term 0" sig.out && grep -qx "term 1" sig.out && grep -qx "rc=3" sig.out
'

test_expect_success 'MPI_Abort (7) in rank 2 ends every rank; srun exits 7' '
    cat abort.out abort.err &&
    grep -qx "rc=7" abort.out && grep -q "MPI_Abort with status 7" abort.err &&
    ! pgrep -f "$PWD/hello" >/dev/null && ! pgrep -x hpcq-stepd >/dev/null
'

test_expect_success '--mpi=list names none and pmix; a type we lack is one error line' '
    srun --mpi=list true > list.out && cat list.out &&
    grep -qx "	none" list.out && grep -qx "	pmix" list.out &&
    ! srun --mpi=pmi2 true 2> bad.err && cat bad.err &&
    test "$(wc -l < bad.err)" = 1 && grep -q "^srun: error: --mpi=pmi2: " bad.err &&
    ! SLURM_MPI_TYPE=cray_shasta srun true 2> env.err && cat env.err &&
    grep -q "^srun: error: SLURM_MPI_TYPE=cray_shasta: " env.err
'

test_done
