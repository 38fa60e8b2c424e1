/* preempt.h - preemption, PBS Pro's model, and suspended jobs' return.
 *
 * Levels.  preempt_prio orders the kinds of jobs, highest first (PBS's
 * "express_queue, normal_jobs"): a job in a queue whose Priority is at
 * least preempt_queue_prio (default 150) is an express job, any other a
 * normal one.  A queued job may preempt running jobs of a lower level only.
 *
 * Which and how.  When a queued job cannot start, the scheduler looks for
 * victims: running jobs of a lower level, in the queues its own queue's
 * preempt_targets names (all, if unset; none for NONE), that have run at
 * least preempt_min_runtime.  It preempts only if the job then fits, and
 * takes the fewest, lowest-priority victims: lowest level first, then
 * lowest queue and job priority, then the most recently started (the least
 * work lost); a victim not needed once the rest are chosen is spared.  Each
 * victim is preempted by the first method of its queue's preempt_order
 * (default: the scheduler's preempt_order, "SCR") that applies to it:
 *   S  suspend: stopped on every host (lifecycle_suspend), its resources
 *      released at once; resumed where it was once they are free again
 *      and no job of a higher level waits;
 *   C  checkpoint, then requeue: asked for a checkpoint (ckpt_request), and
 *      requeued when it is reported or checkpoint_grace is over; applies
 *      to jobs that checkpoint (ckpt_job_checkpoints);
 *   R  requeue: killed and queued again; applies to rerunnable jobs;
 *   D  delete.
 * Each preemption is recorded (the preemptions table and an event
 * "preempted"), and counted on the victim (qstat -f preemption.count and
 * preemption.last_reason).
 */
#ifndef HPCQ_SCHEDULER_PREEMPT_H
#define HPCQ_SCHEDULER_PREEMPT_H

#include "common/error.h"
#include "scheduler/server.h"

struct job;

/* Reads preempt_prio, preempt_queue_prio, preempt_order and
 * preempt_min_runtime.  NULL with err (one line) on a bad setting. */
struct preempt *preempt_create (struct server *srv, struct hpcq_error *err);
void preempt_destroy (struct preempt *p);

/* Before a scheduling pass: resume the suspended jobs whose resources are
 * free, unless a queued job of a higher level waits. */
void preempt_resume_pass (struct preempt *p);

/* After the policy's pass: for the queued jobs (jobs[0..n), in the order
 * the policy considered them) that are still waiting, preempt where that
 * lets one start.  Returns 1 if resources were freed at once (a pass may
 * start the job now), else 0. */
int preempt_pass (struct preempt *p, struct job **jobs, int n);

#endif
