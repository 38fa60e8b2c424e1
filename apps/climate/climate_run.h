/* climate_run.h - one simulation from options to final diagnostics.
 *
 * create picks the back end, decomposes the grid, builds the model, restores
 * a checkpoint (--restart) and opens the output; loop advances to the end
 * time, writing snapshots and checkpoints and obeying SIGUSR1/SIGTERM;
 * report prints mass and energy.  Every rank calls each function.
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_RUN_H
#define HPCQ_APPS_CLIMATE_CLIMATE_RUN_H

#include "apps/climate/climate_opts.h"
#include "common/error.h"

struct climate_comm;
struct climate_run;

/* Returns NULL with err filled (on every rank) for bad input: the caller
 * exits 2. */
struct climate_run *climate_run_create (const struct climate_opts *o,
                                        struct climate_comm *c, struct hpcq_error *err);

/* Returns the exit status: 0 finished, 143 stopped after a checkpoint on
 * SIGTERM or --stop-after, 1 on an I/O failure (err filled). */
int climate_run_loop (struct climate_run *r, struct hpcq_error *err);

/* Print the diagnostics (rank 0) and write --dump. Returns 0 or -1. */
int climate_run_report (struct climate_run *r, struct hpcq_error *err);

void climate_run_destroy (struct climate_run *r);

#endif
