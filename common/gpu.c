/* gpu.c - see gpu.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gpu.h"
#include "common/resource.h"
#include "common/util.h"

/* One "PROFILE[*N]" item: append N instances to gpu.  0 or -1. */
static int mig_layout_item (struct gpu *gpu, char *item, const char *node, int *slices,
                            struct hpcq_error *err)
{
    char *star = strchr (item, '*');
    int count = 1;

    if (star) {
        *star++ = '\0';
        if (util_parse_int (star, 1, GPU_MIG_MAX, &count) < 0)
            return errprintf (err, "mig_layout: bad count '%s'", star);
    }
    if (resource_check_mig (item, err) < 0)
        return errprintf (err, "mig_layout: invalid MIG profile '%s'", item);
    for (int k = 0; k < count; k++) {
        struct gpu_mig *m;
        *slices += atoi (item);
        if (gpu->nmig == GPU_MIG_MAX || *slices > 7)
            return errprintf (err,
                              "mig_layout: GPU %d has more instances than its "
                              "7 compute slices hold",
                              gpu->index);
        m = &gpu->mig[gpu->nmig];
        snprintf (m->profile, sizeof (m->profile), "%s", item);
        snprintf (m->uuid, sizeof (m->uuid), "MIG-SIM-%s-%d-%d", node, gpu->index,
                  gpu->nmig);
        gpu->nmig++;
    }
    return 0;
}

/* One "GPU:PROFILE[*N]+..." term.  0 or -1. */
static int mig_layout_term (struct gpu *gpus, int n, char *term, const char *node,
                            struct hpcq_error *err)
{
    char *colon = strchr (term, ':'), *item;
    int g, slices = 0;

    if (!colon)
        return errprintf (err, "mig_layout: '%s' is not GPU:PROFILE", term);
    *colon++ = '\0';
    if (util_parse_int (term, 0, n - 1, &g) < 0)
        return errprintf (err, "mig_layout: no simulated GPU '%s' (have %d)", term, n);
    if (gpus[g].nmig)
        return errprintf (err, "mig_layout: GPU %d given twice", g);
    while ((item = strsep (&colon, "+")))
        if (mig_layout_item (&gpus[g], item, node, &slices, err) < 0)
            return -1;
    return 0;
}

int gpu_mig_layout (struct gpu *gpus, int n, const char *layout, const char *node,
                    struct hpcq_error *err)
{
    struct gpu *tmp = calloc (GPU_MAX, sizeof (*tmp));
    char *copy = strdup (layout), *rest = copy, *term;
    int rc = -1;

