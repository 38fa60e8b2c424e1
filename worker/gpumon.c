/* gpumon.c - see gpumon.h
 *
 * NVML's documented entry points and constants (nvml.h): facts of the
 * interface, as gpu.c uses them.  Which XIDs need a node taken out of
 * service follows NVIDIA's XID catalogue ("Xid errors", the GPU deployment
 * and management documentation) and what DCGM's health watches act on.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "worker/gpumon.h"

#define NVML_TEMPERATURE_GPU 0
#define NVML_CLOCK_SM 1
#define NVML_ECC_CORRECTED 0
#define NVML_ECC_UNCORRECTED 1
#define NVML_ECC_VOLATILE 0
#define NVML_RETIRE_SBE 0     /* multiple single-bit errors */
#define NVML_RETIRE_DBE 1     /* a double-bit error */
#define NVML_EVENT_XID 0x8ULL /* nvmlEventTypeXidCriticalError */

/* XIDs after which the node should run no more jobs until someone looks:
 * 48 double-bit ECC error, 61/62 internal micro-controller faults, 63/64
 * ECC page retirement or row remapping recorded/failed, 74 NVLink error,
 * 79 GPU has fallen off the bus, 92 high single-bit ECC rate, 94/95
 * contained/uncontained ECC error, 119/120 GSP errors, 140 unrecovered
 * ECC error.  Application faults (13, 31, 43, 45...) are the job's. */
static const unsigned long long critical_xids[] = { 48, 61, 62, 63,  64,  74, 79,
                                                    92, 94, 95, 119, 120, 140 };

int gpumon_xid_critical (unsigned long long x)
{
    for (size_t i = 0; i < ARRAY_SIZE (critical_xids); i++)
        if (critical_xids[i] == x)
            return 1;
    return 0;
}

void gpumon_read (const struct nvml_api *api, void *dev, struct gpu_sample *s)
{
    struct nvml_utilization u;
    struct nvml_memory m;
    unsigned int v, sbe_pages = 0, dbe_pages = 0;
    unsigned long long n;
    int pending, rc1, rc2;

    s->have = 0;
    if (api->utilization && api->utilization (dev, &u) == NVML_OK) {
        s->util = u.gpu;
        s->mem_util = u.memory;
        s->have |= GS_UTIL | GS_MEM_UTIL;
    }
    if (api->memory && api->memory (dev, &m) == NVML_OK) {
        /* DCGM reports the framebuffer in MiB. */
        s->fb_used = (double)m.used / (1024.0 * 1024.0);
        s->fb_free = (double)m.free / (1024.0 * 1024.0);
        s->have |= GS_FB;
    }
    if (api->temperature
        && api->temperature (dev, NVML_TEMPERATURE_GPU, &v) == NVML_OK) {
        s->temp = v;
        s->have |= GS_TEMP;
    }
    if (api->power && api->power (dev, &v) == NVML_OK) {
        s->power = v / 1000.0; /* NVML: milliwatts */
        s->have |= GS_POWER;
    }
    if (api->clock && api->clock (dev, NVML_CLOCK_SM, &v) == NVML_OK) {
        s->sm_clock = v;
        s->have |= GS_SM_CLOCK;
    }
    if (api->ecc
        && api->ecc (dev, NVML_ECC_CORRECTED, NVML_ECC_VOLATILE, &n) == NVML_OK) {
        s->ecc_sbe = n;
        s->have |= GS_ECC_SBE;
    }
    if (api->ecc
        && api->ecc (dev, NVML_ECC_UNCORRECTED, NVML_ECC_VOLATILE, &n) == NVML_OK) {
        s->ecc_dbe = n;
        s->have |= GS_ECC_DBE;
    }
    /* With a zero count NVML only says how many there are (or that the
     * buffer is too small, with the count). */
    if (api->retired) {
        rc1 = api->retired (dev, NVML_RETIRE_SBE, &sbe_pages, NULL);
        rc2 = api->retired (dev, NVML_RETIRE_DBE, &dbe_pages, NULL);
        if ((rc1 == NVML_OK || rc1 == NVML_INSUFFICIENT_SIZE)
            && (rc2 == NVML_OK || rc2 == NVML_INSUFFICIENT_SIZE)) {
            s->retired_sbe = sbe_pages;
            s->retired_dbe = dbe_pages;
            s->have |= GS_RETIRED;
        }
    }
    if (api->retired_pending && api->retired_pending (dev, &pending) == NVML_OK) {
        s->retired_pending = pending != 0;
        s->have |= GS_PENDING;
    }
}

