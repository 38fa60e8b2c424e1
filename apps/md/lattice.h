/* lattice.h - initial state: fcc atoms and random velocities.
 *
 * Atom ids follow the lattice (cell by cell, four basis atoms each), and
 * each atom's velocity comes from a counter-based generator keyed by the
 * seed and the id, so the initial state does not depend on how many ranks
 * share the box.  As LAMMPS's "velocity create", components are uniform,
 * total momentum is removed and the result is scaled to exactly T with
 * 3N-3 degrees of freedom.
 */
#ifndef HPCQ_APPS_MD_LATTICE_H
#define HPCQ_APPS_MD_LATTICE_H

#include <stdint.h>

#include "apps/md/atoms.h"
#include "apps/md/domain.h"
#include "apps/md/params.h"

/* Create the atoms of my brick.  Returns 0 or -1 (ENOMEM). */
int lattice_create (const struct md_params *p, const struct md_domain *dom,
                    struct md_atoms *a);

/* Velocities for temperature p->temp over natoms atoms on all ranks. */
void lattice_velocities (const struct md_params *p, struct md_atoms *a, long natoms);

/* A uniform number in [0, 1) that depends only on its arguments. */
double lattice_uniform (uint64_t seed, uint64_t id, uint64_t stream);

#endif
