/* cluster.h - a cluster in memory, for driving the policy code without a
 * server: the policy tests (scheduler/test/) and bench/sched-pass.
 *
 * Node records, jobs with parsed requests and a running list, driven
 * through the same policy code the daemon uses (policy.c, backfill.c,
 * policy_conservative.c, place.c), with no server, database or sockets:
 * starting a job applies its allocation to the nodes and links it into
 * the running list, as the daemon's lifecycle_start() does, and its state
 * changes through job_state.h as the daemon's do.  Not linked into the
 * daemon.
 */
#ifndef HPCQ_SIM_CLUSTER_H
#define HPCQ_SIM_CLUSTER_H

#include "scheduler/policy/policy.h"

struct cluster {
    struct node *node; /* nnodes records */
    struct node **ptr; /* pointers to them, the policy's view */
    int nnodes;
    struct job **job; /* every job made, owned */
    int njobs, cap;
    struct job_list running; /* newest first */
    int64_t now;
    int nstarted; /* starts since cluster_create */
};

struct cluster *cluster_create (int nnodes);
void cluster_destroy (struct cluster *c);

/* Node i: cores, memory, GPUs of one model, labels ("" for none). */
void cluster_node (struct cluster *c, int i, int ncpus, int64_t mem, int ngpus,
                   const char *model, const char *labels);
/* Put GPU g of node i in MIG mode with n instances of profile. */
void cluster_mig (struct cluster *c, int i, int g, const char *profile, int n);

/* A queued job with the given -l list (e.g. "select=2:ncpus=4,walltime=60");
 * aborts on a bad list (tests write them). */
struct job *cluster_job (struct cluster *c, int64_t seq, const char *list,
                         int priority);

/* Start job on a at time now: apply, link into running. */
void cluster_start (struct cluster *c, struct job *job, struct alloc *a);
/* End a running job: release, unlink, finished ('F'). */
void cluster_end (struct cluster *c, struct job *job);
/* Take a running job back: release, unlink, queued again ('Q'). */
void cluster_requeue (struct cluster *c, struct job *job);

/* A policy context over the cluster for the given queued jobs: fit
 * places on the nodes' free resources, start calls cluster_start. */
void cluster_ctx (struct cluster *c, struct policy_ctx *ctx, struct job **queued,
                  int nqueued);

#endif
