/* gpu.c - see gpu.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/resource.h"
#include "worker/gpu.h"

/* The few NVML entry points we use, with their documented C signatures. */
typedef int (*nvml_init_f) (void);
typedef int (*nvml_count_f) (unsigned int *);
typedef int (*nvml_handle_f) (unsigned int, void **);
typedef int (*nvml_name_f) (void *, char *, unsigned int);
typedef int (*nvml_meminfo_f) (void *, unsigned long long[3]);
typedef int (*nvml_shutdown_f) (void);
typedef int (*nvml_migmode_f) (void *, unsigned int *, unsigned int *);
typedef int (*nvml_uint_f) (void *, unsigned int *);
typedef int (*nvml_mighandle_f) (void *, unsigned int, void **);

/* nvmlDeviceAttributes_t, as nvml.h lays it out. */
struct nvml_attributes {
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    unsigned int gpuInstanceSliceCount;
    unsigned int computeInstanceSliceCount;
    unsigned long long memorySizeMB;
};
typedef int (*nvml_attr_f) (void *, struct nvml_attributes *);

/* nvmlPciInfo_t, as nvml.h lays it out (nvmlDeviceGetPciInfo_v3). */
struct nvml_pci {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};
typedef int (*nvml_pci_f) (void *, struct nvml_pci *);

/* The MIG entry points: absent from drivers older than MIG (all NULL). */
struct nvml_mig {
    nvml_migmode_f mode;
    nvml_uint_f max_count;
    nvml_mighandle_f handle;
    nvml_name_f uuid;
    nvml_attr_f attributes;
};

#define NVML_DEVICE_MIG_ENABLE 1

static int gpu_simulate (struct gpu *gpus, int n, const char *model, int64_t mem)
{
    if (n > GPU_MAX)
        n = GPU_MAX;
    for (int i = 0; i < n; i++) {
        gpus[i].index = i;
        snprintf (gpus[i].model, sizeof (gpus[i].model), "%s", model);
        gpus[i].mem = mem;
        snprintf (gpus[i].uuid, sizeof (gpus[i].uuid), "SIM-GPU-%d", i);
        gpus[i].simulated = 1;
        gpus[i].minor = -1;
    }
    return n;
}

static void nvml_mig_load (void *lib, struct nvml_mig *m)
{
    m->mode = (nvml_migmode_f)dlsym (lib, "nvmlDeviceGetMigMode");
    m->max_count = (nvml_uint_f)dlsym (lib, "nvmlDeviceGetMaxMigDeviceCount");
    m->handle = (nvml_mighandle_f)dlsym (lib, "nvmlDeviceGetMigDeviceHandleByIndex");
    m->uuid = (nvml_name_f)dlsym (lib, "nvmlDeviceGetUUID");
    if (!(m->attributes = (nvml_attr_f)dlsym (lib, "nvmlDeviceGetAttributes_v2")))
        m->attributes = (nvml_attr_f)dlsym (lib, "nvmlDeviceGetAttributes");
}

/* The MIG instances of a GPU in MIG mode, named the way nvidia-smi names
 * their profiles: compute slices "g." memory rounded up to whole GB. */
static void nvml_mig_discover (const struct nvml_mig *m, void *dev, struct gpu *gpu)
{
    unsigned int cur = 0, pending = 0, max = 0;

    gpu->nmig = 0;
    if (!m->mode || !m->max_count || !m->handle || !m->uuid || !m->attributes
        || m->mode (dev, &cur, &pending) != 0 || cur != NVML_DEVICE_MIG_ENABLE
        || m->max_count (dev, &max) != 0)
        return;
    for (unsigned int i = 0; i < max && gpu->nmig < GPU_MIG_MAX; i++) {
        struct gpu_mig *inst = &gpu->mig[gpu->nmig];
        struct nvml_attributes a;
        void *mig;
        if (m->handle (dev, i, &mig) != 0)
            continue; /* no instance at this index */
        memset (&a, 0, sizeof (a));
        if (m->attributes (mig, &a) != 0 || a.gpuInstanceSliceCount == 0
            || m->uuid (mig, inst->uuid, sizeof (inst->uuid)) != 0)
            continue;
        char name[64];
        snprintf (name, sizeof (name), "%ug.%llugb", a.gpuInstanceSliceCount,
                  (a.memorySizeMB + 1023) / 1024);
        if (resource_check_mig (name, NULL) < 0) {
            log_msg (LOG_WARNING,
                     "GPU %d: MIG instance %u has an unexpected "
                     "profile %s: not offered",
                     gpu->index, i, name);
            continue;
        }
        /* A valid profile is at most "8g.9999gb". */
        memcpy (inst->profile, name, strlen (name) + 1);
        gpu->nmig++;
    }
}

