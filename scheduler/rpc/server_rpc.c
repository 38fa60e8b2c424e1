/* server_rpc.c - see server_rpc.h
 *
 * Answered straight from memory, as the job queries are.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <string.h>

#include "common/config.h"
#include "scheduler/jobs.h"
#include "scheduler/nodes.h"
#include "scheduler/rpc/server_rpc.h"
#include "scheduler/server_attr.h"

json_t *server_rpc_state_counts (struct server *srv, const char *queue)
{
    static const char states[] = "QHWTRE";
    static const char *names[] = { "Queued",  "Held",    "Waiting",
                                   "Transit", "Running", "Exiting" };
    json_t *o = json_object ();
    struct job **all;
    int n, total = 0, count[6] = { 0 };

    all = jobs_all (srv->jobs, &n);
    for (int i = 0; i < n; i++) {
        const char *p = strchr (states, all[i]->rec.state);
        if (!p || (queue && strcmp (all[i]->rec.queue, queue) != 0))
            continue;
        count[p - states]++;
        total++;
    }
    for (int i = 0; i < 6; i++)
        json_object_set_new (o, names[i], json_integer (count[i]));
    json_object_set_new (o, "total_jobs", json_integer (total));
    return o;
}

json_t *server_rpc_json (struct server *srv)
{
    int nnodes;

    json_t *attrs = json_object ();

    (void)nodes_all (srv->nodes, &nnodes);
    server_attr_json (srv, attrs);
    return json_pack ("{s:s s:s s:s s:o s:i s:s s:I s:I s:o}", "server", srv->name,
                      "server_state", "Active", "default_queue", srv->default_queue,
                      "state_count", server_rpc_state_counts (srv, NULL), "nodes",
                      nnodes, "pbs_version", PACKAGE_VERSION, "hpcq_commits",
                      (json_int_t)srv->stat_commits, "hpcq_jobs_submitted",
                      (json_int_t)srv->stat_submitted, "attributes", attrs);
}

static void server_stat (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    json_t *o = server_rpc_json (srv);
    /* Where the records are and what a price is in, for hpcq-report on
     * this host (HPCQ_SERVER is all it needs to be told; the folder is
     * private either way).  Not in the REST API's server object. */
    const char *dir = config_get (srv->cfg, "state_dir", NULL);
    const char *currency = config_get (srv->cfg, "currency", NULL);

    if (o && dir)
        json_object_set_new (o, "hpcq_state_dir", json_string (dir));
    if (o && currency)
        json_object_set_new (o, "hpcq_currency", json_string (currency));
    (void)conn_reply (c, msg, 0, NULL, o);
}

static const struct handler server_handlers[] = {
    { "server.stat", server_stat, ROLE_ANY },
    { NULL, NULL, 0 },
};

int server_rpc_register (struct server *srv)
{
    return server_register (srv, server_handlers) < 0 ? -1 : 0;
}
