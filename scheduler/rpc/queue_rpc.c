/* queue_rpc.c - see queue_rpc.h; queue.manage's grammar is queue.c's. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "scheduler/cost.h"
#include "scheduler/limits.h"
#include "scheduler/queue.h"
#include "scheduler/queue_attr.h"
#include "scheduler/rpc/server_rpc.h"
#include "scheduler/rpc/queue_rpc.h"

static void queue_stat (struct server *srv, struct conn *c, struct wire_msg *msg)
{
    json_t *queues = json_object ();
    int n;
    struct queue **all = queue_all (srv->queues, &n);

    for (int i = 0; i < n; i++) {
        json_t *o = queue_attrs_json (all[i]);
        limits_attrs_json (srv->limits, all[i]->rec.name, o);
        json_object_set_new (o, "state_count",
                             server_rpc_state_counts (srv, all[i]->rec.name));
        json_object_set_new (o, "resources_used",
                             cost_queue_json (srv, all[i]->rec.name));
        json_object_set_new (queues, all[i]->rec.name, o);
    }
    (void)conn_reply (c, msg, 0, NULL,
                      json_pack ("{s:s s:o}", "server", srv->name, "queues", queues));
}

static const struct handler queue_handlers[] = {
    { "queue.stat", queue_stat, ROLE_ANY },
    { "queue.manage", queue_attr_manage, ROLE_ANY },
    { NULL, NULL, 0 },
};

int queue_rpc_register (struct server *srv)
{
    return server_register (srv, queue_handlers);
}
