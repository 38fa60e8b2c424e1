/* node_admin.c - see node_admin.h */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "db/db_node.h"
#include "scheduler/jobs.h"
#include "scheduler/node_admin.h"
#include "scheduler/node_health.h"
#include "scheduler/nodes.h"
#include "scheduler/power.h"

const char *node_admin_state (const struct node *n)
{
    if (n->power == NODE_POWER_RESUMING)
        return "resuming";
    if (n->power == NODE_POWER_SUSPENDING)
        return "suspending";
    if (n->power == NODE_POWER_OFF && n->state != NODE_DOWN)
        return "cloud";
    if (n->state != NODE_UP)
        return "down";
    if (n->drain & NODE_DRAIN_RECLAIM)
        return n->njobs > 0 ? "draining" : "reclaiming";
    if (n->offline)
        return n->njobs > 0 ? "draining" : "offline";
    if (n->excl_by || (n->ncpus > 0 && n->ncpus_used >= n->ncpus))
        return "job-busy";
    return "free";
}

static json_t *gpus_json (const struct node *n)
{
    json_t *a = json_array ();

    for (int g = 0; a && g < n->ngpus; g++) {
        const struct gpu *gpu = &n->gpu[g];
        json_t *migs = json_array ();
        for (int m = 0; migs && m < gpu->nmig; m++)
            json_array_append_new (migs, json_pack ("{s:s s:s s:b}", "profile",
                                                    gpu->mig[m].profile, "uuid",
                                                    gpu->mig[m].uuid, "used",
                                                    gpu->mig[m].used_by != 0));
        json_array_append_new (a, json_pack ("{s:i s:s s:I s:s s:b s:b s:o}", "index",
                                             gpu->index, "model", gpu->model, "mem",
                                             (json_int_t)gpu->mem, "uuid", gpu->uuid,
                                             "simulated", gpu->simulated, "used",
                                             gpu->used_by != 0, "mig", migs));
    }
    return a;
}

/* For each node name, the ids of the jobs holding part of it (PBS's jobs
 * attribute): one walk over the running jobs for all nodes. */
json_t *node_admin_jobs_map (struct server *srv)
{
    json_t *map = json_object ();
    struct job *j;

    LIST_FOREACH (j, jobs_running (srv->jobs), r_link)
    for (int s = 0; map && j->alloc && s < j->alloc->n; s++) {
        const char *name = j->alloc->slot[s].node_name;
        json_t *a = json_object_get (map, name);
        if (!a && json_object_set_new (map, name, (a = json_array ())) < 0)
            continue;
        json_array_append_new (a, json_string (j->id));
    }
    return map;
}

json_t *node_admin_json (const struct node *n, json_t *jobs_map)
{
    static const char *const power_names[] = {
        [NODE_POWER_ON] = "on",
        [NODE_POWER_OFF] = "off",
        [NODE_POWER_RESUMING] = "resuming",
        [NODE_POWER_SUSPENDING] = "suspending",
    };
    json_t *jobs = json_object_get (jobs_map, n->name), *o;
    int gpus_used = 0;

    for (int g = 0; g < n->ngpus; g++)
        gpus_used += n->gpu[g].used_by != 0;
    o = json_pack ("{s:s s:s s:i s:i s:I s:I s:i s:i s:s s:s s:o s:o s:b s:b}", "name",
                   n->name, "state", node_admin_state (n), "ncpus", n->ncpus,
                   "ncpus_used", n->ncpus_used, "mem", (json_int_t)n->mem, "mem_used",
                   (json_int_t)n->mem_used, "ngpus", n->ngpus, "ngpus_used", gpus_used,
                   "labels", n->labels, "comment", n->comment, "jobs",
                   jobs ? json_incref (jobs) : json_array (), "gpus", gpus_json (n),
                   "spot", n->spot, "cloud", n->cloud);
    if (o && n->cloud)
        json_object_set_new (o, "power", json_string (power_names[n->power]));
    if (o && n->oci)
        json_object_set_new (o, "container_runtime", json_string ("runc"));
    if (o && n->topo.nnuma > 0)
        json_object_set_new (o, "topology", topoinfo_to_json (&n->topo));
    if (o && n->nib > 0) {
        char hcas[256];
        ib_usable_list (n->ib, n->nib, hcas, sizeof (hcas));
        json_object_set_new (o, "ib_hcas", json_string (hcas));
        json_object_set_new (o, "ib", ib_to_json (n->ib, n->nib));
    }
    return o;
}