    if (!tmp || !copy) {
        errprintf (err, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        if (!gpus[i].simulated) {
            errprintf (err, "mig_layout is for simulated GPUs (gpus = N); real "
                            "ones report their MIG layout through NVML");
            goto out;
        }
        tmp[i] = gpus[i];
    }
    /* Work on a copy, so a bad layout leaves the GPUs as they were. */
    while ((term = strsep (&rest, ";")))
        if (*term && mig_layout_term (tmp, n, term, node, err) < 0)
            goto out;
    memcpy (gpus, tmp, n * sizeof (*gpus));
    rc = 0;
out:
    free (tmp);
    free (copy);
    return rc;
}

static json_t *mig_to_json (const struct gpu *gpu)
{
    json_t *arr = json_array ();

    for (int i = 0; arr && i < gpu->nmig; i++)
        json_array_append_new (arr,
                               json_pack ("{s:s s:s}", "profile", gpu->mig[i].profile,
                                          "uuid", gpu->mig[i].uuid));
    return arr;
}

json_t *gpu_to_json (const struct gpu *gpus, int n)
{
    json_t *arr = json_array ();

    for (int i = 0; arr && i < n; i++) {
        json_t *o = json_pack ("{s:i s:s s:I s:s s:b}", "index", gpus[i].index, "model",
                               gpus[i].model, "mem", (json_int_t)gpus[i].mem, "uuid",
                               gpus[i].uuid, "simulated", gpus[i].simulated);
        if (o && gpus[i].nmig)
            json_object_set_new (o, "mig", mig_to_json (&gpus[i]));
        json_array_append_new (arr, o);
    }
    return arr;
}

/* A GPU's MIG instances as gpu_to_json writes them.  0 or -1. */
static int mig_from_json (struct gpu *gpu, json_t *mig)
{
    json_t *m;
    size_t i;

    gpu->nmig = 0;
    if (!mig)
        return 0;
    if (!json_is_array (mig) || json_array_size (mig) > GPU_MIG_MAX)
        return -1;
    json_array_foreach (mig, i, m)
    {
        struct gpu_mig *inst = &gpu->mig[gpu->nmig++];
        const char *profile, *uuid = "";
        if (json_unpack (m, "{s:s s?s}", "profile", &profile, "uuid", &uuid) < 0
            || resource_check_mig (profile, NULL) < 0
            || strlen (uuid) >= sizeof (inst->uuid))
            return -1;
        snprintf (inst->profile, sizeof (inst->profile), "%s", profile);
        snprintf (inst->uuid, sizeof (inst->uuid), "%s", uuid);
        inst->used_by = 0;
    }
    return 0;
}

int gpu_from_json (json_t *arr, struct gpu *gpus, int *n)
{
    json_t *o;
    size_t i;

    if (!json_is_array (arr) || json_array_size (arr) > GPU_MAX)
        return -1;
    *n = 0;
    json_array_foreach (arr, i, o)
    {
        struct gpu *gpu = &gpus[*n];
        const char *model = "", *uuid = "";
        json_int_t mem = 0;
        json_t *mig = NULL;
        memset (gpu, 0, sizeof (*gpu));
        if (json_unpack (o, "{s:i s?s s?I s?s s?b s?o}", "index", &gpu->index, "model",
                         &model, "mem", &mem, "uuid", &uuid, "simulated",
                         &gpu->simulated, "mig", &mig)
                < 0
            || mig_from_json (gpu, mig) < 0)
            return -1;
        snprintf (gpu->model, sizeof (gpu->model), "%s", model);
        snprintf (gpu->uuid, sizeof (gpu->uuid), "%s", uuid);
        gpu->mem = mem;
        gpu->index = (*n)++;
    }
    return 0;
}

/* Bounds a worker's report must keep: a year of 16 GPUs, 1 TiB of GPU
 * memory, 100 kW for that year. */
#define GPU_USAGE_SECONDS_MAX (16LL * 366 * 86400)
#define GPU_USAGE_MEM_MAX (1LL << 40)
#define GPU_USAGE_ENERGY_MAX (1e5 * 16 * 366 * 86400)

int gpu_usage_from_json (json_t *body, struct gpu_usage *u)
{
    json_int_t seconds = 0, mem = 0;
    double util = 0, energy = 0;
    int simulated = 0;

    memset (u, 0, sizeof (*u));
    if (!json_object_get (body, "gpu_seconds"))
        return 0;
    if (json_unpack (body, "{s:I s:F s:I s:F s?b}", "gpu_seconds", &seconds,
                     "gpu_util_mean", &util, "gpu_mem_peak", &mem, "gpu_energy_j",
                     &energy, "gpu_simulated", &simulated)
            < 0
        || seconds < 0 || seconds > GPU_USAGE_SECONDS_MAX || !(util >= 0 && util <= 100)
        || mem < 0 || mem > GPU_USAGE_MEM_MAX
        || !(energy >= 0 && energy <= GPU_USAGE_ENERGY_MAX))
        return -1;
    *u = (struct gpu_usage){ seconds, util, mem, energy, simulated };
    return 1;
}

void gpu_usage_attrs (json_t *o, const struct gpu_usage *u)
{
    char buf[32];

    snprintf (buf, sizeof (buf), "%.6f", (double)u->seconds / 3600.0);
    json_object_set_new (o, "gpu_hours", json_string (buf));
    snprintf (buf, sizeof (buf), "%.1f", u->util_mean);
    json_object_set_new (o, "gpu_util_mean", json_string (buf));
    resource_format_size (u->mem_peak, buf, sizeof (buf));
    json_object_set_new (o, "gpu_mem_peak", json_string (buf));
    snprintf (buf, sizeof (buf), "%.0f", u->energy_j);
    json_object_set_new (o, "gpu_energy_j", json_string (buf));
    if (u->simulated)
        json_object_set_new (o, "gpu_simulated", json_string ("True"));
}

/* One GPU of a node.usage entry, held to the bounds of a whole report. */
static int gpu_live_one (json_t *e, struct gpu_live *l)
{
    double util = -1, energy = 0;
    json_int_t mem = -1;
    int index;

    if (json_unpack (e, "{s:i s:F s?F s?I}", "index", &index, "energy_j", &energy,
                     "util", &util, "mem", &mem)
            < 0
        || index < 0 || index >= GPU_MAX || !(util == -1 || (util >= 0 && util <= 100))
        || mem < -1 || mem > GPU_USAGE_MEM_MAX
        || !(energy >= 0 && energy <= GPU_USAGE_ENERGY_MAX))
        return -1;
    l->gpu[l->n].index = index;
    l->gpu[l->n].util = util;
    l->gpu[l->n].mem = mem;
    l->gpu[l->n].energy_j = energy;
    l->n++;
    return 0;
}

int gpu_live_from_json (json_t *entry, struct gpu_live *l)
{
    json_t *gpus = json_object_get (entry, "gpus"), *e;
    int rc = gpu_usage_from_json (entry, &l->total);
    size_t i;

    l->n = 0;
    if (rc <= 0)
        return rc;
    if (gpus && (!json_is_array (gpus) || json_array_size (gpus) > GPU_MAX))
        goto bad;
    json_array_foreach (gpus, i, e)
    {
        if (gpu_live_one (e, l) < 0)
            goto bad;
    }
    return 1;
bad:
    memset (l, 0, sizeof (*l));
    return -1;
}
