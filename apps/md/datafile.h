/* datafile.h - LAMMPS data files (read_data's input, write_data's output)
 * for atom_style atomic: an orthogonal periodic box, atom types with their
 * Masses and Pair Coeffs (or PairIJ Coeffs) for lj/cut, Atoms (id type x y
 * z, with or without image flags) and Velocities.
 *
 * What hpcq-md cannot simulate is refused with one line naming it: other
 * atom styles (a style comment after "Atoms", or the wrong number of
 * columns), triclinic boxes ("xy xz yz"), bonds and other topology, more
 * than one atom type without pair coefficients, per-pair cutoffs, atom ids
 * other than 1..N.  Atoms outside the box are brought into it, their image
 * flags counting the box lengths, as read_data does.
 *
 * Every MPI rank reads the file itself and keeps the atoms of its brick.
 */
#ifndef HPCQ_APPS_MD_DATAFILE_H
#define HPCQ_APPS_MD_DATAFILE_H

#include "apps/md/atoms.h"
#include "apps/md/domain.h"
#include "apps/md/system.h"
#include "common/error.h"

struct md_sim;

/* The box, counts, masses and pair coefficients of data file path, into
 * sys (which the caller releases with system_release, also on failure);
 * cutoff: the run's, which a per-pair cutoff in the file must equal.
 * Returns 0 or -1 with err filled. */
int datafile_read_system (const char *path, double cutoff, struct md_system *sys,
                          struct hpcq_error *err);

/* The atoms of path that lie in this rank's brick of dom, appended to a
 * (velocities zero where the file has none; forces zero).  sys is what
 * datafile_read_system gave.  Returns 0 or -1 with err filled. */
int datafile_read_atoms (const char *path, const struct md_system *sys,
                         const struct md_domain *dom, struct md_atoms *a,
                         struct hpcq_error *err);

/* Write s's current state to path (on rank 0) as a data file LAMMPS's
 * read_data accepts, every number exact (17 significant digits).
 * Collective.  Returns 0 or -1 with err filled. */
int datafile_write (struct md_sim *s, const char *path, struct hpcq_error *err);

#endif
