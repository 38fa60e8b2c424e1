/* gpu.h - a GPU and its MIG instances: one description for the worker that
 * finds them (worker/gpu.h: NVML, or simulated), the scheduler that places
 * jobs on them and hpcq-sim's simulated nodes.
 *
 * The worker reports its GPUs in node.hello as gpu_to_json writes them and
 * the scheduler reads them back with gpu_from_json.  MIG layouts of
 * simulated GPUs (the worker's mig_layout setting, hpcq-sim --mig) are
 * parsed here, so the worker and the simulator cannot disagree on one.
 */
#ifndef HPCQ_COMMON_GPU_H
#define HPCQ_COMMON_GPU_H

#include <jansson.h>
#include <stdint.h>

#include "common/error.h"

#define GPU_MAX 16
#define GPU_MIG_MAX 8 /* MIG instances per GPU (an A100 or H100 has at most 7) */

/* One MIG instance: what a job in it sees as its GPU. */
struct gpu_mig {
    char profile[16]; /* "1g.5gb": compute slices and memory */
    char uuid[96];    /* "MIG-..." on real hardware, "MIG-SIM-..." simulated */
    int64_t used_by;  /* the scheduler's: job seq or 0 */
};

struct gpu {
    int index;
    char model[96];
    int64_t mem;
    char uuid[96]; /* "GPU-..." on real hardware */
    /* "dddd:bb:dd.f" from NVML, "" if unknown or simulated: how the worker
     * finds the GPU in the node's topology (worker/topo.h). */
    char pci_busid[16];
    /* N of its /dev/nvidiaN (NVML's minor number), -1 if unknown or
     * simulated: the device node a container of the job gets. */
    int minor;
    int simulated;
    int64_t used_by; /* the scheduler's: job seq or 0 (never set in MIG mode) */
    /* > 0: in MIG mode, with these instances; only they are given out, a
     * whole-GPU request never gets the GPU. */
    int nmig;
    struct gpu_mig mig[GPU_MIG_MAX];
};

/* What a job used of its GPUs (the worker's worker/gpuuse.h), as its
 * job.finished carries it: GPU-seconds held, mean utilisation (%), the
 * most memory one of its GPUs held (bytes), energy (J), and whether the
 * GPUs were simulated (figures the worker was configured to give). */
struct gpu_usage {
    int64_t seconds;
    double util_mean;
    int64_t mem_peak;
    double energy_j;
    int simulated;
};

/* Read those figures from a job.finished body: 1 if there, 0 if the job
 * had no GPUs, -1 if malformed or out of bounds (u then zero). */
int gpu_usage_from_json (json_t *body, struct gpu_usage *u);

/* resources_used's GPU attributes for u (gpu_hours, gpu_util_mean,
 * gpu_mem_peak, gpu_energy_j, and gpu_simulated = True if so), as qstat -f
 * shows them, set in o. */
void gpu_usage_attrs (json_t *o, const struct gpu_usage *u);

/* A running job's GPUs as its mother superior last reported them
 * (node.usage, worker/usage.h): its figures so far and each GPU's latest
 * reading (util % and mem bytes -1 before a first one) and energy. */
struct gpu_live {
    struct gpu_usage total;
    int n;
    struct {
        int index;
        double util;
        int64_t mem;
        double energy_j;
    } gpu[GPU_MAX];
};

/* Read those from one node.usage entry: 1 if there, 0 if the job has no
 * GPUs, -1 if malformed or out of bounds (l then zero). */
int gpu_live_from_json (json_t *entry, struct gpu_live *l);

/* Give simulated GPUs a MIG layout: "GPU:PROFILE[*N][+PROFILE[*N]...]"
 * terms separated by ';', e.g. "0:1g.5gb*7;1:3g.20gb+4g.20gb".  At most 7
 * compute slices per GPU.  Instances get the UUIDs MIG-SIM-<node>-<gpu>-<i>.
 * Returns 0, or -1 with err (nothing changed). */
int gpu_mig_layout (struct gpu *gpus, int n, const char *layout, const char *node,
                    struct hpcq_error *err);

/* JSON array for node.hello (new reference). */
json_t *gpu_to_json (const struct gpu *gpus, int n);

/* Read such an array (from a worker: checked) into gpus, GPU_MAX at most;
 * *n gets how many.  Each GPU's index is its position (the scheduler's
 * numbering; the worker maps it to its own).  0, or -1 if malformed (gpus
 * then undefined). */
int gpu_from_json (json_t *arr, struct gpu *gpus, int *n);

#endif
