/* gpu.h - the GPUs a worker offers: found through NVML, or simulated.
 *
 * NVML is loaded at run time (dlopen), so one worker binary runs on nodes
 * with and without the NVIDIA driver.  Simulated GPUs (config gpus=N) let
 * everything be tested on a machine without one; they are reported as
 * simulated and jobs see their indices in CUDA_VISIBLE_DEVICES.
 */
#ifndef HPCQ_WORKER_GPU_H
#define HPCQ_WORKER_GPU_H

#include <stdint.h>
#include <jansson.h>

#include "common/error.h"

#define GPU_MAX 16
#define GPU_MIG_MAX 8       /* MIG instances per GPU (an A100 or H100 has at most 7) */

/* One MIG instance: what a job in it sees as its GPU. */
struct gpu_mig {
    char profile[16];       /* "1g.5gb": compute slices and memory */
    char uuid[96];          /* "MIG-..." on real hardware, "MIG-SIM-..." simulated */
};

struct gpu_info {
    int index;
    char model[96];
    int64_t mem;
    char uuid[96];          /* "GPU-..." on real hardware */
    int simulated;
    int nmig;               /* > 0: in MIG mode, with these instances */
    struct gpu_mig mig[GPU_MIG_MAX];
};

/* Fill gpus (up to GPU_MAX) and return how many.  simulated > 0 means use
 * that many simulated GPUs of the given model and memory instead of NVML.
 * Returns 0 when there are none (no driver is not an error). */
int gpu_discover (struct gpu_info *gpus, int simulated, const char *model,
                  int64_t mem);

/* Give simulated GPUs a MIG layout: "GPU:PROFILE[*N][+PROFILE[*N]...]"
 * terms separated by ';', e.g. "0:1g.5gb*7;1:3g.20gb+4g.20gb".  At most 7
 * compute slices per GPU.  Instances get the UUIDs MIG-SIM-<node>-<gpu>-<i>.
 * Returns 0, or -1 with err (nothing changed). */
int gpu_mig_layout (struct gpu_info *gpus, int n, const char *layout,
                    const char *node, struct hpcq_error *err);

/* JSON array for node.hello (new reference). */
json_t *gpu_to_json (const struct gpu_info *gpus, int n);

/* CUDA_VISIBLE_DEVICES value for the given indices into gpus, and the MIG
 * instance mig = { gpu, instance } unless NULL (by its UUID, as CUDA
 * wants MIG instances named). */
void gpu_visible_devices (const struct gpu_info *gpus, int ngpus,
                          const int *idx, int n, const int *mig, char *buf, int len);

#endif
