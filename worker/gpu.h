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

#define GPU_MAX 16

struct gpu_info {
    int index;
    char model[96];
    int64_t mem;
    char uuid[96];          /* "GPU-..." on real hardware */
    int simulated;
};

/* Fill gpus (up to GPU_MAX) and return how many.  simulated > 0 means use
 * that many simulated GPUs of the given model and memory instead of NVML.
 * Returns 0 when there are none (no driver is not an error). */
int gpu_discover (struct gpu_info *gpus, int simulated, const char *model,
                  int64_t mem);

/* JSON array for node.hello (new reference). */
json_t *gpu_to_json (const struct gpu_info *gpus, int n);

/* CUDA_VISIBLE_DEVICES value for the given indices into gpus. */
void gpu_visible_devices (const struct gpu_info *gpus, int ngpus,
                          const int *idx, int n, char *buf, int len);

#endif