/* The nodes a request names ("names": [...], none = all); -1 after
 * replying with the first unknown name. */
static int named_nodes (struct server *srv, struct conn *c, struct wire_msg *msg,
                        json_t *names, struct node **out, int *nout)
{
    json_t *v;
    size_t i;
    int n;
    struct node **all = nodes_all (srv->nodes, &n);

    *nout = 0;
    if (!names || json_array_size (names) == 0) {
        for (int k = 0; k < n; k++)
            if (all[k]->ncpus > 0)
                out[(*nout)++] = all[k];
        return 0;
    }
    json_array_foreach (names, i, v)
    {
        const char *name = json_string_value (v);
        struct node *node = name ? nodes_lookup (srv->nodes, name) : NULL;
        if (!node || node->ncpus <= 0) {
            server_reply_error (c, msg, ENOENT, "Unknown node %s", name ? name : "?");
            return -1;
        }
        out[(*nout)++] = node;
    }
    return 0;
}

static void node_stat (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    json_t *names = json_object_get (msg->body, "names"), *list = json_array ();
    int n, nsel;
    struct node **sel;

    (void)nodes_all (srv->nodes, &n);
    if (names && !json_is_array (names)) {
        server_reply_error (c, msg, EPROTO, "node.stat: malformed request");
        json_decref (list);
        return;
    }
    if (!(sel = calloc (n + json_array_size (names) + 1, sizeof (*sel)))) {
        server_reply_error (c, msg, ENOMEM, "node.stat: out of memory");
        json_decref (list);
        return;
    }
    if (named_nodes (srv, c, msg, names, sel, &nsel) == 0) {
        json_t *jobs_map = node_admin_jobs_map (srv);
        for (int i = 0; i < nsel; i++)
            json_array_append_new (list, node_admin_json (sel[i], jobs_map));
        json_decref (jobs_map);
        (void)conn_reply (c, msg, 0, NULL,
                          json_pack ("{s:s s:O}", "server", srv->name, "nodes", list));
    }
    json_decref (list);
    free (sel);
}

static void node_offline (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    json_t *names = NULL;
    int offline, nsel;
    const char *comment = "";
    struct node **sel;
    char who[64];

    if (json_unpack (msg->body, "{s:o s:b s?s}", "names", &names, "offline", &offline,
                     "comment", &comment)
            < 0
        || !json_is_array (names) || json_array_size (names) == 0) {
        server_reply_error (c, msg, EPROTO, "node.offline: malformed request");
        return;
    }
    if (!server_is_operator (srv, conn_peer_uid (c))) {
        server_reply_error (c, msg, EPERM, "Unauthorized Request");
        return;
    }
    if (!(sel = calloc (json_array_size (names) + 1, sizeof (*sel)))) {
        server_reply_error (c, msg, ENOMEM, "node.offline: out of memory");
        return;
    }
    server_user_name (conn_peer_uid (c), who, sizeof (who));
    if (named_nodes (srv, c, msg, names, sel, &nsel) == 0) {
        int i;
        for (i = 0; i < nsel; i++) {
            struct node *node = sel[i];
            if (db_node_set_offline (srv->db, node->name, offline,
                                     offline ? comment : "")
                    < 0
                || node_health_forget (srv, node) < 0)
                break;
            node->offline = offline;
            snprintf (node->comment, sizeof (node->comment), "%s",
                      offline ? comment : "");
            if (!offline)
                (void)power_node_clear (srv->power, node);
            log_msg (LOG_INFO, "node %s %s by %s%s%s", node->name,
                     offline ? "taken offline" : "back in service", who,
                     offline && comment[0] ? ": " : "", offline ? comment : "");
        }
        if (i < nsel)
            server_reply_error (c, msg, EIO, "cannot record the state of node %s",
                                sel[i]->name);
        else {
            server_request_pass (srv);
            server_reply_after_commit (srv, c, msg, NULL);
        }
    }
    free (sel);
}

static const struct handler node_admin_handlers[] = {
    { "node.stat", node_stat, ROLE_ANY },
    { "node.offline", node_offline, ROLE_ANY },
    { NULL, NULL, 0 },
};

int node_admin_register (struct server *srv)
{
    return server_register (srv, node_admin_handlers);
}
