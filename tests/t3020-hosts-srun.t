#!/bin/bash
# srun across hosts of their own (network namespaces), through the
# workers' task manager (no ssh): tasks laid out by block and cyclic on the
# job's nodes with Slurm's per-node variables; Open MPI's mpirun with no
# flags inside an sbatch job launches its daemons through this srun (its
# Slurm launcher, plm/slurm) and gets the same result as the PBS path
# (t3004); scancel leaves no task on any host.
. "$(dirname "$0")/lib.sh"

hosts_require
cluster_start 2 --cpus-per-worker 2 --hosts

# host_of PID: the cluster host whose UTS namespace PID is in.
host_of() {
    local ns i
    ns=$(readlink /proc/$1/ns/uts) || return 1
    for i in 1 2; do
        [ "$(readlink /proc/$(cat "$CLUSTER/worker$i.pid")/ns/uts)" = "$ns" ] &&
            { echo node$i; return 0; }
    done
    return 1
}

cat > lay.sh <<'S'
#!/bin/bash
#SBATCH -N 2 --ntasks-per-node=2
srun -l hostname | sort > lay.block
srun -l -m cyclic hostname | sort > lay.cyclic
srun -l sh -c 'echo "$SLURMD_NODENAME n=$SLURM_NODEID p=$SLURM_PROCID l=$SLURM_LOCALID sn=$SLURM_STEP_NODELIST g=$SLURM_GTIDS"' | sort > lay.env
srun -N2 hostname | sort > lay.n2
srun -w node2 -n 2 hostname > lay.w
srun -N 1 -n 2 sh -c 'echo "$(hostname) $SLURM_STEP_NUM_NODES"' > lay.n1
echo "hello" | srun -n 4 sh -c 'cat; hostname' | sort > lay.stdin
S

test_expect_success 'srun in a 2-host job: 4 tasks, 2 on each host, by block' '
    n=$(sbatch --parsable lay.sh) && wait_state $n F 90 && cat slurm-$n.out &&
    test "$(job_attr $n Exit_status)" = 0 &&
    test "$(cat lay.block)" = "$(printf "0: node1\n1: node1\n2: node2\n3: node2")"
'

test_expect_success '-m cyclic: round the hosts; -N2; -w node2; -N 1' '
    test "$(cat lay.cyclic)" = "$(printf "0: node1\n1: node2\n2: node1\n3: node2")" &&
    test "$(cat lay.n2)" = "$(printf "node1\nnode2")" &&
    test "$(cat lay.w)" = "$(printf "node2\nnode2")" &&
    test "$(cat lay.n1)" = "$(printf "node1 1\nnode1 1")"
'

test_expect_success 'per-node variables on each host: SLURMD_NODENAME, SLURM_NODEID, LOCALID' '
    cat lay.env &&
    grep -qx "0: node1 n=0 p=0 l=0 sn=node\[1-2\] g=0,1" lay.env &&
    grep -qx "1: node1 n=0 p=1 l=1 sn=node\[1-2\] g=0,1" lay.env &&
    grep -qx "2: node2 n=1 p=2 l=0 sn=node\[1-2\] g=2,3" lay.env &&
    grep -qx "3: node2 n=1 p=3 l=1 sn=node\[1-2\] g=2,3" lay.env &&
    test "$(cat lay.stdin)" = "$(printf "hello\nnode1\nnode1\nnode2\nnode2")"
'

test_expect_success 'scancel of a 2-host job leaves no task on any host' '
    n=$(sbatch --parsable -N 2 --ntasks-per-node=1 --wrap="srun sleep 993") &&
    wait_until 30 sh -c "test \$(pgrep -x -fc \"sleep 993\") -ge 2" &&
    for p in $(pgrep -x -f "sleep 993"); do host_of $p; done | sort > q.hosts &&
    test "$(cat q.hosts)" = "$(printf "node1\nnode2")" &&
    scancel $n && wait_state $n F 30 &&
    wait_until 10 sh -c "! pgrep -x -f \"sleep 993\" >/dev/null"
'

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
    test_skip 'sbatch + mpirun (no flags) launches through srun' 'no Open MPI (mpirun, mpicc) here'
    test_done
fi

cat > hello.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main (int argc, char **argv)
{
    int rank, size, sum = 0;
    char host[64];
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    gethostname (host, sizeof host);
    MPI_Allreduce (&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf ("rank %d of %d on %s sum %d\n", rank, size, host, sum);
    MPI_Finalize ();
    return 0;
}
C

# Root's jobs need Open MPI's consent to run as root; nothing else is set.
asroot=OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# mpirun need not wait for its srun: when the script ends first, the orted
# step ends with the job, CANCELLED, as Slurm records a step the job's end
# killed.
cat > mpi.sh <<'S'
#!/bin/bash
#SBATCH -N 2 --ntasks-per-node=2
timeout 120 mpirun ./hello | sort > "$OUT"
echo "rc=${PIPESTATUS[0]}" >> "$OUT"
S

test_expect_success 'sbatch + mpirun (no flags): its daemons start through srun, 4 ranks' '
    mpicc -o hello hello.c &&
    n=$(sbatch --parsable --export=ALL,OUT=$WORK/slurm.res,$asroot mpi.sh) &&
    wait_state $n F 150 && cat slurm-$n.out slurm.res &&
    grep -qx "rc=0" slurm.res &&
    test "$(grep -c "^rank [0-3] of 4 on node1 sum 6$" slurm.res)" -eq 2 &&
    test "$(grep -c "^rank [0-3] of 4 on node2 sum 6$" slurm.res)" -eq 2 &&
    sacct -P -n --format=JobID,JobName,State,NNodes,AllocCPUS -j $n > mpi.sacct && cat mpi.sacct &&
    grep -Eqx "$n\.0\|orted\|(COMPLETED|CANCELLED)\|1\|1" mpi.sacct &&
    ! pgrep -f "orted.*$CLUSTER/"
'

test_expect_success 'the same program through the PBS path (pbs_tmrsh) gives the same result' '
    sed -e "/^#SBATCH/d" mpi.sh > pbs.sh &&
    id=$(qsub -v OUT=$WORK/pbs.res,$asroot -l select=2:ncpus=2:mpiprocs=2,place=scatter -o p.out -j oe pbs.sh) &&
    wait_state $id F 150 && cat pbs.res &&
    test "$(cat pbs.res)" = "$(cat slurm.res)"
'

test_done
