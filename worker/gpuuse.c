/* gpuuse.c - see gpuuse.h */
#include <config.h>

#include "worker/gpumon.h"
#include "worker/gpuuse.h"

void gpuuse_start (struct gpuuse *u, const int *gpus, int ngpus, int simulated,
                   int64_t now_ms)
{
    *u = (struct gpuuse){ .ngpus = ngpus < GPU_MAX ? ngpus : GPU_MAX,
                          .simulated = simulated,
                          .last_ms = now_ms };
    for (int i = 0; i < u->ngpus; i++)
        u->gpu[i] = (struct gpuuse_gpu){ gpus[i], -1, -1, 0 };
}

static struct gpuuse_gpu *held (struct gpuuse *u, int index)
{
    for (int i = 0; i < u->ngpus; i++)
        if (u->gpu[i].index == index)
            return &u->gpu[i];
    return NULL;
}

void gpuuse_read (struct gpuuse *u, const struct gpu_sample *s, int ns, int64_t now_ms)
{
    double dt = (double)(now_ms - u->last_ms);

    if (u->ngpus == 0 || u->simulated || dt <= 0)
        return;
    for (int i = 0; i < ns; i++) {
        struct gpuuse_gpu *g = held (u, s[i].index);
        if (!g)
            continue;
        if (s[i].have & GS_UTIL) {
            u->util_ms += s[i].util * dt;
            u->read_ms += dt;
            g->util = s[i].util;
        }
        if (s[i].have & GS_POWER) {
            u->energy_j += s[i].power * dt / 1000.0;
            g->energy_j += s[i].power * dt / 1000.0;
        }
        if (s[i].have & GS_FB) {
            g->mem = (int64_t)(s[i].fb_used * 1048576.0);
            if (g->mem > u->mem_peak)
                u->mem_peak = g->mem;
        }
    }
    u->last_ms = now_ms;
}

/* [{index, energy_j, util?, mem?}] for each of the job's GPUs. */
static json_t *per_gpu_json (const struct gpuuse *u, int64_t wall,
                             const struct gpuuse_sim *sim)
{
    json_t *a = json_array ();

    for (int i = 0; a && i < u->ngpus; i++) {
        struct gpuuse_gpu g = u->gpu[i];
        json_t *e;
        if (u->simulated)
            g = (struct gpuuse_gpu){ g.index, sim->util, sim->mem,
                                     sim->power * (double)wall };
        e = json_pack ("{s:i s:f}", "index", g.index, "energy_j", g.energy_j);
        if (e && g.util >= 0)
            json_object_set_new (e, "util", json_real (g.util));
        if (e && g.mem >= 0)
            json_object_set_new (e, "mem", json_integer (g.mem));
        json_array_append_new (a, e);
    }
    return a;
}

json_t *gpuuse_json (const struct gpuuse *u, int64_t wall, const struct gpuuse_sim *sim,
                     int per_gpu)
{
    int64_t gpu_s = (int64_t)u->ngpus * (wall > 0 ? wall : 0);
    double util = 0, energy = u->energy_j;
    int64_t mem = u->mem_peak;
    json_t *o;

    if (u->ngpus == 0)
        return NULL;
    if (u->simulated) {
        util = sim->util;
        energy = sim->power * (double)gpu_s;
        mem = sim->mem;
    } else if (u->read_ms > 0)
        util = u->util_ms / u->read_ms;
    o = json_pack ("{s:I s:f s:I s:f s:b}", "gpu_seconds", (json_int_t)gpu_s,
                   "gpu_util_mean", util, "gpu_mem_peak", (json_int_t)mem,
                   "gpu_energy_j", energy, "gpu_simulated", u->simulated);
    if (o && per_gpu)
        json_object_set_new (o, "gpus", per_gpu_json (u, wall > 0 ? wall : 0, sim));
    return o;
}
