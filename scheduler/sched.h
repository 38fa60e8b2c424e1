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

/* Start job now: the one way a job starts (a scheduling pass, qrun, a
 * reclaimed job's restart).  On a (the caller's placement), or, with a
 * NULL, wherever its request and its queue's labels fit on the nodes' free
 * resources now.  The start is recorded (lifecycle_start), counted against
 * its queue's max_run for this pass, logged as "job ID (OWNER) HOW HOSTS",
 * and job.launch goes to its mother superior once the batch commits.
 * Takes a either way.  0 started; 1 it does not fit now (a NULL only);
 * -1 if the start could not be recorded (errno; lifecycle_start names the
 * caller). */
#define sched_start_now(srv, job, a, how) \
    sched_start_now_at ((srv), (job), (a), (how), __func__)
int sched_start_now_at (struct server *srv, struct job *job, struct alloc *a,
                        const char *how, const char *caller);

/* Send job.launch for a started job again (its first went astray). */
void sched_launch (struct server *srv, struct job *job);

#endif
