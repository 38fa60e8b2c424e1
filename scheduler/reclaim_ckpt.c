/* reclaim_ckpt.c - see reclaim_ckpt.h
 *
 * This build has no checkpoint module yet (the ckpt branch brings
 * scheduler/ckpt.h): a job is not known to checkpoint on a signal (one
 * it does not catch would kill it), so it is requeued when the notice time
 * is nearly up and restarts from what its checkpoint folder holds (the
 * apps' own cadence, HPCQ_CHECKPOINT_INTERVAL); the requeue is
 * lifecycle's plain one with the running copy killed.  With ckpt.h these
 * four become ckpt_job_checkpoints, ckpt_request (its done calling
 * reclaim_checkpointed for CKPT_REPORTED and CKPT_EXPIRED),
 * lifecycle_requeue_from_checkpoint and nodeclass_interrupted (kind
 * "reclaim").
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>

#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/reclaim_ckpt.h"

int rck_job_checkpoints (struct server *srv, const struct job *job)
{
    return 0;
}

int rck_request (struct server *srv, struct job *job, int64_t deadline_ms)
{
    errno = ENOSYS;
    return -1;
}

int rck_requeue (struct server *srv, struct job *job, const char *why)
{
    if (job->alloc)
        job_signal_worker (job, "KILL", "stale");
    return lifecycle_requeue (srv, job, why, "scheduler");
}

void rck_interrupted (struct server *srv, const struct node *n, const char *detail)
{
}
