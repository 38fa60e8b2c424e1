/* force.h - Lennard-Jones forces on the CPU (OpenMP threads).
 *
 * lj/cut as in LAMMPS: E = 4 eps ((sigma/r)^12 - (sigma/r)^6) for r < rc,
 * not shifted, with per-pair eps and sigma (system.h) and LAMMPS's
 * arithmetic: fpair = r6inv (lj1 r6inv - lj2) r2inv, E = r6inv (lj3 r6inv
 * - lj4), lj1 = 48 eps sigma^12, lj2 = 24 eps sigma^6, lj3 = 4 eps
 * sigma^12, lj4 = 4 eps sigma^6.  With more than one thread, each thread
 * adds into its own force arrays and they are summed in thread order, so
 * a run is bitwise reproducible for a given thread count.
 */
#ifndef HPCQ_APPS_MD_FORCE_H
#define HPCQ_APPS_MD_FORCE_H

#include "apps/md/atoms.h"
#include "apps/md/neigh.h"
#include "apps/md/system.h"

struct md_force {
    double cutoff;
    int ntypes;
    double *lj; /* lj1..lj4 of pair (i, j) at
                                 * [4 (i (ntypes + 1) + j) + k] */
    int nthreads;
    double *buf; /* per-thread force arrays (3 * cap each) */
    long bufcap;
};

/* Forces for the pairs of sys within cutoff.  NULL (ENOMEM) on failure. */
struct md_force *force_create (double cutoff, const struct md_system *sys);
void force_destroy (struct md_force *fc);

/* Set a->f for local and ghost atoms from this rank's half list (each
 * pair once, ghost pairs included); domain_reverse then adds the ghosts'
 * forces to their owners.  If eflag, also return this rank's pair
 * energy and virial sum(r . f) in *pe and *vir (else they are left 0).
 * Returns 0 or -1 (ENOMEM).
 */
int force_compute (struct md_force *fc, const struct md_neigh *nl, struct md_atoms *a,
                   int eflag, double *pe, double *vir);

#endif
