/* sim_engine.h - a workload replayed in virtual time through a policy.
 *
 * The engine owns the simulated nodes and jobs and drives one of the
 * daemon's policies (policy_lookup) through the same struct policy_ctx the
 * daemon fills: at each instant where something happens it ends the jobs
 * whose real run time is over (or whose walltime ran out), adds the
 * arrivals, and runs one policy pass.  fit is place_job() on the
 * simulated nodes, start applies the allocation and records the start.
 *
 * With a scenario of interruptions (sim_interrupt.h) nodes are also taken
 * away: a spot node's reclaim comes with notice (it drains: nothing new
 * starts there, and jobs that checkpoint at a notice write one and are
 * requeued), then the node is gone for a while, as is a node that fails;
 * the jobs still on it are requeued and their next attempt restarts from
 * their last checkpoint, or from the start.  What each attempt cost, in
 * node time lost, node time checkpointing and money, is counted.
 */
#ifndef HPCQ_SIM_SIM_ENGINE_H
#define HPCQ_SIM_SIM_ENGINE_H

#include <stdint.h>

#include "common/error.h"
#include "scheduler/policy/policy.h"
#include "sim/sim_interrupt.h"
#include "sim/sim_trace.h"

struct sim_cluster {
    int nodes;
    int cores;              /* per node */
    int gpus;               /* per node */
    const char *mig_layout; /* every node's GPUs' MIG layout (the worker's
                             * mig_layout syntax), NULL = whole GPUs */
};

/* What happened to one job of the trace. */
struct sim_outcome {
    int skipped;          /* 1: larger than the cluster, never submitted */
    int64_t start, end;   /* virtual seconds: first start, last end */
    int cores, gpus;      /* what its (last) allocation holds */
    int64_t work;         /* its run time: the trace's, cut at its walltime */
    int attempts;         /* 1 unless interrupted */
    double core_s, gpu_s; /* held over all attempts */
    double share;         /* node equivalents its allocation holds */
    double lost_node_s;   /* node-seconds of work lost to interruptions */
    double ckpt_node_s;   /* node-seconds checkpointing and restarting */
    double cost;          /* node prices times the time held */
};

/* One point of the time series: the state from time on. */
struct sim_sample {
    int64_t time;
    int queued;
    int cores_used;
    int gpus_used;
};

struct sim_run {
    const char *policy;      /* the policy's name (static) */
    const char *scenario;    /* the scenario's name, NULL without interruptions */
    const char *ckpt;        /* the checkpoint policy's name, NULL likewise */
    int reclaims, failures;  /* node interruptions that happened */
    int interrupted;         /* attempts cut short by them */
    struct sim_outcome *out; /* one per trace job, same order */
    int njobs;
    struct sim_sample *series; /* one per instant, in time order */
    int nseries;
    double cpu_s; /* CPU seconds the replay took */
};

/* Check cluster c's description (its MIG layout).  0, or -1 with err. */
int sim_cluster_check (const struct sim_cluster *c, struct hpcq_error *err);

/* Replay t on cluster c with policy ops, under scenario sc with
 * checkpoint policy ck (both NULL: nothing is interrupted, every node
 * on-demand at price 1).  Fills run (release it with sim_run_release()).
 * 0, or -1 with err. */
int sim_engine_run (const struct sim_trace *t, const struct sim_cluster *c,
                    const struct policy_ops *ops, const struct sim_scenario *sc,
                    const struct sim_ckpt *ck, struct sim_run *run,
                    struct hpcq_error *err);

void sim_run_release (struct sim_run *run);

#endif