json_t *gpumon_json (const struct gpu_sample *s, int n)
{
    json_t *gpus = json_array ();

    for (int i = 0; gpus && i < n; i++) {
        json_t *o =
            json_pack ("{s:i s:s s:s s:I}", "index", s[i].index, "uuid", s[i].uuid,
                       "model", s[i].model, "xid", (json_int_t)s[i].xid);
        if (!o)
            continue;
        if (s[i].have & GS_UTIL)
            json_object_set_new (o, "util", json_integer (s[i].util));
        if (s[i].have & GS_MEM_UTIL)
            json_object_set_new (o, "mem_util", json_integer (s[i].mem_util));
        if (s[i].have & GS_FB) {
            json_object_set_new (o, "fb_used", json_real (s[i].fb_used));
            json_object_set_new (o, "fb_free", json_real (s[i].fb_free));
        }
        if (s[i].have & GS_TEMP)
            json_object_set_new (o, "temp", json_integer (s[i].temp));
        if (s[i].have & GS_POWER)
            json_object_set_new (o, "power", json_real (s[i].power));
        if (s[i].have & GS_SM_CLOCK)
            json_object_set_new (o, "sm_clock", json_integer (s[i].sm_clock));
        if (s[i].have & GS_ECC_SBE)
            json_object_set_new (o, "ecc_sbe", json_integer ((json_int_t)s[i].ecc_sbe));
        if (s[i].have & GS_ECC_DBE)
            json_object_set_new (o, "ecc_dbe", json_integer ((json_int_t)s[i].ecc_dbe));
        if (s[i].have & GS_RETIRED) {
            json_object_set_new (o, "retired_sbe", json_integer (s[i].retired_sbe));
            json_object_set_new (o, "retired_dbe", json_integer (s[i].retired_dbe));
        }
        if (s[i].have & GS_PENDING)
            json_object_set_new (o, "retired_pending",
                                 json_integer (s[i].retired_pending));
        json_array_append_new (gpus, o);
    }
    return json_pack ("{s:o}", "gpus", gpus);
}

int gpumon_verdict (const struct gpu_sample *s, int n, char *reason, size_t len)
{
    for (int i = 0; i < n; i++) {
        if (gpumon_xid_critical (s[i].xid)) {
            snprintf (reason, len, "GPU %d (%s): XID %llu", s[i].index, s[i].uuid,
                      s[i].xid);
            return -1;
        }
        if ((s[i].have & GS_ECC_DBE) && s[i].ecc_dbe > 0) {
            snprintf (reason, len, "GPU %d (%s): %llu uncorrectable ECC errors",
                      s[i].index, s[i].uuid, s[i].ecc_dbe);
            return -1;
        }
        if ((s[i].have & GS_PENDING) && s[i].retired_pending) {
            snprintf (reason, len,
                      "GPU %d (%s): a page retirement waits for a GPU reset",
                      s[i].index, s[i].uuid);
            return -1;
        }
    }
    return 0;
}

/* ---- the monitor of real GPUs ------------------------------------------- */

typedef int (*nvml_void_f) (void);
typedef int (*nvml_handle_f) (unsigned int, void **);
typedef int (*nvml_set_create_f) (void **);
typedef int (*nvml_register_f) (void *, unsigned long long, void *);
typedef int (*nvml_set_free_f) (void *);

struct gpumon {
    void *lib;
    struct nvml_api api;
    nvml_void_f shutdown;
    nvml_set_free_f set_free;
    void *events; /* NVML event set for XIDs, or NULL */
    void *dev[GPU_MAX];
    struct gpu_sample s[GPU_MAX];
    int n;
};

static void gpumon_load (struct gpumon *g)
{
    void *l = g->lib;

    g->api.utilization =
        (int (*) (void *,
                  struct nvml_utilization *))dlsym (l, "nvmlDeviceGetUtilizationRates");
    g->api.memory =
        (int (*) (void *, struct nvml_memory *))dlsym (l, "nvmlDeviceGetMemoryInfo");
    g->api.temperature =
        (int (*) (void *, int, unsigned int *))dlsym (l, "nvmlDeviceGetTemperature");
    g->api.power =
        (int (*) (void *, unsigned int *))dlsym (l, "nvmlDeviceGetPowerUsage");
    g->api.clock =
        (int (*) (void *, int, unsigned int *))dlsym (l, "nvmlDeviceGetClockInfo");
    g->api.ecc =
        (int (*) (void *, int, int,
                  unsigned long long *))dlsym (l, "nvmlDeviceGetTotalEccErrors");
    g->api.retired =
        (int (*) (void *, int, unsigned int *,
                  unsigned long long *))dlsym (l, "nvmlDeviceGetRetiredPages");
    g->api.retired_pending =
        (int (*) (void *, int *))dlsym (l, "nvmlDeviceGetRetiredPagesPendingStatus");
    if (!(g->api.event_wait = (int (*) (void *, struct nvml_event *,
                                        unsigned int))dlsym (l, "nvmlEventSetWait_v2")))
        g->api.event_wait = (int (*) (void *, struct nvml_event *,
                                      unsigned int))dlsym (l, "nvmlEventSetWait");
    g->shutdown = (nvml_void_f)dlsym (l, "nvmlShutdown");
    g->set_free = (nvml_set_free_f)dlsym (l, "nvmlEventSetFree");
}

