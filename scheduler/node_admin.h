/* node_admin.h - what administrators ask of nodes (pbsnodes): their state,
 * resources and jobs (node.stat, anyone), and taking them out of service
 * and back (node.offline, operators).
 *
 * A node's state as shown: down (no worker), offline (taken out of service,
 * nothing running), draining (taken out of service, jobs still running:
 * they finish, nothing new starts), job-busy (every core taken), free;
 * a cloud node (power.h) is also cloud (powered off), resuming or
 * suspending.
 */
#ifndef HPCQ_SCHEDULER_NODE_ADMIN_H
#define HPCQ_SCHEDULER_NODE_ADMIN_H

#include <jansson.h>

#include "scheduler/server.h"

struct node;

/* The state name above for n. */
const char *node_admin_state (const struct node *n);

int node_admin_register (struct server *srv);

/* A node as pbsnodes sees it (node.stat's entries), for the REST API too:
 * jobs_map from node_admin_jobs_map (the jobs on each node, made once for
 * all nodes).  New references. */
json_t *node_admin_jobs_map (struct server *srv);
json_t *node_admin_json (const struct node *n, json_t *jobs_map);

#endif
