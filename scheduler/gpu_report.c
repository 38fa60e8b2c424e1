/* gpu_report.c - see gpu_report.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <string.h>

#include "scheduler/gpu_report.h"

/* All gauges, as DCGM exporter's default counters file declares most of
 * them. */
const struct gpu_report_field gpu_report_fields[GPU_REPORT_NFIELDS] = {
    { "util", "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)." },
    { "mem_util", "DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %)." },
    { "fb_used", "DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)." },
    { "fb_free", "DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB)." },
    { "temp", "DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)." },
    { "power", "DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)." },
    { "sm_clock", "DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)." },
    { "ecc_sbe", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
      "Single-bit volatile ECC errors since the driver loaded." },
    { "ecc_dbe", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
      "Double-bit volatile ECC errors since the driver loaded." },
    { "xid", "DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error seen (0: none)." },
    { "retired_sbe", "DCGM_FI_DEV_RETIRED_SBE",
      "Pages retired for single-bit errors." },
    { "retired_dbe", "DCGM_FI_DEV_RETIRED_DBE",
      "Pages retired for double-bit errors." },
    { "retired_pending", "DCGM_FI_DEV_RETIRED_PENDING",
      "1 if a page retirement waits for the next driver reload." },
};

/* One GPU of a report; -1 if malformed. */
static int parse_gpu (const json_t *o, struct gpu_report *g)
{
    const char *uuid = "", *model = "";

    memset (g, 0, sizeof (*g));
    if (json_unpack ((json_t *)o, "{s:i s?s s?s}", "index", &g->index, "uuid", &uuid,
                     "model", &model)
            < 0
        || g->index < 0 || g->index >= GPU_MAX || strlen (uuid) >= sizeof (g->uuid)
        || strlen (model) >= sizeof (g->model))
        return -1;
    snprintf (g->uuid, sizeof (g->uuid), "%s", uuid);
    snprintf (g->model, sizeof (g->model), "%s", model);
    for (int i = 0; i < GPU_REPORT_NFIELDS; i++) {
        json_t *v = json_object_get (o, gpu_report_fields[i].key);
        if (!v)
            continue;
        if (!json_is_number (v) || !isfinite (json_number_value (v)))
            return -1;
        g->v[i] = json_number_value (v);
        g->have |= 1u << i;
    }
    return 0;
}

int gpu_report_parse (const json_t *body, struct gpu_report *gpus,
                      struct hpcq_error *err)
{
    const json_t *list = json_is_object (body) ? json_object_get (body, "gpus") : NULL;
    unsigned seen[(GPU_MAX + 31) / 32] = { 0 };
    size_t i, n;

    if (!json_is_array (list) || (n = json_array_size (list)) > GPU_MAX)
        return errprintf_code (err, EPROTO, "node.telemetry: malformed report");
    for (i = 0; i < n; i++) {
        struct gpu_report *g = &gpus[i];
        if (parse_gpu (json_array_get (list, i), g) < 0)
            return errprintf_code (err, EPROTO, "node.telemetry: malformed GPU %zu", i);
        /* Two of one index would be the same series twice, and Prometheus
         * drops a whole scrape that has one. */
        if (seen[g->index / 32] & (1u << (g->index % 32)))
            return errprintf_code (err, EPROTO, "node.telemetry: GPU %d reported twice",
                                   g->index);
        seen[g->index / 32] |= 1u << (g->index % 32);
    }
    return (int)n;
}

void gpu_report_put_label (FILE *f, const char *v)
{
    putc ('"', f);
    for (; v && *v; v++) {
        if (*v == '\\' || *v == '"')
            fprintf (f, "\\%c", *v);
        else if (*v == '\n')
            fputs ("\\n", f);
        else
            putc (*v, f);
    }
    putc ('"', f);
}

void gpu_report_put (FILE *f, int i, const struct gpu_report *g, const char *host,
                     const char *job)
{
    char dev[32];

    snprintf (dev, sizeof (dev), "nvidia%d", g->index);
    fprintf (f, "%s{gpu=\"%d\",UUID=", gpu_report_fields[i].metric, g->index);
    gpu_report_put_label (f, g->uuid);
    fputs (",device=", f);
    gpu_report_put_label (f, dev);
    fputs (",modelName=", f);
    gpu_report_put_label (f, g->model);
    fputs (",Hostname=", f);
    gpu_report_put_label (f, host);
    if (job) {
        fputs (",hpc_job=", f);
        gpu_report_put_label (f, job);
    }
    fprintf (f, "} %.9g\n", g->v[i]);
}
