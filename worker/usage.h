/* usage.h - what the jobs running here have used so far, for the
 * scheduler's resources_used while they run (PBS MoM updates cput, mem
 * and walltime as a job runs; qstat -f and the Time Use column show them).
 *
 * Sent as node.usage every usage_interval seconds (30 by default), apart
 * from the heartbeat: reading the jobs' cgroups is not free, and a
 * heartbeat must stay cheap.
 */
#ifndef HPCQ_WORKER_USAGE_H
#define HPCQ_WORKER_USAGE_H

#include <jansson.h>

struct tasks;

/* [{seq, attempt, cput (seconds, -1 unknown), mem (bytes, peak; absent
 * if unknown)}, and for a job with GPUs its figures so far and each GPU's
 * latest (gpuuse_json's, per GPU)] for each running task, or NULL if none
 * (new reference). */
json_t *usage_json (struct tasks *ts);

#endif
