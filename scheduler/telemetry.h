/* telemetry.h - the GPUs' telemetry, as workers report it (node.telemetry).
 *
 * A worker with real GPUs reads NVML every telemetry_interval seconds
 * (worker/gpumon.h) and sends what it read; simulated GPUs send nothing,
 * so nothing invented is ever exported.  The scheduler keeps each node's
 * latest report and exports it under DCGM exporter's names
 * (DCGM_FI_DEV_GPU_UTIL, DCGM_FI_DEV_FB_USED, ...), with its labels gpu,
 * UUID, device, modelName and Hostname, and hpc_job (DCGM exporter's name
 * for it) naming the job that holds the whole GPU.  A report is dropped
 * once its node is down or it is older than TELEMETRY_MAX_AGE_S.
 */
#ifndef HPCQ_SCHEDULER_TELEMETRY_H
#define HPCQ_SCHEDULER_TELEMETRY_H

#include <stdio.h>

#include "scheduler/server.h"

#define TELEMETRY_MAX_AGE_S 120

struct telemetry;

/* Registers the node.telemetry handler.  NULL with errno. */
struct telemetry *telemetry_create (struct server *srv);
void telemetry_destroy (struct telemetry *t);

/* The DCGM-named families for every fresh report to f. */
void telemetry_render (struct telemetry *t, FILE *f);

#endif
