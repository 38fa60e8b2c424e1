/* climate_gpu.h - the CUDA back end, when built with it.
 *
 * The fields live in unified memory (cudaMallocManaged) and are prefetched
 * to the device once, so the time loop runs without page faults; the host
 * touches them only for output, checkpoints and halo buffers between ranks.
 */
#ifndef HPCQ_APPS_CLIMATE_CLIMATE_GPU_H
#define HPCQ_APPS_CLIMATE_CLIMATE_GPU_H

#ifdef __cplusplus
extern "C" {
#endif

struct climate_model;
struct climate_backend;

/* The GPU back end using device local_rank % (number of devices), or NULL
 * when built without CUDA or no device is usable; then why (size n) says
 * which. */
const struct climate_backend *climate_gpu_backend (int local_rank, char *why, int n);

/* Move the model's arrays to the device (call after initialisation). */
void climate_gpu_prefetch (struct climate_model *m);

#ifdef __cplusplus
}
#endif

#endif
