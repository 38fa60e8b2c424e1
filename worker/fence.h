/* fence.h - the node's fence: a job never runs on here once the scheduler
 * may have started it elsewhere.
 *
 * The scheduler gives a lost node's jobs to others only node_timeout after
 * it last heard from the node.  The node holds a lease that ends fence_ms
 * (shorter; the scheduler's fence_time, in its hello reply) after it sent
 * the last request the scheduler answered (a heartbeat, the hello): that
 * request reached the scheduler after it was sent, so the lease ends
 * before the scheduler can count the node lost.  When the lease ends the
 * node's jobs are killed.
 *
 * Two things enforce it.  The worker itself, while it lives: its tasks are
 * killed as fenced (the result says so).  And a watchdog that outlives the
 * worker, as Slurm's slurmstepd outlives slurmd: a process forked at the
 * worker's start, in a session of its own, that holds nothing of the
 * worker but a pipe, the spool and the log.  The worker sends it each
 * renewal; when the lease ends (the worker gone, stopped, or cut off from
 * the scheduler) it kills every job cgroup and recorded job session of this
 * spool and writes a line per job to SPOOL/fence.log and to the log.  One
 * watchdog per node, not one per job: nothing is added to a job's launch,
 * and a cgroup kill reaches every process the job has, wherever it forked.
 * A worker that starts kills the watchdog an earlier one left (its record
 * is SPOOL/watchdog.fence), after killing that worker's leftover jobs.
 */
#ifndef HPCQ_WORKER_FENCE_H
#define HPCQ_WORKER_FENCE_H

#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "worker/cgroup.h"
#include "worker/spool.h"

struct fence;

/* Start the watchdog for the jobs of spool sp (and of cg, may be NULL).
 * NULL with err if it cannot be.  Destroy with fence_destroy(). */
struct fence *fence_create (struct spool *sp, struct cgroups *cg,
                            struct hpcq_error *err);

/* The watchdog stops (the worker stops as it should, killing its jobs). */
void fence_destroy (struct fence *f);

/* 1 if pid was the watchdog's (it ended: said in the log). */
int fence_exited (struct fence *f, pid_t pid);

/* A request went to the scheduler at now_ms whose answer renews the lease. */
void fence_sent (struct fence *f, int64_t id, int64_t now_ms);

/* The scheduler answered request id: the lease runs from when it was sent.
 * 1 if that renewed it. */
int fence_answered (struct fence *f, int64_t id);

/* The scheduler's fence time (ms, 0: none); set with each hello reply. */
void fence_set_time (struct fence *f, int64_t fence_ms);

/* 1 once, when the lease has ended (at now_ms) since the last renewal:
 * the caller kills its jobs.  why: for the record. */
int fence_lapsed (struct fence *f, int64_t now_ms, char *why, int len);

#endif
