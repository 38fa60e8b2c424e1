/* job_ckpt.h - a job's checkpoint, suspension, preemption and cost
 * bookkeeping (job->ck), apart from what manages checkpoints (ckpt.h).
 *
 * Those who only keep the counts (lifecycle's suspend and resume,
 * preempt, cost) read and write them here without depending on ckpt.c.
 * A model header, as job.h: nothing of the server, the sockets or the
 * database.
 */
#ifndef HPCQ_SCHEDULER_JOB_CKPT_H
#define HPCQ_SCHEDULER_JOB_CKPT_H

#include <stdint.h>

#include "common/util.h"
#include "scheduler/job.h"

struct server;

enum ckpt_outcome {
    CKPT_REPORTED,
    CKPT_EXPIRED,
    CKPT_GONE,
};

typedef void (*ckpt_done_f) (struct server *srv, struct job *job,
                             enum ckpt_outcome outcome, void *arg);

#define CKPT_COSTS 16 /* the latest costs kept for the median */
#define CKPT_WAITERS 4

struct ckpt_waiter {
    ckpt_done_f done;
    void *arg;
    int64_t deadline_ms;
};

/* A job's checkpoints, suspensions, preemptions and cost (job->ck, made
 * by ckpt_job_state on first need; freed with the job). */
struct job_ckpt {
    /* Completed checkpoints, over all attempts. */
    int count;
    int64_t last_gen;
    int64_t last_time;        /* wall seconds */
    double costs[CKPT_COSTS]; /* the latest costs (seconds), a ring */
    int ncosts, cost_next;
    /* This attempt's cadence. */
    int64_t base_ms;         /* the interval counts from here */
    int64_t cput, base_cput; /* CPU seconds the worker reported, and at base */
    /* A request under way: the signal went at req_ms (0: none). */
    int64_t req_ms;
    double req_wall;
    int64_t req_until_ms; /* given up on after this */
    char req_reason[32];
    struct ckpt_waiter w[CKPT_WAITERS];
    int nw;
    /* Checkpoints the app found unusable (ckpt_corrupt), and a restart
     * waiting for its folder's removal. */
    int invalid;
    int restart_on_removal;
    /* Preemption (preempt.h). */
    int preempt_count;
    char preempt_reason[256]; /* whole: as long as any reason preempt.c makes */
    int preempting;           /* a method is under way (C waits) */
    int auto_resume;          /* suspended by preemption (S): resumed by
                                     * the scheduler, not only by qsig */
    /* Suspension, this attempt (monotonic ms).  released: its allocation's
     * resources are not held (it is suspended, or was deleted while it
     * was), so its end must not release them again. */
    int64_t suspended_ms, suspend_since_ms;
    int released;
    /* Cost of the ended attempts (cost.h). */
    double cost_prev, cost_prev_spot;
};

/* job->ck, made if it has none. */
static inline struct job_ckpt *ckpt_job_state (struct job *job)
{
    if (!job->ck)
        job->ck = xzalloc (sizeof (*job->ck));
    return job->ck;
}

#endif
