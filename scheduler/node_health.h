/* node_health.h - nodes a health check takes out of service and back.
 *
 * A worker's verdict (node.health {ok, reason}, worker/health.h): a
 * failing one takes a node offline, with the reason as its comment (as
 * pbsnodes -o -C would), and remembers that the check did it (durable:
 * nodes.health_offline); a passing one puts the node back only if the
 * check had taken it out.  A node an administrator took offline stays
 * offline whatever the check says, and pbsnodes -o or -r on a node makes
 * the administrator's word the last (node_health_forget).
 */
#ifndef HPCQ_SCHEDULER_NODE_HEALTH_H
#define HPCQ_SCHEDULER_NODE_HEALTH_H

#include "scheduler/server.h"

struct node;

/* Registers node.health and loads which nodes the check took offline.
 * NULL with errno. */
struct node_health *node_health_create (struct server *srv);
void node_health_destroy (struct node_health *nh);

/* An administrator set node n's state (pbsnodes -o/-r): the check no
 * longer owns it.  0 or -1 (database). */
int node_health_forget (struct server *srv, struct node *n);

#endif
