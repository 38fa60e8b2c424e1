/* jobs_impl.h - the job registry's insides, shared by its two files:
 * jobs.c (the index, the lists, subjobs, the counts) and jobs_load.c
 * (a restart's load, its requests parsed on threads).  No other file
 * includes it; the registry's interface is jobs.h.
 *
 * It includes jobs.h's model headers only, not jobs.h, so that the two
 * files reach each other through it without an include circle.
 */
#ifndef HPCQ_SCHEDULER_JOBS_IMPL_H
#define HPCQ_SCHEDULER_JOBS_IMPL_H

#include <stdint.h>
#include <sys/queue.h>

#include "scheduler/array.h"
#include "scheduler/job.h"

struct server;
struct load;
struct job_counts;

struct jobs {
    struct server *srv;
    struct job **v; /* sorted by seq: seqs only grow */
    int n, cap;
    int64_t next_seq;
    struct job_queue queued; /* jobs in state Q */
    int nqueued;
    struct job_list running;          /* jobs holding an allocation */
    TAILQ_HEAD (, job_array) pending; /* arrays with untouched queued subjobs */
    struct job **transient;           /* subjobs split out for this pass */
    int ntransient, transient_cap;
    struct load *load;         /* while the stored requests are parsed */
    struct job_list suspended; /* jobs in state S */
    struct job_counts *counts; /* by queue, state and user (job_counts.h) */
    int nsplit;                /* split-out subjobs in memory */
};

/* job joins the suspended list, or the queued list (its state is S, Q). */
void jobs_suspended_link (struct jobs *js, struct job *job);
void jobs_queue_link (struct jobs *js, struct job *job);

/* Free job and all it owns: an array's subjobs, its request (a subjob's
 * only if its own; else it is its array's). */
void jobs_job_free (struct job *job);

/* job->id from its number (and a subjob's index): "42.server". */
void jobs_make_id (struct server *srv, struct job *job);

/* A subjob key's array and position (*pos); the array NULL if there is
 * none. */
struct job *jobs_subkey_split (struct jobs *js, int64_t key, int *pos);

/* Subjob sj of array is split out (sign 1) or given back (-1): it counts
 * on its own, and the array has one untouched subjob fewer (more). */
void jobs_counts_split (struct jobs *js, const struct job *array, const struct job *sj,
                        int sign);

/* An array joins the arrays a pass takes subjobs from while it is queued
 * and has untouched subjobs, and leaves when not. */
void jobs_pending_update (struct jobs *js, struct job *array);

/* A load under way is finished at once, its callback not called (the
 * registry is being destroyed: the threads still use its jobs). */
void jobs_load_cancel (struct jobs *js);

#endif
