/* sim.h - the MD engine: state, set-up and the velocity-Verlet loop.
 *
 * sim_create builds the system (fresh from the lattice, or from the newest
 * valid checkpoint), sim_run advances it to p.steps printing thermo and
 * writing checkpoints, sim_destroy frees it.  All three are collective
 * over MPI ranks.
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
#include "common/error.h"

struct md_sim {
    struct md_params p;
    struct md_atoms *a;
    struct md_domain *dom;
    struct md_neigh *nl;
    struct md_force *fc;
    const struct md_backend_ops *ops;
    void *gpu;                  /* back-end private state */
    long natoms;
    double volume, dof;
    long step;                  /* steps done */
    long start_step;
    long last_build;            /* step of the last neighbour build */
    long nbuilds;
    double pe, vir;             /* from the last force call with eflag */
    double t_last_ckpt;
    FILE *xyz;
};

/* Exit statuses: 2 for bad input (options, foreign checkpoint), 1 for
 * run-time failures. */
enum { MD_EXIT_FAIL = 1, MD_EXIT_USAGE = 2 };

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

/* Write the exact state (ids, x, v, f as hex floats, sorted by id) to
 * path on rank 0.  Collective.  0 or -1 (err). */
int sim_dump_state (struct md_sim *s, const char *path, struct hpcq_error *err);

#endif
