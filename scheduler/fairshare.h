/* fairshare.h - each user's decayed usage, and job priority from it.
 *
 * When a job's run ends its owner is charged (ncpus + GPUs weighted) x
 * walltime cpu-seconds; the charge adds to the user's usage, which decays
 * with the half-life fairshare_halflife and is kept in the database (the
 * value and when it was last decayed, so decay needs no timer: a value is
 * brought forward when it is read or charged).  Each scheduling pass
 * fairshare_rank() computes every waiting job's effective priority
 * (scheduler/policy/priority.h) into job->prio, which policy_sort_priority()
 * orders by.  Config: fairshare_halflife, fairshare_gpu_weight,
 * priority_weight_{queue,job,age,fairshare}, priority_max_age.
 */
#ifndef HPCQ_SCHEDULER_FAIRSHARE_H
#define HPCQ_SCHEDULER_FAIRSHARE_H

#include <stdint.h>

#include "common/error.h"
#include "scheduler/server.h"

struct job;

/* Read the settings and load the usage table.  NULL with err. */
struct fairshare *fairshare_create (struct server *srv, struct hpcq_error *err);
void fairshare_destroy (struct fairshare *fs);

/* A run of job ended after walltime seconds: charge its owner, durably (in
 * the open transaction).  0 or -1 with errno. */
int fairshare_charge (struct fairshare *fs, const struct job *job, int64_t walltime);

/* Compute job->prio and job->prio_f of jobs[0..n-1] at time now. */
void fairshare_rank (struct fairshare *fs, struct job **jobs, int n, int64_t now);

#endif
