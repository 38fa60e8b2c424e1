/* sched.h - the scheduling pass and the placement of jobs on nodes.
 *
 * server_request_pass() marks that something changed (a job arrived, ended,
 * a node came up); the pass then runs once in the before-sleep hook, asks
 * the policy for decisions and turns each into a durable start and a
 * job.launch to the worker.  sched_feasible() answers at submission
 * whether any configuration of the known nodes could ever run a request.
 */
#ifndef HPCQ_SCHEDULER_SCHED_H
#define HPCQ_SCHEDULER_SCHED_H

#include "common/error.h"
#include "common/resource.h"
#include "scheduler/jobs.h"
#include "scheduler/server.h"

/* Reads sched_policy (fifo, easy: the default) and default_walltime. */
struct sched *sched_create (struct server *srv, struct hpcq_error *err);
void sched_destroy (struct sched *s);

/* Run a pass now if one was requested (server_request_pass, or the
 * sched_interval timer).  Called before each commit. */
void sched_run (struct sched *s);

/* 0 if some known node set could run res on nodes carrying labels (a
 * queue's node_labels; NULL or "" = any); -1 with the reason in err. */
int sched_feasible (struct server *srv, const struct hpcq_resources *res,
                    const char *labels, struct hpcq_error *err);

/* Send job.launch for a started job (after its start is durable). */
void sched_launch (struct server *srv, struct job *job);

#endif
