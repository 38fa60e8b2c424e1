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
 * Not yet here, because the concepts do not exist yet (issue 12): spot
 * reclaims, checkpoints and cost.  Their counters belong in struct
 * metrics_queue next to requeued and suspended, bumped from
 * metrics_job_event for the events issue 12 adds (docs/metrics.md).
 */
#ifndef HPCQ_SCHEDULER_METRICS_H
#define HPCQ_SCHEDULER_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "scheduler/job_state.h"
#include "scheduler/server.h"

struct job;
struct http;
struct metrics;

struct metrics *metrics_create (struct server *srv);
void metrics_destroy (struct metrics *m);

/* Serve GET /metrics on h (nothing if h is NULL).  0 or -1. */
int metrics_register (struct metrics *m, struct http *h);

/* lifecycle.h's hook: job moved from state old because of ev. */
void metrics_job_event (struct metrics *m, const struct job *job, char old,
                        enum job_event ev);

/* One scheduling pass, one commit and one HTTP answer, as they happen. */
void metrics_pass_observed (struct metrics *m, double seconds);
void metrics_commit_observed (struct metrics *m, double seconds);
void metrics_http_answered (struct metrics *m, int status);

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
