/* gpu.h - the GPUs a worker offers (struct gpu, common/gpu.h): found
 * through NVML, or simulated.
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
#include "common/gpu.h"

/* Fill gpus (up to GPU_MAX) and return how many.  simulated > 0 means use
 * that many simulated GPUs of the given model and memory instead of NVML.
 * Returns 0 when there are none (no driver is not an error). */
int gpu_discover (struct gpu *gpus, int simulated, const char *model, int64_t mem);

/* CUDA_VISIBLE_DEVICES value for the given indices into gpus, and the MIG
 * instance mig = { gpu, instance } unless NULL (by its UUID, as CUDA
 * wants MIG instances named). */
void gpu_visible_devices (const struct gpu *gpus, int ngpus, const int *idx, int n,
                          const int *mig, char *buf, int len);

#endif
