/* cost.h - what jobs cost: the price of the nodes they held, for as long
 * as they held them.
 *
 * An attempt costs, for each node of its allocation, the node's
 * price_per_hour (nodeclass.h) times the hours it ran there (time
 * suspended not counted: a suspended job lends its resources) times the
 * share of the node it held: the whole node for place=excl, else the
 * largest of its shares of the node's cores, GPUs and memory.  Each ended
 * attempt's cost is stored with the attempt (and the part of it on spot
 * nodes); a job's resources_used.cost is its attempts' sum, the running
 * one's so far included; qstat -Q -f shows each queue's total, split
 * into spot and on-demand nodes.  Each ended attempt also stores what it
 * would have cost with its spot nodes at their on-demand price
 * (nodeclass_ondemand_price), for hpcq-report's savings.
 */
#ifndef HPCQ_SCHEDULER_COST_H
#define HPCQ_SCHEDULER_COST_H

#include <jansson.h>

#include "scheduler/server.h"

struct job;

/* Each job's and queue's cost so far from the database (after the jobs
 * are loaded).  NULL on failure. */
struct cost *cost_create (struct server *srv);
void cost_destroy (struct cost *c);

/* The running attempt's cost so far (its part on spot nodes in *spot). */
double cost_attempt (struct server *srv, const struct job *job, double *spot);

/* The job's attempt is ending (before its allocation goes): its cost is
 * stored with the attempt and added to the job's and its queue's.  0 or
 * -1. */
int cost_attempt_ended (struct server *srv, struct job *job);

/* The job's whole cost so far. */
double cost_job (struct server *srv, const struct job *job);

/* For qstat -Q -f: {"cost", "cost_spot", "cost_ondemand"} of queue's jobs
 * so far (new reference). */
json_t *cost_queue_json (struct server *srv, const char *queue);

#endif
