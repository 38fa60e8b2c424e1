/* nodes.h - the workers the scheduler knows: resources, usage, liveness.
 *
 * A node appears when its worker says node.hello (or, after a restart,
 * from the jobs the database says run there), is up while heartbeats
 * arrive, and goes down when they stop for node_timeout: its jobs are then
 * requeued (rerunnable) or failed.  This is the registry; the handlers of
 * the workers' link (node.hello, node.heartbeat, job.started,
 * job.finished) and the timeout are worker_link.h's, and only
 * node_state.h changes a node's state.
 */
#ifndef HPCQ_SCHEDULER_NODES_H
#define HPCQ_SCHEDULER_NODES_H

#include <stdint.h>

#include "scheduler/node.h"
#include "scheduler/server.h"

struct nodes *nodes_create (struct server *srv);
void nodes_destroy (struct nodes *ns);

/* Nodes the database knows, as UNKNOWN until their workers say hello:
 * their sizes let submissions be judged right after a restart. */
int nodes_load (struct nodes *ns);

/* Lookup by name; NULL if unknown. */
struct node *nodes_lookup (struct nodes *ns, const char *name);
/* Lookup or add an UNKNOWN placeholder (used when reloading jobs). */
struct node *nodes_get (struct nodes *ns, const char *name);

/* Array of all nodes, sorted by name (borrowed, valid until a node is added). */
struct node **nodes_all (struct nodes *ns, int *n);

/* The node's link to its worker is c, or gone (NULL): reachable follows. */
void node_set_link (struct node *n, struct conn *c);

int nodes_free_gpus (const struct node *n);
const char *node_state_name (enum node_state s);

/* Send msg to the node's worker now (not durable: only for messages that
 * may be repeated, like kill requests).  -1 if the node is not connected. */
int nodes_send (struct node *n, struct wire_msg *msg);

#endif
