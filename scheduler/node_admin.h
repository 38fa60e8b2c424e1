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

#include "scheduler/server.h"

struct node;

/* The state name above for n. */
const char *node_admin_state (const struct node *n);

int node_admin_register (struct server *srv);

#endif
