/* reclaim.h - spot reclaims: a provider takes a node back, with notice.
 *
 * A notice comes from the node's worker (node.notice: it polls its
 * provider's metadata, worker/notice.h) or from an operator or automation
 * (pbsnodes --reclaim NODE --notice SECONDS: node.reclaim).  Then:
 *   1. the node drains: nothing new starts there (NODE_DRAIN_RECLAIM);
 *   2. each job on it that takes checkpoint signals is asked for a
 *      checkpoint at once (reason "reclaim");
 *   3. when its checkpoint is reported, or the notice time is nearly up
 *      (the margin: a quarter of the notice, at most 10 s, at least 1 s),
 *      the job is requeued as a new attempt and started elsewhere at once
 *      if it fits (the reclaimed node is draining, so excluded), else it
 *      goes ahead of every other waiting job until it starts;
 *   4. the node goes down when the provider takes it (its worker's link
 *      drops and node_timeout passes: the fence, worker/fence.h) or at the
 *      deadline; a later boot of it (a hello) brings it back, drained no
 *      more.
 * Each notice is stored with its deadline (reclaim_notices) until that
 * boot: a restarted scheduler honours it (checkpoints if there is still
 * time, else the job is requeued and the node is gone at the deadline).
 * Every notice and reclaim is an event (job_seq NULL: node_reclaim_notice,
 * node_reclaimed) and a log line; each requeue is the job's "requeued"
 * event, its reason naming the node and the provider.
 */
#ifndef HPCQ_SCHEDULER_RECLAIM_H
#define HPCQ_SCHEDULER_RECLAIM_H

#include <stdint.h>

#include "common/error.h"
#include "scheduler/server.h"

struct node;

/* Registers node.notice and node.reclaim.  NULL with err. */
struct reclaim *reclaim_create (struct server *srv, struct hpcq_error *err);
void reclaim_destroy (struct reclaim *rc);

/* Node n will be taken at deadline (wall seconds); source says who said
 * so ("aws terminate", "operator alice").  A second notice for a node
 * already draining changes nothing unless it comes sooner.  0 or -1. */
int reclaim_notice (struct reclaim *rc, struct node *n, int64_t deadline,
                    const char *source);

/* n's worker said hello: if the provider had taken n, this is a later
 * boot and n takes jobs again. */
void reclaim_node_hello (struct reclaim *rc, struct node *n);

#endif
