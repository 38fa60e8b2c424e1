/* telemetry.c - see telemetry.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/log.h"
#include "common/util.h"
#include "scheduler/gpu_report.h"
#include "scheduler/jobs.h"
#include "scheduler/nodes.h"
#include "scheduler/telemetry.h"

struct node_report {
    char node[64]; /* key */
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

static void telemetry_report (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    struct telemetry *t = srv->telemetry;
    struct node *n = conn_aux (c);
    struct node_report rep, *r;
    struct hpcq_error err;

    if (!n) {
        server_reply_error (c, msg, EPROTO, "node.telemetry before node.hello");
        return;
    }
    memset (&rep, 0, sizeof (rep));
    if ((rep.ngpus = gpu_report_parse (msg->body, rep.gpu, &err)) < 0) {
        server_reply_error (c, msg, EPROTO, "%s", err.text);
        return;
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
    HASH_ITER (hh, t->reports, r, tmp)
    {
        HASH_DEL (t->reports, r);
        free (r);
    }
    free (t);
}

/* The report of a node that is up, if it is recent. */
static const struct node_report *
fresh (struct telemetry *t, const struct node_report *r, int64_t now, struct node **np)
{
    struct node *n = nodes_lookup (t->srv->nodes, r->node);

    if (!n || n->state != NODE_UP || now - r->at_ms > TELEMETRY_MAX_AGE_S * 1000)
        return NULL;
    *np = n;
    return r;
}

/* The job holding g's whole GPU, if any. */
static const char *holder (struct telemetry *t, const struct node *n,
                           const struct gpu_report *g)
{
    struct job *job;

    if (g->index < n->ngpus && n->gpu[g->index].used_by
        && (job = jobs_lookup (t->srv->jobs, n->gpu[g->index].used_by)))
        return job->id;
    return NULL;
}

void telemetry_render (struct telemetry *t, FILE *f)
{
    int64_t now = util_now_ms ();

    if (!t)
        return;
    for (int i = 0; i < GPU_REPORT_NFIELDS; i++) {
        struct node_report *r, *tmp;
        int headed = 0;
        HASH_ITER (hh, t->reports, r, tmp)
        {
            struct node *n;
            if (!fresh (t, r, now, &n))
                continue;
            for (int k = 0; k < r->ngpus; k++) {
                const struct gpu_report *g = &r->gpu[k];
                if (!(g->have & (1u << i)))
                    continue;
                if (!headed++)
                    fprintf (f, "# HELP %s %s\n# TYPE %s gauge\n",
                             gpu_report_fields[i].metric, gpu_report_fields[i].help,
                             gpu_report_fields[i].metric);
                gpu_report_put (f, i, g, n->name, holder (t, n, g));
            }
        }
    }
}
