/* climate_comm.c - see climate_comm.h */
#include <stdlib.h>
#include <string.h>
#ifdef HPCQ_CLIMATE_MPI
#include <mpi.h>
#endif

#include "apps/climate/climate_comm.h"
#include "apps/climate/climate_model.h"

static int launched_by_mpi (void)
{
    return getenv ("OMPI_COMM_WORLD_SIZE") || getenv ("PMIX_RANK")
           || getenv ("PMI_RANK");
}

int climate_comm_init (struct climate_comm *c, int *argc, char ***argv)
{
    memset (c, 0, sizeof (*c));
    c->size = 1;
#ifdef HPCQ_CLIMATE_MPI
    if (launched_by_mpi ()) {
        if (MPI_Init (argc, argv) != MPI_SUCCESS)
            return -1;
        c->mpi = 1;
        MPI_Comm_rank (MPI_COMM_WORLD, &c->rank);
        MPI_Comm_size (MPI_COMM_WORLD, &c->size);
    }
#else
    (void)launched_by_mpi;
#endif
    return 0;
}

void climate_comm_finalize (struct climate_comm *c)
{
#ifdef HPCQ_CLIMATE_MPI
    if (c->mpi)
        MPI_Finalize ();
    c->mpi = 0;
#endif
}

void climate_comm_exit (struct climate_comm *c, int code)
{
    climate_comm_finalize (c);
    exit (code);
}

void climate_comm_slab (int size, int r, int nx, int *i0, int *nxl)
{
    int base = nx / size, extra = nx % size;

    *nxl = base + (r < extra ? 1 : 0);
    *i0 = r * base + (r < extra ? r : extra);
}

void climate_comm_halo_x (struct climate_comm *c, struct climate_model *m, double *q)
{
    size_t n = m->nhalo;
    double *send_lo = m->halo_buf, *send_hi = send_lo + n;

    m->be->pack_x (m, q, send_lo, send_hi);
    if (c->size == 1) {
        /* periodic onto itself: my right columns are my left halo */
        m->be->unpack_x (m, q, send_hi, send_lo);
        return;
    }
#ifdef HPCQ_CLIMATE_MPI
    double *recv_lo = send_hi + n, *recv_hi = recv_lo + n;
    int left = (c->rank + c->size - 1) % c->size;
    int right = (c->rank + 1) % c->size;

    m->be->sync ();
    MPI_Sendrecv (send_lo, (int)n, MPI_DOUBLE, left, 1, recv_hi, (int)n, MPI_DOUBLE,
                  right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv (send_hi, (int)n, MPI_DOUBLE, right, 2, recv_lo, (int)n, MPI_DOUBLE,
                  left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    m->be->unpack_x (m, q, recv_lo, recv_hi);
#endif
}

double climate_comm_sum (struct climate_comm *c, double x)
{
#ifdef HPCQ_CLIMATE_MPI
    if (c->mpi) {
        double s;
        MPI_Allreduce (&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        return s;
    }
#endif
    return x;
}

int climate_comm_or (struct climate_comm *c, int bits)
{
#ifdef HPCQ_CLIMATE_MPI
    if (c->mpi) {
        int r;
        MPI_Allreduce (&bits, &r, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
        return r;
    }
#endif
    return bits;
}

void climate_comm_bcast (struct climate_comm *c, void *buf, size_t bytes)
{
#ifdef HPCQ_CLIMATE_MPI
    if (c->mpi)
        MPI_Bcast (buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
#endif
}

#ifdef HPCQ_CLIMATE_MPI
/* Copy one slab's packed [v][k][il] block into the global [v][k][i] array,
 * or back (dir < 0). */
static void place (double *global, double *slab, int nx, int nz, int i0, int nxl,
                   int dir)
{
    for (int v = 0; v < CL_NV; v++)
        for (int k = 0; k < nz; k++) {
            double *g = global + ((size_t)v * nz + k) * nx + i0;
            double *s = slab + ((size_t)v * nz + k) * nxl;
            if (dir > 0)
                memcpy (g, s, nxl * sizeof (double));
            else
                memcpy (s, g, nxl * sizeof (double));
        }
}
#endif

int climate_comm_gather (struct climate_comm *c, struct climate_model *m,
                         double *global)
{
    size_t mine = (size_t)CL_NV * m->nz * m->nxl;
    double *slab = malloc (mine * sizeof (double));

    if (!slab)
        return -1;
    climate_model_pack (m, slab);
    if (c->size == 1) {
        memcpy (global, slab, mine * sizeof (double));
        free (slab);
        return 0;
    }
#ifdef HPCQ_CLIMATE_MPI
    if (c->rank == 0) {
        place (global, slab, m->nx, m->nz, m->i0, m->nxl, 1);
        for (int r = 1; r < c->size; r++) {
            int i0, nxl;
            climate_comm_slab (c->size, r, m->nx, &i0, &nxl);
            size_t n = (size_t)CL_NV * m->nz * nxl;
            double *buf = malloc (n * sizeof (double));
            if (!buf) {
                free (slab);
                return -1;
            }
            MPI_Recv (buf, (int)n, MPI_DOUBLE, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            place (global, buf, m->nx, m->nz, i0, nxl, 1);
            free (buf);
        }
    } else
        MPI_Send (slab, (int)mine, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
#endif
    free (slab);
    return 0;
}

int climate_comm_scatter (struct climate_comm *c, struct climate_model *m,
                          const double *global)
{
    size_t mine = (size_t)CL_NV * m->nz * m->nxl;
    double *slab = malloc (mine * sizeof (double));

    if (!slab)
        return -1;
    if (c->size == 1)
        memcpy (slab, global, mine * sizeof (double));
#ifdef HPCQ_CLIMATE_MPI
    else if (c->rank == 0) {
        place ((double *)global, slab, m->nx, m->nz, m->i0, m->nxl, -1);
        for (int r = 1; r < c->size; r++) {
            int i0, nxl;
            climate_comm_slab (c->size, r, m->nx, &i0, &nxl);
            size_t n = (size_t)CL_NV * m->nz * nxl;
            double *buf = malloc (n * sizeof (double));
            if (!buf) {
                free (slab);
                return -1;
            }
            place ((double *)global, buf, m->nx, m->nz, i0, nxl, -1);
            MPI_Send (buf, (int)n, MPI_DOUBLE, r, 4, MPI_COMM_WORLD);
            free (buf);
        }
    } else
        MPI_Recv (slab, (int)mine, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#endif
    climate_model_unpack (m, slab);
    free (slab);
    return 0;
}
