/* metrics.h - what the scheduler exports to Prometheus (GET /metrics).
 *
 * Counters and histograms are kept here as things happen: the job events
 * lifecycle.h reports (submissions, starts, ends by exit class, requeues,
 * suspensions), how long jobs waited for their first start, how long each
 * scheduling pass and each database commit took.  Gauges (jobs by state,
 * queue and user; nodes by state; cores, memory, GPUs and MIG instances
 * allocated against what there is, per node and in all; the GPUs'
 * telemetry, telemetry.h) are read from the other modules when scraped.
 * Names follow Prometheus's conventions: base units, _total for counters,
 * hpcq_ first; the GPU telemetry keeps DCGM exporter's names.
 *
 * Preemptions, spot reclaims, checkpoints and cost (issue 12) are counted
 * as the modules that do them report them (preempt.c, reclaim.c, ckpt.c,
 * cost.c), per queue, or per node class for the nodes' reclaims.
 *
 * What the core calls to count is metrics_count.h (included here).
 *
 * Counters start at zero when the scheduler starts: Prometheus's rate()
 * and increase() take a reset as one (hpcq_scheduler_start_time_seconds
 * says when); the totals since the beginning are hpcq-report's, read from
 * the database (docs/metrics.md).
 */
#ifndef HPCQ_SCHEDULER_WEB_METRICS_H
#define HPCQ_SCHEDULER_WEB_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "scheduler/policy/job_state.h"
#include "scheduler/server.h"
#include "scheduler/web/metrics_count.h"

struct config;
struct hpcq_error;
struct job;
struct node;
struct http;
struct metrics;

struct metrics *metrics_create (struct server *srv);
void metrics_destroy (struct metrics *m);

/* The scheduler's settings for the metrics: metrics_job_gpu (true or
 * false, default false) turns on the per-job GPU series
 * (hpcq_job_gpu_*{jobid,user,node,gpu,simulated}), shown to those who may
 * see every job in full.  0, or -1 with err. */
int metrics_configure (struct metrics *m, const struct config *cfg,
                       struct hpcq_error *err);

/* Serve GET /metrics on h (nothing if h is NULL).  0 or -1. */
int metrics_register (struct metrics *m, struct http *h);

/* The whole exposition (text format 0.0.4) to f.  per_user: include the
 * per-user series (hpcq_user_jobs), which name who runs what.  recount:
 * count the jobs anew from every job rather than read the counts jobs.c
 * keeps (GET /metrics?recount=1: a check, and the bench's baseline).
 * 0 or -1 on a write error. */
int metrics_render (struct metrics *m, FILE *f, int per_user, int recount);

/* How a job ended, as the label exit_class says it: "success" (0),
 * "failure" (1-255), "signal" (killed by a signal: 256 + its number),
 * "walltime" (killed at its walltime), "node_lost", "deleted" (by qdel),
 * "system" (another of PBS's negative codes: it could not start...). */
const char *metrics_exit_class (int exit_status, int deleted);

/* One Prometheus label value, escaped (\\, \", \n) into f. */
void metrics_put_label (FILE *f, const char *value);

#endif
