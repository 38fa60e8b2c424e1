/* depend.h - job dependencies (qsub -W depend=...).
 *
 * PBS syntax: "TYPE:ID[:ID...][,TYPE:ID...]" with TYPE one of after (the
 * other job has started), afterok (ended with exit status 0), afternotok
 * (ended otherwise), afterany (ended).  A job with unmet dependencies is
 * held with the system hold 's'; when they are met the hold goes and it
 * queues.  One that can never be met (afterok on a job that failed) stays
 * held with the reason in its comment instead of waiting forever.
 */
#ifndef HPCQ_SCHEDULER_DEPEND_H
#define HPCQ_SCHEDULER_DEPEND_H

#include "common/error.h"
#include "scheduler/jobs.h"
#include "scheduler/server.h"

struct depend *depend_create (void);
void depend_destroy (struct depend *d);

/* Check job's depend string against the known jobs (every id must name
 * an existing job) and, if it has unmet dependencies, hold it ('s') and
 * put it on the waiting list.  Called at submission before the job is
 * stored, and at start-up for reloaded jobs.  -1 with err if malformed. */
int depend_attach (struct server *srv, struct job *job, struct hpcq_error *err);

/* Something happened to job (it started or ended): release the jobs whose
 * dependencies are now met, explain those that can never be. */
void depend_update (struct server *srv);

/* How many jobs wait on dependencies. */
int depend_count (struct server *srv);

/* Does job still hold the system hold of a dependency? */
int depend_waiting (const struct job *job);

#endif
