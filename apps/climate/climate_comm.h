/* climate_comm.h - the decomposition in x and everything that crosses ranks.
 *
 * Built with MPI (HPCQ_CLIMATE_MPI) it uses MPI only when a launcher started
 * the process (mpirun sets OMPI_COMM_WORLD_SIZE or PMIX_RANK); a plain run
 * is one rank and never initialises MPI.  Without MPI every function is the
 * one-rank case.  The global grid is split into contiguous column slabs;
 * halos are exchanged periodically (the last rank's right neighbour is 0).
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_COMM_H
#define HPCQ_APPS_CLIMATE_CLIMATE_COMM_H

#include <stddef.h>

struct climate_model;

struct climate_comm {
    int rank, size;
    int mpi; /* MPI was initialised by us */
};

/* Start (MPI if launched under it).  Returns 0 or -1. */
int climate_comm_init (struct climate_comm *c, int *argc, char ***argv);
void climate_comm_finalize (struct climate_comm *c);

/* Rank r's slab of nx columns: first global column and width. */
void climate_comm_slab (int size, int r, int nx, int *i0, int *nxl);

/* Fill the x halos of field q (CL_HS columns each side). */
void climate_comm_halo_x (struct climate_comm *c, struct climate_model *m, double *q);

double climate_comm_sum (struct climate_comm *c, double x);
int climate_comm_or (struct climate_comm *c, int bits);
void climate_comm_bcast (struct climate_comm *c, void *buf, size_t bytes);

/* Collect every slab's packed fields into global [v][k][i] order on rank 0
 * (global is only used there; may be NULL elsewhere), and the reverse. */
int climate_comm_gather (struct climate_comm *c, struct climate_model *m,
                         double *global);
int climate_comm_scatter (struct climate_comm *c, struct climate_model *m,
                          const double *global);

/* Leave with status code on every rank (after an error every rank saw). */
void climate_comm_exit (struct climate_comm *c, int code) __attribute__ ((noreturn));

#endif
