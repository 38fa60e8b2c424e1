/* node_state.h - the node state machine: the one writer of a node's state.
 *
 * A node's state (node->state, node.h) is UNKNOWN (known from the
 * database or a cloud node powered off: not heard from), UP (its worker
 * said hello) or DOWN (its heartbeats stopped, its provider took it back,
 * or its resume or suspend program failed).  Each change has a cause and
 * is legal only if the table in node_state.c lists it for that cause, as
 * job_state.h does for jobs.  nodes_set_state() is the only code that
 * writes node->state: it writes the change through (the nodes row where
 * the cause's row says so, and an event) so that every writer records the
 * same things.  What else a cause brings (its jobs lost, an interruption
 * counted, the link closed) stays with the caller.
 */
#ifndef HPCQ_SCHEDULER_NODE_STATE_H
#define HPCQ_SCHEDULER_NODE_STATE_H

#include "scheduler/node.h"
#include "scheduler/server.h"

/* What caused a change; node_cause_name() spells it in the event. */
enum node_cause {
    NODE_EV_HELLO,         /* its worker said node.hello (nodes.c) */
    NODE_EV_TIMEOUT,       /* no heartbeat for node_timeout (nodes.c) */
    NODE_EV_RECLAIMED,     /* its provider took it back (reclaim.c) */
    NODE_EV_POWER_FAILED,  /* resume_ or suspend_program failed (power.c) */
    NODE_EV_POWERED_OFF,   /* suspend_program took it down (power.c) */
    NODE_EV_CLOUD_CLEARED, /* a failed cloud node given back (power.c) */
    NODE_EV_COUNT
};

struct node_transition {
    enum node_state from, to;
    enum node_cause cause;
    /* What the nodes row's state becomes ("down", "cloud"), or NULL: the
     * caller writes the whole row (a hello), or the row stays. */
    const char *row;
};

/* The cause's name ("timeout"); "?" if out of range. */
const char *node_cause_name (enum node_cause cause);

/* The whole table (tests walk it); *n rows. */
const struct node_transition *node_state_table (int *n);

/* 1 if cause may take a node from state from to state to, else 0. */
int node_state_legal (enum node_state from, enum node_state to, enum node_cause cause);

/* Change n's state to `to` because of cause, with why (a detail for the
 * event, may be NULL), if the table allows it.  A change to a new state
 * is written through in the open batch: the nodes row's state where the
 * table's row names one, and a node_state event (no job) saying
 * "NAME: FROM -> TO: CAUSE[: WHY]"; going DOWN sets down_since_ms.  The
 * same state again (a second hello) is no event.  An illegal change is a
 * bug: logged at LOG_ERR with the node, both states, the cause and the
 * caller; nothing changes and -1 is returned with errno EINVAL.  A failed
 * write is logged and the change stands (as the callers did before):
 * 0 otherwise. */
#define nodes_set_state(srv, n, to, cause, why) \
    nodes_set_state_at ((srv), (n), (to), (cause), (why), __func__)
int nodes_set_state_at (struct server *srv, struct node *n, enum node_state to,
                        enum node_cause cause, const char *why, const char *caller);

#endif
