/* telemetry.c - see telemetry.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/log.h"
#include "common/util.h"
#include "scheduler/jobs.h"
#include "scheduler/metrics.h"
#include "scheduler/nodes.h"
#include "scheduler/telemetry.h"

/* What a report may carry per GPU: its key in node.telemetry, the DCGM
 * exporter's field name and help text.  All gauges, as DCGM exporter's
 * default counters file declares most of them; a value NVML could not give
 * (not supported on that GPU) is absent and exported as nothing. */
static const struct field {
    const char *key, *metric, *help;
} fields[] = {
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
#define NFIELDS ((int)(sizeof (fields) / sizeof (fields[0])))

struct gpu_report {
    int index;                  /* the node's GPU index (node.hello's order) */
    char uuid[96];
    char model[96];
    unsigned have;              /* bit i: fields[i] present */
    double v[NFIELDS];
};

struct node_report {
    char node[64];              /* key */
    int64_t at_ms;
    int ngpus;
    struct gpu_report gpu[GPU_MAX];
    UT_hash_handle hh;
};

struct telemetry {
    struct server *srv;
    struct node_report *reports;
};

static const struct handler telemetry_handlers[];

/* One GPU of a report; -1 if malformed. */
static int telemetry_parse_gpu (json_t *o, struct gpu_report *g)
{
    const char *uuid = "", *model = "";

    memset (g, 0, sizeof (*g));
    if (json_unpack (o, "{s:i s?s s?s}", "index", &g->index, "uuid", &uuid, "model",
                     &model) < 0
        || g->index < 0 || g->index >= GPU_MAX || strlen (uuid) >= sizeof (g->uuid)
        || strlen (model) >= sizeof (g->model))
        return -1;
    snprintf (g->uuid, sizeof (g->uuid), "%s", uuid);
    snprintf (g->model, sizeof (g->model), "%s", model);
    for (int i = 0; i < NFIELDS; i++) {
        json_t *v = json_object_get (o, fields[i].key);
        if (!v)
            continue;
        if (!json_is_number (v) || !isfinite (json_number_value (v)))
            return -1;
        g->v[i] = json_number_value (v);
        g->have |= 1u << i;
    }
    return 0;
}

static void telemetry_report (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct telemetry *t = srv->telemetry;
    struct node *n = conn_aux (c);
    struct node_report rep, *r;
    json_t *gpus, *g;
    size_t i;

    if (!n) {
        server_reply_error (c, msg, EPROTO, "node.telemetry before node.hello");
        return;
    }
    memset (&rep, 0, sizeof (rep));
    if (json_unpack (msg->body, "{s:o}", "gpus", &gpus) < 0 || !json_is_array (gpus)
        || json_array_size (gpus) > GPU_MAX) {
        server_reply_error (c, msg, EPROTO, "node.telemetry: malformed report");
        return;
    }
    json_array_foreach (gpus, i, g) {
        if (telemetry_parse_gpu (g, &rep.gpu[rep.ngpus++]) < 0) {
            server_reply_error (c, msg, EPROTO, "node.telemetry: malformed GPU %zu", i);
            return;
        }
    }
    HASH_FIND_STR (t->reports, n->name, r);
    if (!r) {
        r = xzalloc (sizeof (*r));
        snprintf (r->node, sizeof (r->node), "%s", n->name);
        HASH_ADD_STR (t->reports, node, r);
    }
    memcpy (r->gpu, rep.gpu, sizeof (rep.gpu));
    r->ngpus = rep.ngpus;
    r->at_ms = util_now_ms ();
    n->last_heard_ms = r->at_ms;
    (void)conn_reply (c, msg, 0, NULL, NULL);
}

static const struct handler telemetry_handlers[] = {
    { "node.telemetry", telemetry_report, ROLE_NODE },
    { NULL, NULL, 0 },
};

struct telemetry *telemetry_create (struct server *srv)
{
    struct telemetry *t = xzalloc (sizeof (*t));

    t->srv = srv;
    if (server_register (srv, telemetry_handlers) < 0) {
        free (t);
        return NULL;
    }
    return t;
}

void telemetry_destroy (struct telemetry *t)
{
    struct node_report *r, *tmp;

    if (!t)
        return;
    HASH_ITER (hh, t->reports, r, tmp) {
        HASH_DEL (t->reports, r);
        free (r);
    }
    free (t);
}

/* The report of a node that is up, if it is recent. */
static const struct node_report *fresh (struct telemetry *t, const struct node_report *r,
                                        int64_t now, struct node **np)
{
    struct node *n = nodes_lookup (t->srv->nodes, r->node);

    if (!n || n->state != NODE_UP || now - r->at_ms > TELEMETRY_MAX_AGE_S * 1000)
        return NULL;
    *np = n;
    return r;
}

static void put_labels (struct telemetry *t, FILE *f, const struct node *n,
                        const struct gpu_report *g)
{
    char dev[32];
    struct job *job;

    snprintf (dev, sizeof (dev), "nvidia%d", g->index);
    fprintf (f, "{gpu=\"%d\",UUID=", g->index);
    metrics_put_label (f, g->uuid);
    fputs (",device=", f);
    metrics_put_label (f, dev);
    fputs (",modelName=", f);
    metrics_put_label (f, g->model);
    fputs (",Hostname=", f);
    metrics_put_label (f, n->name);
    if (g->index < n->ngpus && n->gpu[g->index].used_by
        && (job = jobs_lookup (t->srv->jobs, n->gpu[g->index].used_by))) {
        fputs (",hpc_job=", f);
        metrics_put_label (f, job->id);
    }
    putc ('}', f);
}

void telemetry_render (struct telemetry *t, FILE *f)
{
    int64_t now = util_now_ms ();

    if (!t)
        return;
    for (int i = 0; i < NFIELDS; i++) {
        struct node_report *r, *tmp;
        int headed = 0;
        HASH_ITER (hh, t->reports, r, tmp) {
            struct node *n;
            if (!fresh (t, r, now, &n))
                continue;
            for (int k = 0; k < r->ngpus; k++) {
                const struct gpu_report *g = &r->gpu[k];
                if (!(g->have & (1u << i)))
                    continue;
                if (!headed++)
                    fprintf (f, "# HELP %s %s\n# TYPE %s gauge\n", fields[i].metric,
                             fields[i].help, fields[i].metric);
                fputs (fields[i].metric, f);
                put_labels (t, f, n, g);
                fprintf (f, " %.9g\n", g->v[i]);
            }
        }
    }
}