/* Ask NVML for XID events of every GPU (not every GPU supports them). */
static void gpumon_events (struct gpumon *g)
{
    nvml_set_create_f create = (nvml_set_create_f)dlsym (g->lib, "nvmlEventSetCreate");
    nvml_register_f reg = (nvml_register_f)dlsym (g->lib, "nvmlDeviceRegisterEvents");

    if (!create || !reg || !g->api.event_wait || create (&g->events) != NVML_OK) {
        g->events = NULL;
        log_msg (LOG_WARNING, "NVML: no XID events on this driver");
        return;
    }
    for (int i = 0; i < g->n; i++)
        if (reg (g->dev[i], NVML_EVENT_XID, g->events) != NVML_OK)
            log_msg (LOG_WARNING, "NVML: GPU %d gives no XID events", g->s[i].index);
}

struct gpumon *gpumon_create (const struct gpu *gpus, int ngpus)
{
    struct gpumon *g;
    nvml_void_f init;
    nvml_handle_f handle;
    int real = 0;

    for (int i = 0; i < ngpus; i++)
        real += !gpus[i].simulated;
    if (real == 0)
        return NULL; /* simulated GPUs report no telemetry */
    g = xzalloc (sizeof (*g));
    if (!(g->lib = dlopen ("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL))
        || !(init = (nvml_void_f)dlsym (g->lib, "nvmlInit_v2"))
        || !(handle = (nvml_handle_f)dlsym (g->lib, "nvmlDeviceGetHandleByIndex_v2"))
        || init () != NVML_OK) {
        log_msg (LOG_WARNING, "NVML cannot be loaded: no GPU telemetry or GPU health");
        if (g->lib)
            dlclose (g->lib);
        free (g);
        return NULL;
    }
    gpumon_load (g);
    for (int i = 0; i < ngpus; i++) {
        if (gpus[i].simulated
            || handle ((unsigned)gpus[i].index, &g->dev[g->n]) != NVML_OK)
            continue;
        g->s[g->n].index = i;
        snprintf (g->s[g->n].uuid, sizeof (g->s[0].uuid), "%s", gpus[i].uuid);
        snprintf (g->s[g->n].model, sizeof (g->s[0].model), "%s", gpus[i].model);
        g->n++;
    }
    gpumon_events (g);
    log_msg (LOG_INFO, "NVML: monitoring %d GPUs", g->n);
    return g;
}

void gpumon_destroy (struct gpumon *g)
{
    if (!g)
        return;
    if (g->events && g->set_free)
        g->set_free (g->events);
    if (g->shutdown)
        g->shutdown ();
    dlclose (g->lib);
    free (g);
}

/* XIDs that happened since the last look: each GPU keeps its last. */
static void gpumon_drain_events (struct gpumon *g)
{
    struct nvml_event e;

    if (!g->events)
        return;
    for (int k = 0; k < 64 && g->api.event_wait (g->events, &e, 0) == NVML_OK; k++) {
        if (!(e.type & NVML_EVENT_XID))
            continue;
        for (int i = 0; i < g->n; i++)
            if (g->dev[i] == e.device) {
                g->s[i].xid = e.data;
                log_msg (gpumon_xid_critical (e.data) ? LOG_ERR : LOG_WARNING,
                         "GPU %d (%s): XID %llu", g->s[i].index, g->s[i].uuid, e.data);
            }
    }
}

void gpumon_sample (struct gpumon *g)
{
    gpumon_drain_events (g);
    for (int i = 0; i < g->n; i++)
        gpumon_read (&g->api, g->dev[i], &g->s[i]);
}

const struct gpu_sample *gpumon_samples (const struct gpumon *g, int *n)
{
    *n = g ? g->n : 0;
    return g ? g->s : NULL;
}
