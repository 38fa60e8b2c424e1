/* gpuuse.c - see gpuuse.h */
#include <config.h>

#include "worker/gpumon.h"
#include "worker/gpuuse.h"

void gpuuse_start (struct gpuuse *u, int ngpus, int simulated, int64_t now_ms)
{
    *u = (struct gpuuse){ .ngpus = ngpus, .simulated = simulated, .last_ms = now_ms };
}

static int holds (const int *gpus, int n, int index)
{
    for (int i = 0; i < n; i++)
        if (gpus[i] == index)
            return 1;
    return 0;
}

void gpuuse_read (struct gpuuse *u, const int *gpus, const struct gpu_sample *s, int ns,
                  int64_t now_ms)
{
    double dt = (double)(now_ms - u->last_ms);

    if (u->ngpus == 0 || u->simulated || dt <= 0)
        return;
    for (int i = 0; i < ns; i++) {
        if (!holds (gpus, u->ngpus, s[i].index))
            continue;
        if (s[i].have & GS_UTIL) {
            u->util_ms += s[i].util * dt;
            u->read_ms += dt;
        }
        if (s[i].have & GS_POWER)
            u->energy_j += s[i].power * dt / 1000.0;
        if ((s[i].have & GS_FB) && s[i].fb_used * 1048576.0 > (double)u->mem_peak)
            u->mem_peak = (int64_t)(s[i].fb_used * 1048576.0);
    }
    u->last_ms = now_ms;
}

json_t *gpuuse_json (const struct gpuuse *u, int64_t wall, const struct gpuuse_sim *sim)
{
    int64_t gpu_s = (int64_t)u->ngpus * (wall > 0 ? wall : 0);
    double util = 0, energy = u->energy_j;
    int64_t mem = u->mem_peak;

    if (u->ngpus == 0)
        return NULL;
    if (u->simulated) {
        util = sim->util;
        energy = sim->power * (double)gpu_s;
        mem = sim->mem;
    } else if (u->read_ms > 0)
        util = u->util_ms / u->read_ms;
    return json_pack ("{s:I s:f s:I s:f s:b}", "gpu_seconds", (json_int_t)gpu_s,
                      "gpu_util_mean", util, "gpu_mem_peak", (json_int_t)mem,
                      "gpu_energy_j", energy, "gpu_simulated", u->simulated);
}
