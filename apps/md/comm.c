/* comm.c - see comm.h.  The only file of hpcq-md that includes mpi.h. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps/md/comm.h"

#ifdef MD_HAVE_MPI
#include <mpi.h>

void comm_init (int *argc, char ***argv)
{
    MPI_Init (argc, argv);
}

void comm_finalize (void)
{
    MPI_Finalize ();
}

void comm_abort (int code)
{
    if (comm_size () > 1)
        MPI_Abort (MPI_COMM_WORLD, code);
    MPI_Finalize ();
    exit (code);
}

int comm_rank (void)
{
    int r;
    MPI_Comm_rank (MPI_COMM_WORLD, &r);
    return r;
}

int comm_size (void)
{
    int n;
    MPI_Comm_size (MPI_COMM_WORLD, &n);
    return n;
}

void comm_barrier (void)
{
    MPI_Barrier (MPI_COMM_WORLD);
}

void comm_sum (double *v, int n)
{
    MPI_Allreduce (MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

void comm_sum_long (long *v, int n)
{
    MPI_Allreduce (MPI_IN_PLACE, v, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

void comm_max_int (int *v, int n)
{
    MPI_Allreduce (MPI_IN_PLACE, v, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

void comm_min_int (int *v, int n)
{
    MPI_Allreduce (MPI_IN_PLACE, v, n, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
}

void comm_bcast (void *buf, size_t len, int root)
{
    MPI_Bcast (buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD);
}

size_t comm_sendrecv (const void *sendbuf, size_t sendlen, int dst, void *recvbuf,
                      size_t recvcap, int src)
{
    MPI_Status st;
    int got;
    if (dst == comm_rank () && src == dst) {
        memcpy (recvbuf, sendbuf, sendlen);
        return sendlen;
    }
    MPI_Sendrecv (sendbuf, (int)sendlen, MPI_BYTE, dst, 0, recvbuf, (int)recvcap,
                  MPI_BYTE, src, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count (&st, MPI_BYTE, &got);
    return (size_t)got;
}

long comm_sendrecv_count (long n, int dst, int src)
{
    long got = 0;
    if (dst == comm_rank () && src == dst)
        return n;
    MPI_Sendrecv (&n, 1, MPI_LONG, dst, 1, &got, 1, MPI_LONG, src, 1, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    return got;
}

double comm_wtime (void)
{
    return MPI_Wtime ();
}

#else /* one rank */

void comm_init (int *argc, char ***argv)
{
}
void comm_finalize (void)
{
}
void comm_abort (int code)
{
    exit (code);
}
int comm_rank (void)
{
    return 0;
}
int comm_size (void)
{
    return 1;
}
void comm_barrier (void)
{
}
void comm_sum (double *v, int n)
{
}
void comm_sum_long (long *v, int n)
{
}
void comm_max_int (int *v, int n)
{
}
void comm_min_int (int *v, int n)
{
}
void comm_bcast (void *buf, size_t len, int root)
{
}

size_t comm_sendrecv (const void *sendbuf, size_t sendlen, int dst, void *recvbuf,
                      size_t recvcap, int src)
{
    memcpy (recvbuf, sendbuf, sendlen);
    return sendlen;
}

long comm_sendrecv_count (long n, int dst, int src)
{
    return n;
}

double comm_wtime (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

#endif
