/* why.h - why a job a scheduling pass did not start still waits, in PBS
 * Pro's words.
 *
 * After a policy's pass (policy.h), why_pass looks at each job the pass
 * was given and did not start, and says why: the cluster's free cores,
 * memory or GPUs are fewer than it asks for ("Insufficient amount of
 * resource: ncpus (R: 4 A: 2 T: 8)"), a job ahead of it holds a
 * reservation ("Job would conflict with reservation or top job"), strict
 * order keeps it behind one that cannot start (fifo), or the free
 * resources are there in total but not on nodes its chunks fit.  The
 * texts are PBS Pro's scheduler comments (OpenPBS src/scheduler/
 * job_info.c, its table of sched_error texts: INSUFFICIENT_RESOURCE,
 * RESERVATION_CONFLICT, STRICT_ORDERING, NO_FREE_NODES), each prefixed
 * "Not Running: " as PBS Pro's comment is.
 *
 * One source for every view: qstat -f's comment, qstat -s, the REST API
 * and the status page all read the comment the caller sets from it.  The
 * cost is one scan of the nodes and a few comparisons per waiting job; a
 * job whose reason is the one it had is not written again, and jobs with
 * the same reason share one formatted text.  The daemon calls it at most
 * once a second (sched.c), not after every pass.  With no node up it
 * changes nothing: the comments keep saying what happened (a requeue).
 */
#ifndef HPCQ_SCHEDULER_POLICY_WHY_H
#define HPCQ_SCHEDULER_POLICY_WHY_H

#include <stddef.h>

#include "scheduler/policy/policy.h"

/* Called for each job the pass left waiting, with its reason (borrowed,
 * valid for the call).  The daemon sets the job's comment from it. */
typedef void (*why_f) (struct job *job, const char *text, void *arg);

/* Say why each job of ctx->jobs that is still queued waits (after
 * policy->pass ran on ctx).  A job whose job->why_kept is set was turned
 * down by ctx->start for a reason of the caller's (a queue limit): it
 * keeps that comment, and the flag is cleared. */
void why_pass (struct policy_ctx *ctx, const struct policy_ops *policy, why_f cb,
               void *arg);

#endif
