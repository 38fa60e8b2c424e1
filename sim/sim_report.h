/* sim_report.h - what hpcq-sim tells: metrics per policy, as a table, as
 * JSON, per job as CSV, and as a chart of queue length and utilization
 * over time (PNG, when built with libpng).
 *
 * Metrics, over the jobs that ran (skipped ones excluded):
 *   wait = (first) start - arrival; bounded slowdown (tau = 10 s)
 *   bsld = max(1, (end - arrival) / max(run, 10)), averaged, run being
 *   the job's run time (its work: attempts and checkpoints make it no
 *   longer);
 *   makespan = last end - first arrival;
 *   utilization = core-seconds held / (cluster cores x makespan),
 *   and the same for GPUs when the cluster has any.
 * With interruptions (sim_interrupt.h), per run also: the node-hours of
 * work lost, the node-hours spent checkpointing and restarting, the
 * attempts, what the nodes held cost, and that cost against the same
 * policy's run on an all-on-demand cluster (scenario "on-demand": nothing
 * interrupted, no checkpoints).
 */
#ifndef HPCQ_SIM_SIM_REPORT_H
#define HPCQ_SIM_SIM_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "sim/sim_engine.h"
#include "sim/sim_trace.h"

#define SIM_BSLD_TAU 10

struct sim_metrics {
    int jobs;     /* that ran */
    int attempts; /* over all jobs */
    double lost_node_h, ckpt_node_h, cost;
    int skipped; /* larger than the cluster */
    double utilization;
    double gpu_utilization; /* 0 without GPUs */
    double mean_wait;
    int64_t max_wait;
    double mean_bsld;
    int64_t first_arrival, last_end, makespan;
};

/* What was replayed, and the runs (one per policy). */
struct sim_report {
    const char *trace_path;
    const struct sim_trace *trace;
    const struct sim_cluster *cluster;
    const struct sim_run *runs;
    int nruns;
    int interrupts; /* runs have scenarios: report their figures */
};

void sim_metrics_compute (const struct sim_report *rep, const struct sim_run *run,
                          struct sim_metrics *m);

/* A table, one row per policy. */
void sim_report_table (const struct sim_report *rep, FILE *f);

/* The same as JSON into path ("-" = stdout).  0, or -1 with err. */
int sim_report_json (const struct sim_report *rep, const char *path,
                     struct hpcq_error *err);

/* One CSV line per job and policy: policy,id,submit,start,end,cores,gpus
 * (skipped jobs have empty start and end).  0, or -1 with err. */
int sim_report_jobs (const struct sim_report *rep, const char *path,
                     struct hpcq_error *err);

/* Queue length (top) and core utilization (bottom) over virtual time, one
 * line per policy; with interruptions instead, bars per scenario (one per
 * checkpoint policy): node-hours lost (top) and cost against the
 * all-on-demand run (bottom).  0, or -1 with err (also when built without
 * libpng). */
int sim_report_png (const struct sim_report *rep, const char *path,
                    struct hpcq_error *err);

#endif
