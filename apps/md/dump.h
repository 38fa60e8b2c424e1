/* dump.h - trajectories and state files of hpcq-md, written by rank 0
 * from the atoms of every rank.
 *
 * --dump FILE: LAMMPS's text dump ("ITEM: TIMESTEP" ... "ITEM: ATOMS id
 * type x y z vx vy vz fx fy fz", atoms sorted by id, every number with 17
 * significant digits so that it reads back exactly), which OVITO and VMD
 * read and which compares line by line with LAMMPS's own dump custom.
 * --dump-xyz FILE: extended XYZ (positions wrapped into the box).  Both
 * get a frame at the start of a fresh run and every --dump-every steps;
 * a restarted run appends.  --dump-state FILE: the exact final state as
 * hex floats, for tests that compare runs bit for bit.
 */
#ifndef HPCQ_APPS_MD_DUMP_H
#define HPCQ_APPS_MD_DUMP_H

#include "common/error.h"

struct md_sim;

/* Write this step's frames, if a trajectory is asked for and the step is
 * due.  Collective.  0 or -1 with err filled. */
int dump_frame (struct md_sim *s, struct hpcq_error *err);

/* Close the trajectory files. */
void dump_close (struct md_sim *s);

/* The exact state (id, x, v, f as hex floats, sorted by id) to path on
 * rank 0.  Collective.  0 or -1 (err). */
int dump_state (struct md_sim *s, const char *path, struct hpcq_error *err);

#endif
