/* reclaim_ckpt.c - see reclaim_ckpt.h
 *
 * The checkpoint module (scheduler/ckpt.h) does the work: a job that takes
 * checkpoint signals where it runs (its -c, or -c u on a spot node) gets
 * its signal at the notice, and is requeued once its worker reports the
 * checkpoint, or at the deadline without one; the new attempt restarts
 * from it (lifecycle_requeue_from_checkpoint).  A reclaim is an
 * interruption of the node's class, which Young/Daly's interval for the
 * jobs on that class takes into account (nodeclass_interrupted).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "common/log.h"
#include "scheduler/ckpt.h"
#include "scheduler/jobs.h"
#include "scheduler/lifecycle.h"
#include "scheduler/nodeclass.h"
#include "scheduler/nodes.h"
#include "scheduler/reclaim.h"
#include "scheduler/reclaim_ckpt.h"

int rck_job_checkpoints (struct server *srv, const struct job *job)
{
    return ckpt_job_checkpoints (srv, job);
}

/* The checkpoint asked at a notice is in (or will not come): the reclaim
 * requeues the job, unless its attempt ended some other way first. */
static void checkpointed (struct server *srv, struct job *job,
                          enum ckpt_outcome outcome, void *arg)
{
    (void)arg;
    if (outcome != CKPT_GONE)
        reclaim_checkpointed (srv->reclaim, job, outcome == CKPT_REPORTED);
}

int rck_request (struct server *srv, struct job *job, int64_t deadline_ms)
{
    return ckpt_request (srv, job, "reclaim", deadline_ms, checkpointed, NULL);
}

int rck_requeue (struct server *srv, struct job *job, const char *why)
{
    return lifecycle_requeue_from_checkpoint (srv, job, why, "scheduler");
}

void rck_interrupted (struct server *srv, const struct node *n, const char *detail)
{
    if (nodeclass_interrupted (srv->nodeclass, n, "reclaim", detail) < 0)
        log_error ("node %s: record its reclaim", n->name);
}
