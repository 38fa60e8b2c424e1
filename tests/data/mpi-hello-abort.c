/* An MPI program for srun's tests (t1117, t3021): each rank's place, the
 * sum of the ranks (so all of MPI_COMM_WORLD took part), and MPI_Abort(7)
 * in the rank given as its argument. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
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
    if (argc > 1 && rank == atoi (argv[1]))
        MPI_Abort (MPI_COMM_WORLD, 7);
    printf ("rank %d of %d on %s sum %d procid %s\n", rank, size, host, sum,
            getenv ("SLURM_PROCID"));
    MPI_Finalize ();
    return 0;
}
