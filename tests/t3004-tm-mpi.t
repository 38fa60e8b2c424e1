#!/bin/bash
# MPI with no flags: inside a job on hosts of their own (network
# namespaces), `mpirun ./prog` starts one rank per PBS_NODEFILE line on the
# right hosts, its daemons through pbs_tmrsh and the workers (no ssh),
# point-to-point through UCX over TCP.
. "$(dirname "$0")/lib.sh"

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
    skip_all "no Open MPI (mpirun, mpicc) here" "MPI across hosts"
fi
hosts_require
cluster_start 2 --cpus-per-worker 2 --hosts

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

cat > hello.sh <<'S'
#!/bin/bash
env | grep -E "^OMPI_MCA_(plm_rsh_agent|orte_default_hostfile|pml)=" | sort
timeout 120 mpirun ./hello | sort
echo "rc=${PIPESTATUS[0]}"
S

test_expect_success 'mpirun ./hello (no flags): 4 ranks, 2 on each host, UCX' '
    mpicc -o hello hello.c &&
    id=$(qsub -v $asroot -l select=2:ncpus=2:mpiprocs=2,place=scatter -o h.out -j oe hello.sh) &&
    wait_state $id F 150 && cat h.out &&
    grep -qx "rc=0" h.out && grep -q "^OMPI_MCA_plm_rsh_agent=.*pbs_tmrsh$" h.out &&
    grep -qx "OMPI_MCA_pml=ucx" h.out &&
    test "$(grep -c "^rank [0-3] of 4 on node1 sum 6$" h.out)" -eq 2 &&
    test "$(grep -c "^rank [0-3] of 4 on node2 sum 6$" h.out)" -eq 2 &&
    ! pgrep -f "orted.*$CLUSTER/"
'

# hpcq-md and hpcq-climate across 2 and 4 hosts, from their jobscripts
# unmodified: t3012-mpi-jobscripts.

test_done
