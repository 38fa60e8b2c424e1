/* gpu.c - see gpu.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "worker/gpu.h"

/* The few NVML entry points we use, with their documented C signatures. */
typedef int (*nvml_init_f) (void);
typedef int (*nvml_count_f) (unsigned int *);
typedef int (*nvml_handle_f) (unsigned int, void **);
typedef int (*nvml_name_f) (void *, char *, unsigned int);
typedef int (*nvml_meminfo_f) (void *, unsigned long long[3]);
typedef int (*nvml_shutdown_f) (void);

static int gpu_simulate (struct gpu_info *gpus, int n, const char *model, int64_t mem)
{
    if (n > GPU_MAX)
        n = GPU_MAX;
    for (int i = 0; i < n; i++) {
        gpus[i].index = i;
        snprintf (gpus[i].model, sizeof (gpus[i].model), "%s", model);
        gpus[i].mem = mem;
        snprintf (gpus[i].uuid, sizeof (gpus[i].uuid), "SIM-GPU-%d", i);
        gpus[i].simulated = 1;
    }
    return n;
}

static int gpu_nvml (struct gpu_info *gpus)
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
    if (!init || !getcount || !handle || !name || !uuid || !meminfo || !shutdown
        || init () != 0) {
        dlclose (lib);
        return 0;
    }
    if (getcount (&count) == 0) {
        for (unsigned int i = 0; i < count && n < GPU_MAX; i++) {
            void *dev;
            unsigned long long mi[3] = { 0 };   /* total, free, used */
            if (handle (i, &dev) != 0)
                continue;
            gpus[n].index = (int)i;
            name (dev, gpus[n].model, sizeof (gpus[n].model));
            uuid (dev, gpus[n].uuid, sizeof (gpus[n].uuid));
            if (meminfo (dev, mi) == 0)
                gpus[n].mem = (int64_t)mi[0];
            gpus[n].simulated = 0;
            n++;
        }
    }
    shutdown ();
    dlclose (lib);
    return n;
}

int gpu_discover (struct gpu_info *gpus, int simulated, const char *model,
                  int64_t mem)
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
    return n;
}

json_t *gpu_to_json (const struct gpu_info *gpus, int n)
{
    json_t *arr = json_array ();

    for (int i = 0; arr && i < n; i++)
        json_array_append_new (arr, json_pack ("{s:i s:s s:I s:s s:b}", "index",
                                               gpus[i].index, "model", gpus[i].model,
                                               "mem", (json_int_t)gpus[i].mem, "uuid",
                                               gpus[i].uuid, "simulated",
                                               gpus[i].simulated));
    return arr;
}

void gpu_visible_devices (const struct gpu_info *gpus, int ngpus,
                          const int *idx, int n, char *buf, int len)
{
    int off = 0;

    buf[0] = '\0';
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
