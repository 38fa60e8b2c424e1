/* job_state.c - see job_state.h
 *
 * The table follows PBS Pro's job states (Q H W R E F S) and the moves its
 * server makes between them; flux-core's job-manager (event.c, RFC 21)
 * showed the shape: an event names what happened, and the state machine
 * says whether it may happen in the job's present state.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>

#include "common/log.h"
#include "common/util.h"
#include "scheduler/policy/job_state.h"
#include "scheduler/array.h"
#include "scheduler/job.h"

static const char *const event_names[JOB_EV_COUNT] = {
    [JOB_EV_SUBMITTED] = "submitted",
    [JOB_EV_HELD] = "held",
    [JOB_EV_RELEASED] = "released",
    [JOB_EV_DEPENDENCY_FAILED] = "dependency_failed",
    [JOB_EV_ALTERED] = "altered",
    [JOB_EV_ELIGIBLE] = "eligible",
    [JOB_EV_STARTED] = "started",
    [JOB_EV_DELETED] = "deleted",
    [JOB_EV_FINISHED] = "finished",
    [JOB_EV_REQUEUED] = "requeued",
    [JOB_EV_SUSPENDED] = "suspended",
    [JOB_EV_RESUMED] = "resumed",
    [JOB_EV_CHECKPOINT_REQUESTED] = "checkpoint_requested",
    [JOB_EV_CHECKPOINTED] = "checkpoint",
    [JOB_EV_CHECKPOINT_MISSED] = "checkpoint_missed",
};

#define J JOB_KIND_JOB
#define A JOB_KIND_ARRAY
#define N JOB_STATE_NEW

static const struct job_transition table[] = {
    /* Submission: queued, held (qsub -h, or waiting for dependencies), or
     * waiting for its start time (qsub -a). */
    { N, 'Q', JOB_EV_SUBMITTED, J | A },
    { N, 'H', JOB_EV_SUBMITTED, J | A },
    { N, 'W', JOB_EV_SUBMITTED, J },
    /* Holds: a hold may be added to a held job; a release that leaves
     * other holds keeps it held. */
    { 'Q', 'H', JOB_EV_HELD, J },
    { 'H', 'H', JOB_EV_HELD, J },
    { 'W', 'H', JOB_EV_HELD, J },
    { 'H', 'Q', JOB_EV_RELEASED, J | A },
    { 'H', 'H', JOB_EV_RELEASED, J | A },
    { 'H', 'W', JOB_EV_RELEASED, J },
    { 'H', 'H', JOB_EV_DEPENDENCY_FAILED, J | A },
    { 'W', 'Q', JOB_EV_ELIGIBLE, J },
    /* qalter changes a job that has not started; its state stays. */
    { 'Q', 'Q', JOB_EV_ALTERED, J },
    { 'H', 'H', JOB_EV_ALTERED, J },
    { 'W', 'W', JOB_EV_ALTERED, J },
    /* Running and its ends.  qdel of a running job signals it and waits
     * in E for the worker's result; a second qdel finds it there. */
    { 'Q', 'R', JOB_EV_STARTED, J },
    { 'R', 'E', JOB_EV_DELETED, J },
    { 'E', 'E', JOB_EV_DELETED, J },
    { 'S', 'E', JOB_EV_DELETED, J },
    { 'Q', 'F', JOB_EV_DELETED, J },
    { 'H', 'F', JOB_EV_DELETED, J },
    { 'W', 'F', JOB_EV_DELETED, J },
    { 'R', 'F', JOB_EV_FINISHED, J },
    { 'E', 'F', JOB_EV_FINISHED, J },
    { 'S', 'F', JOB_EV_FINISHED, J },
    /* A new attempt: the node failed, preemption (C, R), a checkpoint then
     * requeue (qrerun), a spot reclaim. */
    { 'R', 'Q', JOB_EV_REQUEUED, J },
    { 'S', 'Q', JOB_EV_REQUEUED, J },
    /* Suspension (preemption's S, qsig -s suspend; migration 0006 lets the
     * database hold 'S'). */
    { 'R', 'S', JOB_EV_SUSPENDED, J },
    { 'S', 'R', JOB_EV_RESUMED, J },
    /* An array is held and released as a whole (its untouched subjobs
     * with it); deleted, it is E until its running subjobs have ended, and
     * it ends when its last subjob has. */
    { 'Q', 'H', JOB_EV_HELD, A },
    { 'H', 'H', JOB_EV_HELD, A },
    { 'Q', 'E', JOB_EV_DELETED, A },
    { 'H', 'E', JOB_EV_DELETED, A },
    { 'E', 'E', JOB_EV_DELETED, A },
    /* Checkpoints leave the state as it is: asked of a running job; its
     * report may come while it is being deleted (E); a request may be
     * given up on while it is stopped (S). */
    { 'R', 'R', JOB_EV_CHECKPOINT_REQUESTED, J },
    { 'R', 'R', JOB_EV_CHECKPOINTED, J },
    { 'E', 'E', JOB_EV_CHECKPOINTED, J },
    { 'S', 'S', JOB_EV_CHECKPOINTED, J },
    { 'R', 'R', JOB_EV_CHECKPOINT_MISSED, J },
    { 'E', 'E', JOB_EV_CHECKPOINT_MISSED, J },
    { 'S', 'S', JOB_EV_CHECKPOINT_MISSED, J },
    { 'Q', 'F', JOB_EV_FINISHED, A },
    { 'H', 'F', JOB_EV_FINISHED, A },
    { 'E', 'F', JOB_EV_FINISHED, A },
};

#undef J
#undef A
#undef N

const char *job_event_name (enum job_event ev)
{
    return ev >= 0 && ev < JOB_EV_COUNT ? event_names[ev] : "?";
}

const struct job_transition *job_state_table (int *n)
{
    *n = (int)ARRAY_SIZE (table);
    return table;
}

int job_state_legal (char from, char to, enum job_event ev, int kind)
{
    for (size_t i = 0; i < ARRAY_SIZE (table); i++)
        if (table[i].from == from && table[i].to == to && table[i].event == ev
            && (table[i].kinds & kind))
            return 1;
    return 0;
}

static int job_kind (const struct job *job)
{
    return job->is_array ? JOB_KIND_ARRAY : JOB_KIND_JOB;
}

int job_state_check (const struct job *job, char to, enum job_event ev,
                     const char *actor, const char *caller)
{
    char from = job->rec.state;

    if (job_state_legal (from, to, ev, job_kind (job)))
        return 0;
    log_msg (LOG_ERR,
             "bug: job %s (%s): illegal state change %c -> %c (%s%s) by %s "
             "in %s: refused",
             job->id[0] ? job->id : "(new)", job->rec.owner, from ? from : '-',
             to ? to : '-', job_event_name (ev), job->is_array ? ", array" : "",
             actor ? actor : "?", caller ? caller : "?");
    errno = EINVAL;
    return -1;
}

int job_state_set (struct job *job, char to, enum job_event ev, const char *actor,
                   const char *caller)
{
    if (job_state_check (job, to, ev, actor, caller) < 0)
        return -1;
    job->rec.state = to;
    return 0;
}

char job_state_display (const struct job *job)
{
    if (job->arr && (job->rec.state == 'Q' || job->rec.state == 'H')
        && array_began (job->arr))
        return 'B';
    return job->rec.state;
}
