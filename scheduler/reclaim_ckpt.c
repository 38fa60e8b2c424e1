/* reclaim_ckpt.c - see reclaim_ckpt.h
 *
 * Until scheduler/ckpt.h is on main, a job is not known to checkpoint on
 * a signal (a signal it does not catch would kill it), so it is requeued
 * when the notice time is nearly up and restarts from what its
 * checkpoint folder holds (the apps' own cadence, HPCQ_CHECKPOINT_INTERVAL);
 * the requeue is lifecycle's plain one with the running copy killed.
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

int rck_request (struct server *srv, struct job *job, int64_t deadline_ms,
                 rck_done_f done, void *arg)
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
