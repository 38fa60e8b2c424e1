/* policy.h - a scheduling policy, behind one narrow interface.
 *
 * A policy sees the eligible jobs and the nodes, and decides which jobs
 * start where.  It does not touch sockets or the database: it calls
 * ctx->start() for each decision, so the daemon and a simulator can drive
 * the same policy code.  Policies: fifo (policy_fifo.c), EASY backfill
 * (backfill.c) and conservative backfill (policy_conservative.c).
 */
#ifndef HPCQ_SCHEDULER_POLICY_POLICY_H
#define HPCQ_SCHEDULER_POLICY_POLICY_H

#include "scheduler/job.h"
#include "scheduler/node.h"

struct policy_ctx {
    struct job **jobs; /* eligible (queued, not held), in submit order */
    int njobs;
    struct node **nodes; /* all nodes, by name */
    int nnodes;
    struct job_list *running; /* jobs holding allocations */
    int64_t now;              /* wall seconds (virtual in a simulator) */
    int64_t default_walltime; /* for jobs without one; -1: unbounded */
    /* Try to place job on the nodes' free resources: a new allocation or
     * NULL if it does not fit now. */
    struct alloc *(*fit) (struct policy_ctx *ctx, struct job *job);
    /* Start job on alloc (takes alloc).  0, or -1 if it could not. */
    int (*start) (struct policy_ctx *ctx, struct job *job, struct alloc *alloc);
    void *arg;
};

struct policy_ops {
    const char *name;
    void (*pass) (struct policy_ctx *ctx);
};

extern const struct policy_ops policy_fifo;
extern const struct policy_ops policy_easy;
extern const struct policy_ops policy_conservative;

/* The policy called name, or NULL. */
const struct policy_ops *policy_lookup (const char *name);

/* Jobs in the order a priority policy considers them: higher effective
 * priority (job->prio, which the caller computes: the daemon with
 * fairshare_rank, a simulator with priority_compute) first, then higher
 * qsub -p priority, then earlier submission. */
void policy_sort_priority (struct job **jobs, int n);

#endif
