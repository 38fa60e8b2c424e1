/* lifecycle.h - the one owner of the daemon's job states.
 *
 * Every change of a job's state goes through here: the change is checked
 * against the table of legal transitions (job_state.h), written through to
 * the open transaction with the job's record, and recorded as an event
 * (its name, who or what caused it, a detail, and the states before and
 * after) in the job's history.  The job's place in the lists a pass reads
 * (queued, running) follows.  An illegal change is logged as a bug and
 * refused: -1 with errno EINVAL, and nothing about the job changes.
 *
 * The functions that take a caller are called through the macros below,
 * which pass __func__, so the log of a refused change names the code that
 * asked for it.
 */
#ifndef HPCQ_SCHEDULER_LIFECYCLE_H
#define HPCQ_SCHEDULER_LIFECYCLE_H

#include <stdint.h>

#include "scheduler/lifecycle_sub.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/jobs.h"
#include "scheduler/server.h"

/* Where a job with no hold goes: W while its qsub -a time is ahead
 * (deferred.h), else Q. */
char lifecycle_ready_state (const struct job *job);

/* Submit a new job (takes ownership; job->rec.state is JOB_STATE_NEW):
 * queued, held if it has holds (hold_types other than "n": a user hold
 * or dependencies), or waiting (W) for its qsub -a time.  Inserts it and records "submitted" by its owner.
 * 0 or -1 (on -1 the job is still the caller's). */
int lifecycle_submit (struct server *srv, struct job *job);

/* Move job to state `to` because of ev, caused by actor (a user name, a
 * node, "scheduler"), with an optional detail for the event.  A change to
 * the same state is legal only where the table lists it (a second hold,
 * an alteration): it is then an event without a state change.  0 or -1. */
#define lifecycle_change(srv, job, to, ev, actor, detail) \
    lifecycle_change_at ((srv), (job), (to), (ev), (actor), (detail), __func__)
int lifecycle_change_at (struct server *srv, struct job *job, char to,
                         enum job_event ev, const char *actor, const char *detail,
                         const char *caller);

/* Start a queued job on alloc (takes it): the allocation is applied, a new
 * attempt recorded, and the job is R ("started" by the scheduler).  The
 * launch itself is sched_launch's.  0 or -1 (alloc then not taken). */
#define lifecycle_start(srv, job, alloc) \
    lifecycle_start_at ((srv), (job), (alloc), __func__)
int lifecycle_start_at (struct server *srv, struct job *job, struct alloc *alloc,
                        const char *caller);

/* The attempt ended (the worker's result, or the node was lost for good):
 * record exit and usage, release the allocation, F ("finished" by actor).
 * reason, if given, becomes the comment and the attempt's reason. */
#define lifecycle_end(srv, job, exit_status, reason, cput, walltime, maxrss, actor) \
    lifecycle_end_at ((srv), (job), (exit_status), (reason), (cput), (walltime),    \
                      (maxrss), (actor), __func__)
int lifecycle_end_at (struct server *srv, struct job *job, int exit_status,
                      const char *reason, int64_t cput, int64_t walltime,
                      int64_t maxrss, const char *actor, const char *caller);

/* The node under a running job failed (why): a rerunnable job goes back to
 * Q for a new attempt ("requeued"); others, and jobs already being
 * deleted, end (JOB_EXEC_NODE_LOST).  0 or -1. */
#define lifecycle_node_lost(srv, job, why) \
    lifecycle_node_lost_at ((srv), (job), (why), __func__)
int lifecycle_node_lost_at (struct server *srv, struct job *job, const char *why,
                            const char *caller);

/* End a running job's attempt without a result (its copy is being killed:
 * qrerun) and queue it again for a new attempt ("requeued" by actor).
 * 0 or -1. */
#define lifecycle_requeue(srv, job, why, actor) \
    lifecycle_requeue_at ((srv), (job), (why), (actor), __func__)
int lifecycle_requeue_at (struct server *srv, struct job *job, const char *why,
                          const char *actor, const char *caller);

/* Requeue a running (or suspended) job whose checkpoint was reported or
 * whose checkpoint grace is over (preemption's C, qrerun, a reclaim): its
 * running copy is killed and it goes back to Q for a new attempt, which
 * restarts from the checkpoint in its folder ("requeued" by actor, the
 * detail naming the generation).  0 or -1. */
#define lifecycle_requeue_from_checkpoint(srv, job, why, actor) \
    lifecycle_requeue_from_checkpoint_at ((srv), (job), (why), (actor), __func__)
int lifecycle_requeue_from_checkpoint_at (struct server *srv, struct job *job,
                                          const char *why, const char *actor,
                                          const char *caller);

/* Suspend a running job (preemption's S, qsig -s suspend): the workers of
 * all its nodes stop its processes, and its resources are released for
 * others while it keeps its allocation to resume on: S ("suspended" by
 * actor, why as detail).  0 or -1. */
#define lifecycle_suspend(srv, job, why, actor) \
    lifecycle_suspend_at ((srv), (job), (why), (actor), __func__)
int lifecycle_suspend_at (struct server *srv, struct job *job, const char *why,
                          const char *actor, const char *caller);

/* Resume a suspended job on its allocation, which must be free again:
 * R ("resumed" by actor).  0, or -1 (EBUSY: its resources are taken). */
#define lifecycle_resume(srv, job, actor) \
    lifecycle_resume_at ((srv), (job), (actor), __func__)
int lifecycle_resume_at (struct server *srv, struct job *job, const char *actor,
                         const char *caller);

/* 1 if a suspended job's allocation is free again on its nodes. */
int lifecycle_resume_fits (const struct job *job);

/* An array's state from its subjobs': it finishes when all have (exit
 * status 0 when every subjob's was). */
void lifecycle_array_update (struct server *srv, struct job *array);

#endif
