/* queue_attr.h - a queue's attributes as qmgr and qstat -Q -f name them
 * (PBS Pro's: Priority, enabled, started, resources_max.RES,
 * resources_default.RES, max_run, max_run_user, node_labels,
 * preempt_order, preempt_targets, node_preference), and queue.manage,
 * which sets them.
 */
#ifndef HPCQ_SCHEDULER_QUEUE_ATTR_H
#define HPCQ_SCHEDULER_QUEUE_ATTR_H

#include <jansson.h>

#include "scheduler/server.h"

struct queue;

/* The attributes qstat -Q -f and qmgr show, PBS names (new object). */
json_t *queue_attrs_json (const struct queue *q);

/* queue.manage (qmgr's create, delete, set and unset of a queue): the
 * handler, in rpc/queue_rpc.c's table. */
void queue_attr_manage (struct server *srv, struct conn *c, struct wire_msg *msg);

#endif
