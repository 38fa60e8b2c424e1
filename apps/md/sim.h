/* sim.h - the MD engine: state, set-up and the velocity-Verlet loop.
 *
 * sim_create builds the system (fresh from the lattice or a LAMMPS data
 * file, or from the newest valid checkpoint), sim_run advances it to
 * p.steps printing thermo and writing trajectories and checkpoints,
 * sim_destroy frees it.  All three are collective over MPI ranks.
 *
 * A step is LAMMPS's Verlet::run with fix nve, in its order: the first
 * half-kick and drift, the neighbour decision (Neighbor::decide: on steps
 * neigh_delay or more after the last build that are multiples of
 * neigh_every since it, and with neigh_check only if an atom moved more
 * than half the skin), then either wrap-migrate-borders-build or a ghost
 * refresh, forces and their reverse communication, the second half-kick,
 * thermo.  Started from the same data file with the same settings, a run
 * follows LAMMPS's trajectory until round-off, amplified by the dynamics'
 * chaos, separates them (apps/md/README.md says when).
 */
#ifndef HPCQ_APPS_MD_SIM_H
#define HPCQ_APPS_MD_SIM_H

#include <stdio.h>

#include "apps/md/atoms.h"
#include "apps/md/backend.h"
#include "apps/md/domain.h"
#include "apps/md/force.h"
#include "apps/md/neigh.h"
#include "apps/md/params.h"
#include "apps/md/system.h"
#include "common/ckptreport.h"
#include "common/error.h"

struct md_sim {
    struct md_params p;
    struct md_system sys; /* box, types, masses, coefficients */
    double *dtfm;         /* per type: dt/2 / mass (fix nve's dtfm) */
    struct md_atoms *a;
    struct md_domain *dom;
    struct md_neigh *nl;
    struct md_force *fc;
    const struct md_backend_ops *ops;
    void *gpu; /* back-end private state */
    long natoms;
    double volume, dof;
    long step; /* steps done */
    long start_step;
    long last_build; /* step of the last neighbour build */
    long nbuilds;
    double pe, vir; /* from the last force call with eflag */
    double t_last_ckpt;
    FILE *xyz, *lmp; /* trajectories (dump.c) */
};

/* Exit statuses: 2 for bad input (options, foreign checkpoint), 1 for
 * run-time failures. */
/* MD_EXIT_NO_CKPT: a restart found checkpoints, none of them usable. */
enum { MD_EXIT_FAIL = 1, MD_EXIT_USAGE = 2, MD_EXIT_NO_CKPT = CKPT_EXIT_INVALID };

/* Returns the engine or NULL with err filled and *status set to the exit
 * status the program should use.
 */
struct md_sim *sim_create (const struct md_params *p, int *status,
                           struct hpcq_error *err);
void sim_destroy (struct md_sim *s);

/* Run to p.steps, or until a SIGTERM (after checkpointing).  Returns 0,
 * 143 when stopped by SIGTERM, or 1 with err filled.
 */
int sim_run (struct md_sim *s, struct hpcq_error *err);

/* Install the SIGUSR1 (checkpoint) and SIGTERM (checkpoint and stop)
 * handlers; they only set flags read between steps. */
void sim_signals_install (void);

/* Rebuild ghosts and lists at the current positions.  0 or -1 (err). */
int sim_reneighbor (struct md_sim *s, struct hpcq_error *err);

/* Columns sim_gather can collect, in this order in each row. */
enum {
    MD_COL_TYPE = 1, /* 1 column */
    MD_COL_X = 2,    /* 3: position */
    MD_COL_IMG = 4,  /* 3: image flags */
    MD_COL_V = 8,    /* 3: velocity */
    MD_COL_F = 16,   /* 3: force */
};

/* A table of every atom, row id - 1, with the columns of mask, on every
 * rank (each row is filled by the rank that owns the atom and summed).
 * Collective.  Returns it (the caller frees it) with *ncols set, or NULL
 * (ENOMEM). */
double *sim_gather (struct md_sim *s, unsigned mask, int *ncols);

#endif