/* Where the GPU sits on the PCI bus, as hwloc names PCI devices. */
static void gpu_pci_busid (nvml_pci_f pci, void *dev, struct gpu *gpu)
{
    struct nvml_pci info;

    memset (&info, 0, sizeof (info));
    if (pci && pci (dev, &info) == 0)
        snprintf (gpu->pci_busid, sizeof (gpu->pci_busid), "%04x:%02x:%02x.0",
                  info.domain & 0xffff, info.bus & 0xff, info.device & 0x1f);
}

static int gpu_nvml (struct gpu *gpus)
{
    void *lib = dlopen ("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    unsigned int count = 0;
    int n = 0;

    if (!lib)
        return 0;
    nvml_init_f init = (nvml_init_f)dlsym (lib, "nvmlInit_v2");
    nvml_count_f getcount = (nvml_count_f)dlsym (lib, "nvmlDeviceGetCount_v2");
    nvml_handle_f handle = (nvml_handle_f)dlsym (lib, "nvmlDeviceGetHandleByIndex_v2");
    nvml_name_f name = (nvml_name_f)dlsym (lib, "nvmlDeviceGetName");
    nvml_name_f uuid = (nvml_name_f)dlsym (lib, "nvmlDeviceGetUUID");
    nvml_meminfo_f meminfo = (nvml_meminfo_f)dlsym (lib, "nvmlDeviceGetMemoryInfo");
    nvml_shutdown_f shutdown = (nvml_shutdown_f)dlsym (lib, "nvmlShutdown");
    nvml_pci_f pci = (nvml_pci_f)dlsym (lib, "nvmlDeviceGetPciInfo_v3");
    nvml_uint_f minor = (nvml_uint_f)dlsym (lib, "nvmlDeviceGetMinorNumber");
    struct nvml_mig mig;
    if (!init || !getcount || !handle || !name || !uuid || !meminfo || !shutdown
        || init () != 0) {
        dlclose (lib);
        return 0;
    }
    nvml_mig_load (lib, &mig);
    if (getcount (&count) == 0) {
        for (unsigned int i = 0; i < count && n < GPU_MAX; i++) {
            void *dev;
            unsigned long long mi[3] = { 0 }; /* total, free, used */
            if (handle (i, &dev) != 0)
                continue;
            gpus[n].index = (int)i;
            name (dev, gpus[n].model, sizeof (gpus[n].model));
            uuid (dev, gpus[n].uuid, sizeof (gpus[n].uuid));
            if (meminfo (dev, mi) == 0)
                gpus[n].mem = (int64_t)mi[0];
            gpu_pci_busid (pci, dev, &gpus[n]);
            {
                unsigned int m;
                gpus[n].minor = minor && minor (dev, &m) == 0 ? (int)m : -1;
            }
            gpus[n].simulated = 0;
            nvml_mig_discover (&mig, dev, &gpus[n]);
            n++;
        }
    }
    shutdown ();
    dlclose (lib);
    return n;
}

int gpu_discover (struct gpu *gpus, int simulated, const char *model, int64_t mem)
{
    int n;

    memset (gpus, 0, GPU_MAX * sizeof (*gpus));
    if (simulated > 0) {
        n = gpu_simulate (gpus, simulated, model, mem);
        log_msg (LOG_INFO, "offering %d simulated GPUs (%s)", n, model);
        return n;
    }
    n = gpu_nvml (gpus);
    log_msg (LOG_INFO, "found %d GPUs through NVML", n);
    for (int i = 0; i < n; i++)
        if (gpus[i].nmig)
            log_msg (LOG_INFO,
                     "GPU %d (%s) is in MIG mode: %d instances, the first "
                     "%s %s",
                     gpus[i].index, gpus[i].model, gpus[i].nmig, gpus[i].mig[0].profile,
                     gpus[i].mig[0].uuid);
    return n;
}

void gpu_visible_devices (const struct gpu *gpus, int ngpus, const int *idx, int n,
                          const int *mig, char *buf, int len)
{
    int off = 0;

    buf[0] = '\0';
    if (mig && mig[0] >= 0 && mig[0] < ngpus && mig[1] >= 0
        && mig[1] < gpus[mig[0]].nmig)
        off += snprintf (buf, len, "%s", gpus[mig[0]].mig[mig[1]].uuid);
    for (int i = 0; i < n && off < len; i++) {
        if (idx[i] < 0 || idx[i] >= ngpus)
            continue;
        /* Real GPUs by UUID (stable whatever the enumeration order);
         * simulated ones by index. */
        if (gpus[idx[i]].simulated)
            off += snprintf (buf + off, len - off, "%s%d", off ? "," : "",
                             gpus[idx[i]].index);
        else
            off += snprintf (buf + off, len - off, "%s%s", off ? "," : "",
                             gpus[idx[i]].uuid);
    }
}
