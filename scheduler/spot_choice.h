/* spot_choice.h - spot or on-demand for each waiting job, by expected
 * cost (scheduler/policy/spotcost.h), at each scheduling pass.
 *
 * Once a pass the cluster is summed up: the cheapest spot node that is up
 * (its price, its class's M, nodeclass.h, and the class's recent reclaims)
 * and the cheapest on-demand one.  Then for each job its queue lets start:
 * its walltime (or default_walltime) as W, its measured checkpoint cost
 * (else checkpoint_cost_guess, 60 s) if it checkpoints, its reclaims so far
 * and its -l spot= give the decision, which sets the placement's
 * preference for that pass (common/resource.h prefer_spot, force_spot),
 * within what the queue allows: a queue's node_preference stands.  A job
 * reclaimed spot_max_reclaims times (0: no limit) runs on on-demand nodes
 * only.  Jobs without a walltime, and clusters without both kinds of
 * nodes or with one price for both, get no decision.  qstat -f shows the
 * decision and its numbers (estimated.spot, estimated.cost, and the
 * comment of a job still waiting).
 */
#ifndef HPCQ_SCHEDULER_SPOT_CHOICE_H
#define HPCQ_SCHEDULER_SPOT_CHOICE_H

#include <jansson.h>

#include "common/error.h"
#include "scheduler/server.h"

struct job;
struct node;

/* Reads spot_max_reclaims, spot_avoid_halflife, checkpoint_cost_guess
 * (refused in one line if bad).  NULL with err. */
struct spot_choice *spot_choice_create (struct server *srv, struct hpcq_error *err);
void spot_choice_destroy (struct spot_choice *sc);

/* Once a pass, before the jobs: the cluster's summary; the walltime of
 * jobs that give none (-1: none). */
void spot_choice_pass (struct spot_choice *sc, int64_t default_walltime);

/* A job its queue lets start this pass: its placement preference. */
void spot_choice_apply (struct spot_choice *sc, struct job *job);

/* The same outside a pass (a job restarted at once after a reclaim): the
 * summary taken again, then the job's preference. */
void spot_choice_now (struct spot_choice *sc, struct job *job);

/* Node n's class was reclaimed (a notice): it weighs on the class for a
 * while.  job (may be NULL) was moved off by it: one more reclaim. */
void spot_choice_reclaimed (struct spot_choice *sc, const struct node *n,
                            struct job *job);

/* estimated.spot and estimated.cost into est (qstat -f). */
void spot_choice_attr_json (const struct job *job, json_t *est);

#endif
