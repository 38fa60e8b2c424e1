/* nodeclass.h - what a node is, beyond its resources: its class, whether
 * it is a spot node, its price, and how often nodes of its class are
 * interrupted.
 *
 * A node says it through its worker's labels:
 *   class=NAME          its class (default: "default")
 *   spot, spot=true     a spot node (the provider may take it back)
 *   price_per_hour=X    what an hour of it costs (any currency)
 * and the scheduler's config gives per class what the labels do not:
 *   price_per_hour.NAME = X       (else price_per_hour, else 0)
 *   mtbi_prior.NAME = HH:MM:SS    (else mtbi_prior, else 720:00:00)
 *
 * Each class's interruption history is kept in the database: the
 * node-seconds its nodes were up (counted while the scheduler runs, from
 * each node's changes of state: nodeclass_state) and each interruption (a node that stopped answering,
 * a reclaim).  nodeclass_mtbi() turns them into the mean time between
 * interruptions that the Young/Daly interval needs (scheduler/policy/cadence.h).
 */
#ifndef HPCQ_SCHEDULER_NODECLASS_H
#define HPCQ_SCHEDULER_NODECLASS_H

#include <stddef.h>

#include "common/error.h"
#include "scheduler/node.h"
#include "scheduler/server.h"

struct node;

#define NODECLASS_NAME_MAX 64

/* Reads price_per_hour and mtbi_prior (and their per-class forms) and
 * the history from the database.  NULL with err. */
struct nodeclass *nodeclass_create (struct server *srv, struct hpcq_error *err);
void nodeclass_destroy (struct nodeclass *nc);

/* The value of label key ("class") in a comma-separated label list, into
 * buf; 1 if present (a bare "key" gives ""), else 0. */
int nodeclass_label (const char *labels, const char *key, char *buf, size_t len);

/* n's class name into buf (NODECLASS_NAME_MAX).  Returns buf. */
const char *nodeclass_of (const struct node *n, char *buf, size_t len);

/* 1 if n is a spot node. */
int nodeclass_is_spot (const struct node *n);

/* What an hour of n costs. */
double nodeclass_price (struct nodeclass *nc, const struct node *n);

/* What an hour of n would cost on demand: n's own price for an on-demand
 * node; for a spot node its ondemand_price_per_hour=X label, else
 * ondemand_price_per_hour.CLASS, else ondemand_price_per_hour, else its
 * own price (then nothing is known to be saved). */
double nodeclass_ondemand_price (struct nodeclass *nc, const struct node *n);

/* The mean time between interruptions of n's class, seconds. */
double nodeclass_mtbi (struct nodeclass *nc, const struct node *n);

/* n's state is about to change to `to` (nodes_set_state, the one writer of
 * node state, calls this first): up time is counted from a node's coming up to its leaving
 * up, not sampled. */
void nodeclass_state (struct nodeclass *nc, struct node *n, enum node_state to);

/* Record an interruption of n: kind "failure" or "reclaim", with a detail
 * for people.  Joins the open transaction.  0 or -1. */
int nodeclass_interrupted (struct nodeclass *nc, const struct node *n, const char *kind,
                           const char *detail);

#endif
