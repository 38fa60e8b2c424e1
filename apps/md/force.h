/* force.h - Lennard-Jones forces on the CPU (OpenMP threads).
 *
 * lj/cut as in LAMMPS: E = 4 (r^-12 - r^-6) for r < rc, not shifted,
 * epsilon = sigma = mass = 1.  With more than one thread, each thread
 * adds into its own force arrays and they are summed in thread order, so
 * a run is bitwise reproducible for a given thread count.
 */
#ifndef HPCQ_APPS_MD_FORCE_H
#define HPCQ_APPS_MD_FORCE_H

#include "apps/md/atoms.h"
#include "apps/md/neigh.h"

struct md_force {
    double cutoff;
    int nthreads;
    double *buf;                /* per-thread force arrays (3 * cap each) */
    long bufcap;
};

struct md_force *force_create (double cutoff);
void force_destroy (struct md_force *fc);

/* Set a->f for local and ghost atoms from this rank's half list (each
 * pair once, ghost pairs included); domain_reverse then adds the ghosts'
 * forces to their owners.  If eflag, also return this rank's pair
 * energy and virial sum(r . f) in *pe and *vir (else they are left 0).
 * Returns 0 or -1 (ENOMEM).
 */
int force_compute (struct md_force *fc, const struct md_neigh *nl,
                   struct md_atoms *a, int eflag, double *pe, double *vir);

#endif
