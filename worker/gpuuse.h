/* gpuuse.h - what a job used of its GPUs, for its record: GPU time held,
 * mean utilisation, peak memory and energy (resources_used.gpu_hours,
 * gpu_util_mean, gpu_mem_peak, gpu_energy_j; issue 26 part 3), and, while
 * it runs, each of its GPUs' latest figures (node.usage, worker/usage.h;
 * the scheduler's per-job GPU series in /metrics).
 *
 * Real GPUs are read through NVML every telemetry_interval (gpumon.h);
 * each reading counts for the time since the job's previous one, on each
 * GPU the job holds.  Simulated GPUs have no readings: a worker may give
 * them fixed figures (sim_gpu_util %, sim_gpu_power W, sim_gpu_mem_used),
 * so that tests can assert exact totals; the record then says simulated.
 * Without those the simulated figures are 0: nothing is invented.
 * GPU time is what the job held: its GPUs times its wall time.
 */
#ifndef HPCQ_WORKER_GPUUSE_H
#define HPCQ_WORKER_GPUUSE_H

#include <jansson.h>
#include <stdint.h>

#include "common/gpu.h"

struct gpu_sample;

/* Fixed figures for simulated GPUs (the worker's sim_gpu_* settings). */
struct gpuuse_sim {
    double util;  /* % */
    double power; /* W */
    int64_t mem;  /* bytes in use on each GPU */
};

/* One GPU of the job: its latest reading and its energy so far. */
struct gpuuse_gpu {
    int index;       /* the node's GPU */
    double util;     /* %, at the last reading; -1 none yet */
    int64_t mem;     /* bytes in use at the last reading; -1 none yet */
    double energy_j; /* since the job started */
};

struct gpuuse {
    int ngpus;
    int simulated;
    int64_t last_ms;  /* when the last reading was counted */
    double util_ms;   /* utilisation % x GPU-milliseconds read */
    double read_ms;   /* GPU-milliseconds covered by readings */
    double energy_j;  /* from readings */
    int64_t mem_peak; /* bytes, the most any one of its GPUs held */
    struct gpuuse_gpu gpu[GPU_MAX];
};

/* A job starting now (now_ms) on the node's GPUs gpus[0..ngpus-1]
 * (GPU_MAX at most), simulated or not. */
void gpuuse_start (struct gpuuse *u, const int *gpus, int ngpus, int simulated,
                   int64_t now_ms);

/* Count the readings of the job's GPUs (the samples of its GPUs) for the
 * time since the last ones. */
void gpuuse_read (struct gpuuse *u, const struct gpu_sample *s, int ns, int64_t now_ms);

/* The job's figures after wall seconds of holding its GPUs:
 * {gpu_seconds, gpu_util_mean, gpu_mem_peak, gpu_energy_j, gpu_simulated}
 * and, with per_gpu, "gpus": [{index, energy_j, util?, mem?}] (util and
 * mem absent before a first reading).  New reference, or NULL for a job
 * without GPUs. */
json_t *gpuuse_json (const struct gpuuse *u, int64_t wall, const struct gpuuse_sim *sim,
                     int per_gpu);

#endif
