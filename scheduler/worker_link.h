/* worker_link.h - what the workers tell the scheduler, and their liveness.
 *
 * The handlers of a worker's link: node.hello registers its node (its
 * resources, the jobs it runs and those that ended while the scheduler
 * was away, reconciled with what the scheduler believes), node.heartbeat
 * keeps it up, job.started and job.finished report a job's attempt.  A
 * timer takes a node down when its heartbeats stop for node_timeout: its
 * jobs are then requeued (rerunnable) or failed.  The registry of nodes
 * itself is nodes.h.
 */
#ifndef HPCQ_SCHEDULER_WORKER_LINK_H
#define HPCQ_SCHEDULER_WORKER_LINK_H

#include "scheduler/server.h"

/* Registers the handlers and starts the timer; NULL if out of memory. */
struct worker_link *worker_link_create (struct server *srv);
void worker_link_destroy (struct worker_link *wl);

#endif
