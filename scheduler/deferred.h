/* deferred.h - jobs that wait for their start time (qsub -a).
 *
 * PBS Pro's Execution_Time: a job submitted with -a waits in state W
 * until then, and only then is queued (W -> Q, event "eligible") and
 * considered by the scheduling passes.  A release from a hold before that
 * time also leads to W (lifecycle_ready_state).  One timer, once a second,
 * walks the jobs only when the earliest waiting job is due (a lifecycle
 * subscriber, lifecycle_sub.h, hears of each job that enters W), so a cluster without any pays
 * nothing and one with many pays a walk per start time.
 */
#ifndef HPCQ_SCHEDULER_DEFERRED_H
#define HPCQ_SCHEDULER_DEFERRED_H

#include "common/error.h"
#include "scheduler/server.h"

struct deferred;

/* Start the timer.  NULL with err. */
struct deferred *deferred_create (struct server *srv, struct hpcq_error *err);
void deferred_destroy (struct deferred *d);

/* A job entered W, due at time when (seconds). */
void deferred_due (struct deferred *d, int64_t when);

/* Queue the waiting jobs whose time has come (the timer calls it).
 * Returns how many were queued. */
int deferred_tick_now (struct deferred *d);

#endif
