/* system.h - what is simulated: the periodic box, the atom types with
 * their masses and Lennard-Jones coefficients, and the number of atoms.
 *
 * It comes from the fcc lattice options (one type, mass 1, epsilon =
 * sigma = 1: LAMMPS's in.lj) or from a LAMMPS data file (datafile.h).
 * Pair coefficients follow lj/cut's rules: given per type (Pair Coeffs)
 * the unlike pairs are mixed geometrically, as LAMMPS's default
 * pair_modify mix geometric; or given for every pair (PairIJ Coeffs).
 */
#ifndef HPCQ_APPS_MD_SYSTEM_H
#define HPCQ_APPS_MD_SYSTEM_H

#include "apps/md/params.h"

struct md_system {
    double lo[3], hi[3]; /* the box [lo, hi) */
    long natoms;
    int ntypes;
    double *mass;        /* mass[t], t in 1..ntypes */
    double *eps, *sigma; /* pair (i, j) at [i * (ntypes + 1) + j] */
    int pair_ij;         /* given per pair rather than mixed */
};

/* Room for ntypes types: masses and coefficients unset (NaN).  0 or -1
 * (ENOMEM).  Release with system_release. */
int system_alloc (struct md_system *sys, int ntypes);
void system_release (struct md_system *sys);

/* The fcc lattice of p: box [0, cells * a), one type.  0 or -1 (ENOMEM). */
int system_lattice (struct md_system *sys, const struct md_params *p);

/* Coefficients of pair (i, j), i, j in 1..ntypes. */
static inline double *system_eps (const struct md_system *sys, int i, int j)
{
    return &sys->eps[i * (sys->ntypes + 1) + j];
}

static inline double *system_sigma (const struct md_system *sys, int i, int j)
{
    return &sys->sigma[i * (sys->ntypes + 1) + j];
}

/* After reading per-type coefficients: mix the unlike pairs, or (per
 * pair) make (j, i) equal (i, j).  Returns 0, or -1 with err filled when
 * a mass or a pair's coefficients are missing. */
int system_complete (struct md_system *sys, struct hpcq_error *err);

/* One type of mass 1 with epsilon = sigma = 1: what the GPU back end and
 * the lattice assume. */
int system_is_reduced_lj (const struct md_system *sys);

double system_volume (const struct md_system *sys);

#endif
