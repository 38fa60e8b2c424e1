/* gpumon.h - the GPUs' telemetry and health, read from NVML.
 *
 * For real GPUs only (a worker with simulated GPUs, or none, has no
 * monitor: nothing invented is ever reported).  Every telemetry_interval
 * seconds (default 10) the worker reads, per GPU: utilisation, memory
 * used and free, temperature, power, SM clock, volatile ECC errors,
 * retired pages and the last XID error (NVML's XID events), and sends
 * them to the scheduler as node.telemetry, which exports them under
 * DCGM exporter's names (scheduler/telemetry.h).  The same readings decide
 * the GPUs' health (gpumon_verdict), which the node's health check path
 * reports (health.h).
 *
 * NVML is loaded with dlopen, as gpu.c does, and kept loaded.  The reading
 * goes through a table of NVML's entry points (struct nvml_api) so that
 * the conversion from NVML's values and units to the report's can be
 * tested without a GPU.
 */
#ifndef HPCQ_WORKER_GPUMON_H
#define HPCQ_WORKER_GPUMON_H

#include <jansson.h>
#include <stddef.h>

#include "worker/gpu.h"

/* NVML's return codes that matter here (nvml.h). */
#define NVML_OK 0
#define NVML_NOT_SUPPORTED 3
#define NVML_INSUFFICIENT_SIZE 7
#define NVML_TIMEOUT 10

/* nvmlUtilization_t, nvmlMemory_t and nvmlEventData_t as nvml.h lays them
 * out. */
struct nvml_utilization {
    unsigned int gpu, memory;
};
struct nvml_memory {
    unsigned long long total, free, used;
};
struct nvml_event {
    void *device;
    unsigned long long type, data;
    unsigned int gpu_instance, compute_instance;
};

/* NVML's entry points, with their C signatures (NULL: not in this driver). */
struct nvml_api {
    int (*utilization) (void *dev, struct nvml_utilization *u);
    int (*memory) (void *dev, struct nvml_memory *m);
    int (*temperature) (void *dev, int sensor, unsigned int *t);
    int (*power) (void *dev, unsigned int *mw);
    int (*clock) (void *dev, int type, unsigned int *mhz);
    int (*ecc) (void *dev, int error_type, int counter_type, unsigned long long *n);
    int (*retired) (void *dev, int cause, unsigned int *count,
                    unsigned long long *addrs);
    int (*retired_pending) (void *dev, int *pending);
    int (*event_wait) (void *set, struct nvml_event *e, unsigned int timeout_ms);
};

/* One GPU's reading; a field NVML could not give has its bit clear. */
enum {
    GS_UTIL = 1 << 0,
    GS_MEM_UTIL = 1 << 1,
    GS_FB = 1 << 2,
    GS_TEMP = 1 << 3,
    GS_POWER = 1 << 4,
    GS_SM_CLOCK = 1 << 5,
    GS_ECC_SBE = 1 << 6,
    GS_ECC_DBE = 1 << 7,
    GS_RETIRED = 1 << 8,
    GS_PENDING = 1 << 9,
};

struct gpu_sample {
    int index; /* position in the worker's GPU list */
    char uuid[96], model[96];
    unsigned have;
    unsigned util, mem_util; /* % */
    double fb_used, fb_free; /* MiB */
    unsigned temp;           /* C */
    double power;            /* W */
    unsigned sm_clock;       /* MHz */
    unsigned long long ecc_sbe, ecc_dbe;
    unsigned retired_sbe, retired_dbe;
    int retired_pending;
    unsigned long long xid; /* the last XID seen since the worker started, 0 none */
};

/* Read one GPU (its NVML handle dev) into s, keeping s's identity and xid. */
void gpumon_read (const struct nvml_api *api, void *dev, struct gpu_sample *s);

/* The node.telemetry body for n samples (new reference). */
json_t *gpumon_json (const struct gpu_sample *s, int n);

/* 0 if the GPUs are healthy, else -1 and one line why in reason: an XID
 * that needs a node drained (48 double-bit ECC, 74 NVLink, 79 fallen off
 * the bus, ...: gpumon.c lists them), uncorrectable (double-bit) volatile
 * ECC errors, or a page retirement waiting for a GPU reset. */
int gpumon_verdict (const struct gpu_sample *s, int n, char *reason, size_t len);

/* 1 if XID x is one that takes a node out of service. */
int gpumon_xid_critical (unsigned long long x);

struct gpumon;

/* A monitor of the worker's real GPUs, or NULL if there are none (none,
 * simulated, or NVML not loadable: logged). */
struct gpumon *gpumon_create (const struct gpu *gpus, int ngpus);
void gpumon_destroy (struct gpumon *g);

/* Read every GPU now (XID events included); the samples stay in g. */
void gpumon_sample (struct gpumon *g);
const struct gpu_sample *gpumon_samples (const struct gpumon *g, int *n);

#endif
